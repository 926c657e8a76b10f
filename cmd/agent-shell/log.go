package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/internal/termtext"
	"github.com/agent-shell/agent-shell/telemetry"
	"github.com/agent-shell/agent-shell/telemetry/logtable"
)

type logOptions struct {
	last, actor, script, session, event string
	failures, json, listSessions, wide  bool
	follow                              bool
}

func newLogCmd(a *app) *cobra.Command {
	var o logOptions
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Query the flight recorder",
		Long: `Show recorded events, oldest first, merged across sessions in time order.

Without a filter, only the most recent session is shown. Filters combine
(all must hold). Damaged lines are skipped and reported on stderr.`,
		Example: `  agent-shell log                      # the most recent session
  agent-shell log --last 2h --failures # failed scripts, denials and shim errors
  agent-shell log --actor claude-code --json | jq .command
  agent-shell log --list-sessions
  agent-shell log verify               # check every session's hash chain`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return a.runLog(cmd, &o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.last, "last", "", "only events from the last `DURATION` (30s, 15m, 2h, 7d), or the last N events (20)")
	f.BoolVar(&o.wide, "wide", false, "show whole commands in the table")
	f.BoolVar(&o.follow, "follow", false, "stream new events of every session as they are written, until interrupted")
	f.BoolVar(&o.failures, "failures", false, "only failed scripts, denied decisions and shim errors")
	f.StringVar(&o.actor, "actor", "", "only events by `ACTOR` (exact; an agent's hook name, claude, finds claude-code)")
	f.StringVar(&o.script, "script", "", "only script_end events of npm script `NAME` (exact)")
	f.StringVar(&o.session, "session", "", "only session `ID`")
	f.StringVar(&o.event, "event", "", "only events of `TYPE` ("+strings.Join(telemetry.EventTypes, ", ")+")")
	f.BoolVar(&o.json, "json", false, "print the matching lines as recorded, one JSON object per line")
	f.BoolVar(&o.listSessions, "list-sessions", false, "list sessions (newest first) instead of events")
	cmd.AddCommand(newLogVerifyCmd(a))
	return cmd
}

// eventsDir is where log reads: found from the project (git) root, so it
// works from any subdirectory.
func (a *app) eventsDir() (string, error) {
	h, err := a.here()
	if err != nil {
		return "", fmt.Errorf("current directory: %w", err)
	}
	return telemetry.EventsDirForRead(h.Root, a.getenv)
}

func (a *app) runLog(cmd *cobra.Command, o *logOptions) error {
	flags := cmd.Flags()
	var flt telemetry.Filter
	count := 0 // --last N: the last N matching events
	if flags.Changed("last") {
		if n, err := strconv.Atoi(o.last); err == nil && n > 0 {
			count = n
		} else {
			d, err := telemetry.ParseDuration(o.last)
			if err != nil {
				return fmt.Errorf("--last: want a duration (2h) or a count (20): %w", err)
			}
			flt.Since = a.now().Add(-d)
		}
	}
	flt.Failures = o.failures
	if flags.Changed("actor") {
		// An agent's hook name (claude) finds what its calls recorded
		// (claude-code).
		o.actor = hostapi.Actor(o.actor)
		flt.Actor = &o.actor
	}
	if flags.Changed("script") {
		flt.Script = &o.script
	}
	if flags.Changed("event") {
		flt.Event = &o.event
	}

	dir, err := a.eventsDir()
	if err != nil {
		return err
	}
	var ids []string
	if flags.Changed("session") {
		ids = []string{o.session}
	}
	if o.follow {
		return a.followLog(dir, ids, flt, o)
	}
	files, skipped, ok, err := a.sessionFiles(dir, ids)
	if err != nil || !ok {
		return err
	}
	for _, s := range skipped {
		a.errorf("skipped %s: %s, not a regular file", displayPath(s.Path), s.Kind())
	}
	if len(files) == 0 && !o.listSessions {
		fmt.Fprintf(a.stdout, "No events recorded yet in %s.\n", displayPath(dir))
		return nil
	}
	others := 0 // sessions left out of the default view
	if len(ids) == 0 && flt.IsZero() && count == 0 && !o.listSessions && len(files) > 0 {
		newest, err := telemetry.NewestFile(files)
		if err != nil {
			return fmt.Errorf("find the most recent session: %w", err)
		}
		others = len(files) - 1
		files = []string{newest}
	}

	out := bufio.NewWriterSize(a.stdout, 64<<10)
	var damage []telemetry.Damage
	if o.listSessions {
		damage, err = a.listSessions(out, files, flt, o.json)
	} else {
		damage, err = a.listEvents(out, files, flt, o, count)
	}
	if others > 0 && !o.json && err == nil {
		fmt.Fprintf(out, "(the most recent session; %d other %s: agent-shell log --list-sessions)\n", others, plural(others, "session", "sessions"))
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write output: %w", ferr)
	}
	// The default view is one session: its chain is checked too, cheaply.
	if len(files) == 1 && len(ids) == 0 && flt.IsZero() && count == 0 && !o.listSessions {
		if res, verr := telemetry.VerifyFile(files[0]); verr == nil && !res.OK() {
			a.errorf("warning: %s:%d: %s (the chain does not verify; agent-shell log verify)", displayPath(files[0]), res.Line, res.Problem)
		}
	}
	// After the output, so the report is the last thing a reader sees.
	for _, d := range damage {
		a.errorf("skipped %d damaged line(s) in %s (first at line %d: %s)", d.Count, displayPath(d.File), d.FirstLine, termtext.Line(d.FirstErr, 200))
	}
	return err
}

