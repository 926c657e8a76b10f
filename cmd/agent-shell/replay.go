package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/call"
	"github.com/agent-shell/agent-shell/internal/termtext"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/policy/replay"
	"github.com/agent-shell/agent-shell/telemetry"
)

type replayOptions struct {
	session, last, config, failOn string
	json, runExecutables          bool
}

func newReplayCmd(a *app) *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay",
		Short: "Decide recorded calls again under the current or a proposed policy, and show what changes",
		Long: `Decides every recorded pre-tool call (policy_decision, guard and
config_unauthorized events) and every npm script (script_end) again, with its
recorded cwd, agent, tool and time, under the repository's configuration as
it is on disk, or under the one of another checkout (--config). Prints the
calls whose decision or deciding rule changes, grouped by change and counted:
loosening changes (deny -> ask, deny -> allow, ask -> allow) first, then
tightening ones, then rule changes; then the totals.

Nothing of the repository's state is used or changed: scripts are compiled
from source, and their state and approval grants start empty in a scratch
folder (so a decision a grant allowed may come back as ask). npm scripts are
decided as the shim decides them: by its interceptors only, since the rules
are not enforced there. Executable extensions are programs the configuration
names, which a proposed checkout's author chose: they are not run unless
--run-executables says so, and each takes its declared failure outcome
instead (the calls that met one are counted). Damaged lines, and calls that
cannot be decided again, are counted and reported, never dropped.

Every session is replayed unless --session or --last narrows it. Exits 1
with --fail-on-change when a change loosens (loosen) or on any change (any),
and when the configuration does not load.`,
		Example: `  agent-shell replay                             # every session, current configuration
  agent-shell replay --config ../proposal --fail-on-change=loosen   # a CI gate for policy changes
  agent-shell replay --last 7d --json | jq '.changes[] | .command'`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return a.runReplay(cmd, &o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.session, "session", "", "only session `ID`")
	f.StringVar(&o.last, "last", "", "only calls from the last `DURATION` (30s, 15m, 2h, 7d)")
	f.StringVar(&o.config, "config", "", "decide under the configuration of the checkout in `DIR` (a folder holding "+policy.ConfigFolder+"/, or that folder itself)")
	f.StringVar(&o.failOn, "fail-on-change", "", "exit 1 on a change of `KIND`: loosen (a decision gets less strict) or any")
	f.BoolVar(&o.runExecutables, "run-executables", false, "run the configuration's executable extensions (programs it names, which run as you: only for a configuration you trust)")
	f.BoolVar(&o.json, "json", false, "print one JSON object: the totals, the groups, every changed call, the calls not replayed and the damaged lines")
	return cmd
}

// replayTimeout bounds one replayed call's extensions, as the hook's
// decision timeout does.
const replayTimeout = call.DecisionTimeout

func (a *app) runReplay(cmd *cobra.Command, o *replayOptions) error {
	switch o.failOn {
	case "", "loosen", "any":
	default:
		return &runtimeError{err: fmt.Errorf("--fail-on-change: want loosen or any, not %q", o.failOn), code: exitUsage}
	}
	var since time.Time
	if cmd.Flags().Changed("last") {
		d, err := telemetry.ParseDuration(o.last)
		if err != nil {
			return &runtimeError{err: fmt.Errorf("--last: %w", err), code: exitUsage}
		}
		since = a.now().Add(-d)
	}
	h, err := a.here()
	if err != nil {
		return fmt.Errorf("current directory: %w", err)
	}
	root := h.Root
	cfgRoot, what := root, "the current configuration"
	if o.config != "" {
		if cfgRoot, err = replay.ConfigRoot(o.config); err != nil {
			return fmt.Errorf("--config: %w", err)
		}
		what = "the configuration in " + displayPath(cfgRoot)
	}
	dir, err := a.eventsDir()
	if err != nil {
		return err
	}
	var ids []string
	if o.session != "" {
		ids = []string{o.session}
	}
	out := a.stdout
	if o.json {
		a.stdout = io.Discard // sessionFiles' notes; the JSON says it all
	}
	files, skipped, ok, err := a.sessionFiles(dir, ids)
	a.stdout = out
	if err != nil || (!ok && !o.json) {
		return err // !ok: nothing recorded, as sessionFiles said
	}
	for _, s := range skipped {
		a.errorf("skipped %s: %s, not a regular file", displayPath(s.Path), s.Kind())
	}

	// Script state and grants of the replay: a scratch folder of its own.
	scratch, err := os.MkdirTemp("", "agent-shell-replay-")
	if err != nil {
		return fmt.Errorf("scratch folder for script state: %w", err)
	}
	defer os.RemoveAll(scratch)
	engine := policy.LoadReplay(cfgRoot, root, scratch, a.getenv, o.runExecutables)
	if engine.LoadErr != nil {
		return fmt.Errorf("%s does not load, so nothing can be decided under it: %v", what, engine.LoadErr)
	}
	res, err := replay.Run(replay.Options{Engine: engine, Root: root, Files: files, Since: since,
		Home: a.getenv("HOME"), Timeout: replayTimeout})
	if err != nil {
		return err
	}
	for i := range res.Damaged {
		res.Damaged[i].File = displayPath(res.Damaged[i].File)
	}

	w := bufio.NewWriter(a.stdout)
	if o.json {
		err = writeReplayJSON(w, cfgRoot, res)
	} else {
		writeReplayText(w, what, res)
	}
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write output: %w", ferr)
	}
	if err != nil {
		return err
	}
	for _, d := range res.Damaged {
		a.errorf("skipped %d damaged line(s) in %s (first at line %d: %s)", d.Count, d.File, d.FirstLine, termtext.Line(d.FirstError, 200))
	}
	if (o.failOn == "loosen" && res.Loosened > 0) || (o.failOn == "any" && len(res.Changed) > 0) {
		return exitCode(exitError)
	}
	return nil
}