// listEvents prints the matching events, or with count > 0 the last count
// of them.
func (a *app) listEvents(out *bufio.Writer, files []string, flt telemetry.Filter, o *logOptions, count int) ([]telemetry.Damage, error) {
	asJSON := o.json
	q := &telemetry.Query{Files: files, Filter: flt, Validate: asJSON, Decode: !asJSON}
	n := 0
	var tw *logtable.Events
	if !asJSON {
		tw = logtable.New(out, a.useColor(), o.wide)
	}
	emit := func(raw []byte, e *telemetry.Event) error {
		if asJSON {
			out.Write(raw)
			return out.WriteByte('\n')
		}
		return tw.Add(e)
	}
	type kept struct {
		raw []byte
		e   *telemetry.Event
	}
	var last []kept // a ring of the last count events
	damage, err := q.Run(func(r *telemetry.Record) error {
		n++
		if count == 0 {
			return emit(r.Raw, r.Event)
		}
		k := kept{raw: append([]byte(nil), r.Raw...), e: r.Event} // Raw is reused after the callback
		if len(last) < count {
			last = append(last, k)
		} else {
			last[(n-1)%count] = k
		}
		return nil
	})
	if err != nil {
		return damage, err
	}
	for i := range last {
		k := last[(n+i)%len(last)]
		if len(last) < count {
			k = last[i]
		}
		if err := emit(k.raw, k.e); err != nil {
			return damage, err
		}
	}
	if n == 0 {
		// JSON output stays parseable: no events is no lines.
		if !asJSON {
			fmt.Fprintln(out, "No matching events found.")
		}
		return damage, nil
	}
	if tw != nil {
		return damage, tw.Flush()
	}
	return damage, nil
}

func (a *app) listSessions(out *bufio.Writer, files []string, flt telemetry.Filter, asJSON bool) ([]telemetry.Damage, error) {
	sessions, damage, err := telemetry.ListSessions(files, flt)
	if err != nil {
		return damage, err
	}
	if len(sessions) == 0 {
		if !asJSON {
			fmt.Fprintln(out, "No sessions found.")
		}
		return damage, nil
	}
	if asJSON {
		enc := json.NewEncoder(out)
		for _, s := range sessions {
			v := struct {
				SessionID string   `json:"session_id"`
				First     string   `json:"first,omitempty"`
				Last      string   `json:"last,omitempty"`
				Events    int      `json:"events"`
				Actors    []string `json:"actors"`
			}{SessionID: s.ID, Events: s.Events, Actors: s.Actors}
			if !s.First.IsZero() {
				v.First = s.First.UTC().Format(telemetry.TimestampLayout)
				v.Last = s.Last.UTC().Format(telemetry.TimestampLayout)
			}
			if v.Actors == nil {
				v.Actors = []string{}
			}
			if err := enc.Encode(v); err != nil {
				return damage, err
			}
		}
		return damage, nil
	}
	rows := [][]string{{"SESSION", "FIRST EVENT", "LAST EVENT", "EVENTS", "ACTORS"}}
	for _, s := range sessions {
		actors := make([]string, len(s.Actors))
		for i, act := range s.Actors {
			actors[i] = termtext.Line(act, 40)
		}
		rows = append(rows, []string{
			termtext.Line(s.ID, 0), logtable.Time(s.First), logtable.Time(s.Last), strconv.Itoa(s.Events),
			logtable.Dash(strings.Join(actors, ",")),
		})
	}
	logtable.Fit(out, rows)
	return damage, nil
}