// replayShown is how many calls of one group the text lists.
const replayShown = 5

func writeReplayText(w *bufio.Writer, what string, res *replay.Result) {
	fmt.Fprintf(w, "Replayed %d %s from %d %s under %s.\n", res.Calls, plural(res.Calls, "call", "calls"),
		res.Sessions, plural(res.Sessions, "session", "sessions"), what)
	groups := res.Groups()
	for i, g := range groups {
		if i == 0 || g.From != groups[i-1].From || g.To != groups[i-1].To {
			n := 0
			for _, h := range groups[i:] {
				if h.From != g.From || h.To != g.To {
					break
				}
				n += h.Count
			}
			head := g.From + " -> " + g.To
			switch g.Change {
			case replay.Loosens:
				head += " (loosens)"
			case replay.Tightens:
				head += " (tightens)"
			default:
				head = g.From + ", another rule"
			}
			fmt.Fprintf(w, "\n%s: %d %s\n", head, n, plural(n, "call", "calls"))
		}
		fmt.Fprintf(w, "  rule %s -> %s: %d\n", ruleName(g.RuleFrom), ruleName(g.RuleTo), g.Count)
		for j, c := range g.Calls {
			if j == replayShown {
				fmt.Fprintf(w, "    ... and %d more (--json lists every one)\n", len(g.Calls)-replayShown)
				break
			}
			who := c.Agent
			if who == "" {
				who = "-" // a line of the reference tool names no agent
			}
			if c.Tool != "" {
				who += " " + c.Tool
			}
			note := ""
			for _, x := range c.Inexact {
				note += " (" + x + ")"
			}
			fmt.Fprintf(w, "    %s:%d  %s  %s%s\n", termtext.Line(c.Session, 40), c.Line, termtext.Line(who, 40), termtext.Line(c.Command, 100), note)
		}
	}
	if len(res.Skipped) > 0 {
		fmt.Fprintf(w, "\nnot replayed: %d %s\n", len(res.Skipped), plural(len(res.Skipped), "call", "calls"))
		for i, s := range res.Skipped {
			if i == replayShown {
				fmt.Fprintf(w, "  ... and %d more (--json lists every one)\n", len(res.Skipped)-replayShown)
				break
			}
			fmt.Fprintf(w, "  %s:%d  %s: %s\n", termtext.Line(s.Session, 40), s.Line, s.Event, termtext.Line(s.Reason, 200))
		}
	}
	if res.ExecutablesNotRun > 0 {
		fmt.Fprintf(w, "\n%d %s met executable extensions that were not run, and took their failure outcomes (--run-executables runs them, for a configuration you trust).\n",
			res.ExecutablesNotRun, plural(res.ExecutablesNotRun, "call", "calls"))
	}
	if res.NoCwd > 0 {
		fmt.Fprintf(w, "\n%d %s recorded no cwd (written before decisions kept it) and %s judged at the repository root.\n",
			res.NoCwd, plural(res.NoCwd, "call", "calls"), plural(res.NoCwd, "was", "were"))
	}
	changed := len(res.Changed)
	fmt.Fprintf(w, "\nTotal: %d %s: %d changed (%d %s, %d %s, %d another rule), %d unchanged; %d not replayed; %d damaged %s.\n",
		res.Calls, plural(res.Calls, "call", "calls"), changed,
		res.Loosened, plural(res.Loosened, "loosens", "loosen"), res.Tightened, plural(res.Tightened, "tightens", "tighten"),
		res.RuleChanged, res.Unchanged, len(res.Skipped), res.DamagedLines(), plural(res.DamagedLines(), "line", "lines"))
}

func ruleName(r string) string {
	if r == "" {
		return "(none)"
	}
	return termtext.Line(r, 60)
}

func writeReplayJSON(w io.Writer, cfgRoot string, res *replay.Result) error {
	groups := res.Groups()
	if groups == nil {
		groups = []replay.Group{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Config       string `json:"config"`
		DamagedLines int    `json:"damaged_lines"`
		NotReplayed  int    `json:"not_replayed"`
		*replay.Result
		Groups []replay.Group `json:"groups"`
	}{cfgRoot, res.DamagedLines(), len(res.Skipped), res, groups})
}