// useColor: ANSI colour only for a terminal, and never when NO_COLOR is set
// (https://no-color.org) or the terminal is dumb.
func (a *app) useColor() bool {
	f, ok := a.stdout.(*os.File)
	if !ok || a.getenv("NO_COLOR") != "" || a.getenv("TERM") == "dumb" {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

// displayPath shows a path relative to the current directory when it is
// inside it, else absolute; sanitized, since a file name can hold anything.
func displayPath(p string) string {
	cwd, err := os.Getwd()
	if err != nil {
		return termtext.Line(p, 0)
	}
	rel, err := filepath.Rel(cwd, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return termtext.Line(p, 0)
	}
	return termtext.Line(rel, 0)
}

func newLogVerifyCmd(a *app) *cobra.Command {
	var strict, asJSON bool
	cmd := &cobra.Command{
		Use:   "verify [SESSION...]",
		Short: "Check the sessions' hash chains for edited, deleted or reordered lines",
		Long: `Check every session file (or the sessions named) line by line: each line must
be a JSON object, seq must count 1, 2, 3..., and each prev_sha256 must be the
SHA-256 of the line before. Prints "ok" per intact file and FILE:LINE with the
first break otherwise; exits 1 if any file is broken, or is not a regular file.

A line torn by a write cut short (a crash, a full disk) is ended by the next
write, which records a repair event naming it; the chain goes on from the line
before it. Each repair is a warning on stderr, or with --strict a failure.

A changed last line cannot be detected: no line after it carries its hash.`,
		RunE: runE(func(_ *cobra.Command, args []string) error {
			return a.runLogVerify(args, strict, asJSON)
		}),
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail a file that holds repaired torn lines")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print one JSON object: {"files": [{"file", "ok", "events", "line", "problem", "repairs"}], "failed"}`)
	return cmd
}

// verifiedFile is what log verify found of one session file.
type verifiedFile struct {
	File    string   `json:"file"`
	OK      bool     `json:"ok"`
	Events  int      `json:"events"`
	Line    int      `json:"line,omitempty"`    // the first break
	Problem string   `json:"problem,omitempty"` // what it is
	Repairs []string `json:"repairs,omitempty"` // repaired torn lines, as LINE: what
}

func (a *app) runLogVerify(ids []string, strict, asJSON bool) error {
	dir, err := a.eventsDir()
	if err != nil {
		return err
	}
	out := a.stdout
	if asJSON {
		a.stdout = io.Discard // sessionFiles' notes; the JSON says it all
	}
	files, skipped, ok, err := a.sessionFiles(dir, ids)
	a.stdout = out
	if err != nil {
		return err
	}
	report, broken, err := a.verifyFiles(files, skipped, strict)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct {
			Files  []verifiedFile `json:"files"`
			Failed int            `json:"failed"`
		}{report, broken}); err != nil {
			return err
		}
	} else if ok {
		a.printVerified(report)
	}
	if broken > 0 {
		a.errorf("%d of %d session file(s) failed verification", broken, len(report))
		return exitCode(exitError)
	}
	return nil
}

func (a *app) printVerified(report []verifiedFile) {
	if len(report) == 0 {
		fmt.Fprintln(a.stdout, "No sessions found.")
	}
	for _, f := range report {
		for _, r := range f.Repairs {
			a.errorf("warning: %s:%s", f.File, r)
		}
		switch {
		case f.OK:
			fmt.Fprintf(a.stdout, "ok  %s  %d %s\n", f.File, f.Events, plural(f.Events, "event", "events"))
		case f.Line > 0:
			fmt.Fprintf(a.stdout, "%s:%d: %s\n", f.File, f.Line, f.Problem)
		default:
			fmt.Fprintf(a.stdout, "%s: %s\n", f.File, f.Problem)
		}
	}
}

// verifyFiles checks every session file, and counts those that failed.
func (a *app) verifyFiles(files []string, skipped []*telemetry.NotRegularError, strict bool) ([]verifiedFile, int, error) {
	// Files are independent: check them on every core, report in order.
	results := make([]telemetry.VerifyResult, len(files))
	errs := make([]error, len(files))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(len(files), runtime.GOMAXPROCS(0)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i], errs[i] = telemetry.VerifyFile(files[i])
			}
		}()
	}
	for i := range files {
		work <- i
	}
	close(work)
	wg.Wait()
	broken := 0
	report := make([]verifiedFile, 0, len(files)+len(skipped))
	for i, f := range files {
		res, err := results[i], errs[i]
		if err != nil {
			return nil, 0, err
		}
		vf := verifiedFile{File: displayPath(f), Events: res.Events}
		if strict && len(res.Repairs) > 0 {
			// Repairs come before any break: the first is the file's.
			r := res.Repairs[0]
			res.Line, res.Problem = r.FirstTorn, r.String()
		} else {
			for _, r := range res.Repairs {
				vf.Repairs = append(vf.Repairs, fmt.Sprintf("%d: %s", r.FirstTorn, r))
			}
		}
		vf.OK = res.OK()
		if !vf.OK {
			broken++
			vf.Line, vf.Problem = res.Line, res.Problem
		}
		report = append(report, vf)
	}
	// A session file that is a pipe or a link loses what is written to it:
	// that is a failure, not a file to pass over.
	for _, s := range skipped {
		broken++
		report = append(report, verifiedFile{File: displayPath(s.Path),
			Problem: s.Kind() + ", not a regular file; nothing is recorded there"})
	}
	return report, broken, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sessionFiles lists the files of the sessions named by ids, or of every
// session when ids is empty; skipped are the session entries that are not
// regular files. ok is false when the events directory does not exist,
// which has been said on stdout.
func (a *app) sessionFiles(dir string, ids []string) (files []string, skipped []*telemetry.NotRegularError, ok bool, err error) {
	if len(ids) > 0 {
		for _, id := range ids {
			p, err := telemetry.SessionFile(dir, id)
			if err != nil {
				return nil, nil, false, err
			}
			files = append(files, p)
		}
		return files, nil, true, nil
	}
	files, skipped, err = telemetry.ListFiles(dir)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(a.stdout, "No events recorded yet in %s.\n", displayPath(dir))
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("read events: %w", err)
	}
	return files, skipped, true, nil
}

// followInterval is how often log --follow looks for new lines.
const followInterval = 200 * time.Millisecond

// followLog streams the events written from now on to the sessions of dir
// (the one session of ids, when given), until the process is interrupted.
func (a *app) followLog(dir string, ids []string, flt telemetry.Filter, o *logOptions) error {
	list := func() []string {
		if len(ids) > 0 {
			p, err := telemetry.SessionFile(dir, ids[0])
			if err != nil {
				return nil
			}
			return []string{p}
		}
		files, _, _ := telemetry.ListFiles(dir)
		return files
	}
	fl := telemetry.NewFollower(flt, list())
	out := bufio.NewWriterSize(a.stdout, 64<<10)
	tw := logtable.New(out, a.useColor(), o.wide)
	if !o.json {
		tw.FixWidths()
	}
	for {
		damage, err := fl.Poll(list(), func(r *telemetry.Record) error {
			if o.json {
				out.Write(r.Raw)
				return out.WriteByte('\n')
			}
			return tw.Add(r.Event)
		})
		if ferr := out.Flush(); err == nil && ferr != nil {
			err = ferr
		}
		if err != nil {
			return err
		}
		for _, d := range damage {
			a.errorf("skipped %d damaged line(s) in %s: %s", d.Count, displayPath(d.File), termtext.Line(d.FirstErr, 200))
		}
		time.Sleep(followInterval)
	}
}
