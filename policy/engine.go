package policy

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
	"github.com/agent-shell/agent-shell/state"
	"github.com/agent-shell/agent-shell/telemetry"

	"github.com/agent-shell/agent-shell/internal/textcut"
)

// maxCommandBytes bounds the command line that is parsed; a longer one is
// unknown.
const maxCommandBytes = 64 << 10

// ErrLoad wraps every failure to load the policy; a caller that sees it must
// deny, and the reference tool's deny reason for it is its message.
var ErrLoad = errors.New("Failed to load policy")

// Engine decides on hook events and commands from the project's policy:
// policy.json's lists and the manifest's rules, evaluated together.
type Engine struct {
	File     *PolicyFile // nil when there is no policy.json
	Manifest *Manifest   // nil when there is no agent-shell.toml
	// LoadErr says why a policy file that exists could not be loaded: then
	// every call is denied, with ErrLoad's message as the reason.
	LoadErr error
	// Root is the repository root the engine decides for, set by Load: the
	// built-in guards (guard.go) protect paths under it. "" finds it from
	// each event's cwd. Scripts see it as ctx.project.
	Root string
	// Home is the $HOME of the hook process, for the requests DecideEvent
	// and AfterEvent build from a hook event (Request.Home); "" when
	// unknown. The caller sets it: Load reads no environment for it.
	Home string

	deny  []filePattern
	allow []filePattern

	// ConfigDigest is the digest of the configuration loaded (see
	// ConfigDigest in authorized.go); "" when it did not load.
	ConfigDigest string
	// Authorized is true when the configuration in force is the one a
	// human last authorized (set by LoadAuthorized).
	Authorized bool
	auth       authNote // what LoadAuthorized adds to every decision (authorized.go)
	// store keeps the approval grants and script state (StateDir); nil
	// keeps none.
	store *state.Store

	// EventTimeout bounds the extensions of one hook decision together:
	// past it, every script or executable still to run fails (and takes
	// its declared failure outcome), so the answer comes before the host's
	// own hook timeout, which most hosts treat as an allow. 0: no bound.
	EventTimeout time.Duration
	// DryRun decides events as policy explain does: the grants reviewers
	// give are not stored (Request.DryRun).
	DryRun bool
	// Now is the time hook events are decided at (scripts' ctx.timestamp,
	// grants' creation and expiry); nil is the clock's. Replay sets it to
	// each recorded call's time.
	Now func() time.Time
}

// Load reads the policy under root. It never fails: a load error is kept on
// the Engine, which then denies everything.
func Load(root string, getenv func(string) string) *Engine {
	return loadFrom(root, root, getenv, nil)
}

// loadFrom reads the policy under root, keeping compiled programs under
// stateRoot (used as pins say: see RuntimeOptions) and grants and script
// state in stateRoot's StateDir, and computes the configuration digest.
func loadFrom(root, stateRoot string, getenv func(string) string, pins map[string]string) *Engine {
	cache := filepath.Join(stateRoot, filepath.FromSlash(cacheSubpath))
	return loadWith(root, stateRoot, getenv, RuntimeOptions{CacheDir: cache, CachePins: pins, Store: stateStore(stateRoot, getenv)})
}

// loadWith reads the configuration under root for the repository at
// stateRoot, compiling its scripts as opts say.
func loadWith(root, stateRoot string, getenv func(string) string, opts RuntimeOptions) *Engine {
	e := &Engine{Root: stateRoot} // the repository's root, also for an authorized copy loaded from elsewhere
	pf, err := LoadPolicyFile(root, getenv)
	switch {
	case errors.Is(err, ErrNoPolicyFile):
	case err != nil:
		e.LoadErr = err
		return e
	default:
		e.File = pf
	}
	m, err := loadManifestCached(root, opts)
	switch {
	case errors.Is(err, ErrNoManifest):
	case err != nil:
		e.LoadErr = err
		return e
	default:
		e.Manifest = m
	}
	if err := e.compile(opts); err != nil {
		e.LoadErr = err
	}
	if e.LoadErr == nil {
		e.ConfigDigest = ConfigDigest(e.File, e.Manifest)
	}
	return e
}

// NewEngine builds an engine from already loaded parts (either may be nil),
// keeping no script state and no compile cache.
func NewEngine(pf *PolicyFile, m *Manifest) (*Engine, error) {
	return NewEngineWith(pf, m, RuntimeOptions{})
}

// NewEngineWith is NewEngine with the scripts' cache, their state and the
// approval grants where opts say.
func NewEngineWith(pf *PolicyFile, m *Manifest, opts RuntimeOptions) (*Engine, error) {
	e := &Engine{File: pf, Manifest: m}
	return e, e.compile(opts)
}

func (e *Engine) compile(opts RuntimeOptions) error {
	e.store = opts.Store
	if e.File != nil {
		e.deny = compilePatterns(e.File.Deny)
		e.allow = compilePatterns(e.File.Allow)
	}
	if e.Manifest != nil {
		if err := e.Manifest.compileScripts(opts); err != nil {
			return err
		}
		if !e.Manifest.snap.used {
			for _, r := range e.Manifest.Rules {
				if r.pack != "" {
					continue // checked by policy check and pack add: a pack's files are pinned
				}
				if err := e.checkExamples(r); err != nil {
					return err
				}
			}
			e.Manifest.saveSnapshot(opts) // snapshot.go: examples and all checked
		}
	}
	return nil
}

// Match is one rule that matched one command.
type Match struct {
	Source string // "policy.json deny", "policy.json allow", "manifest", "policy"
	Rule   string // manifest rule id, or the policy.json pattern
	Action Action
	Reason string
}

// CommandReport is what was decided about one simple command (one layer of
// a wrapped command counts as its own).
type CommandReport struct {
	Argv    []string // the layer, normalized
	Layer   int      // 0 for the outermost layer
	Effects []string
	Matches []Match
	Action  Action
}

// Decision is the outcome of Decide, with every step kept so that `policy
// explain` can print it and the policy_decision event can record it.
type Decision struct {
	Action   Action
	Rule     string // the deciding rule, "" when none (default, allow list miss...)
	Reason   string
	Effects  []string
	Commands []CommandReport
	Unknown  string // why the command line counts as unknown, if it does
	SoleGate bool
	// Extensions lists every script run on the way, in order.
	Extensions []telemetry.ExtensionRun
	// Guard names the built-in guard rule that decided (guard.go), "" when
	// none did.
	Guard string
	// Review is what grants and reviewers did with an ask (review.go), nil
	// when they did not run.
	Review *Review
	// Intercept is what the before-interceptors did (intercept.go), nil
	// when none ran.
	Intercept *Interception
}

// Verdict turns a decision into the host-neutral verdict.
func (d Decision) Verdict() hostapi.Verdict {
	return hostapi.Verdict{Decision: hostapi.Decision(d.Action), Reason: d.Reason, SoleGate: d.SoleGate}
}

// decideEvent decides on one hook event (DecideEvent, in authorized.go,
// adds what the configuration's authorization says).
func (e *Engine) decideEvent(ev *hostapi.Event) Decision {
	if e.LoadErr != nil {
		return Decision{Action: ActionDeny, Reason: ErrLoad.Error()}
	}
	if ev.Kind != hostapi.KindPreTool || !ev.IsShell() {
		return Decision{Action: ActionAllow, Reason: "not a shell command", SoleGate: e.soleGate()}
	}
	if ev.CommandErr != nil {
		return Decision{Action: ActionDeny, Reason: ev.CommandErr.Error()}
	}
	req := Request{Cwd: ev.Cwd, Home: e.Home, SessionID: ev.SessionID, Agent: ev.Agent, Tool: ev.Tool, DryRun: e.DryRun}
	if e.Now != nil {
		req.Time = e.Now()
	}
	if e.EventTimeout > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), e.EventTimeout)
		defer cancel()
		req.Context = ctx
	}
	return e.DecideRequest(ev.Command, req)
}

func (e *Engine) soleGate() bool { return e.Manifest != nil && e.Manifest.Policy.SoleGate }

// Decide decides on one shell command line run in cwd ("" when unknown).
func (e *Engine) Decide(raw, cwd string) Decision {
	return e.DecideRequest(raw, Request{Cwd: cwd})
}

// decideRequest decides on one shell command line for a request
// (DecideRequest, in authorized.go, adds what the configuration's
// authorization says).
func (e *Engine) decideRequest(raw string, req Request) Decision {
	cwd := req.Cwd
	if e.LoadErr != nil {
		return Decision{Action: ActionDeny, Reason: ErrLoad.Error()}
	}
	d := Decision{SoleGate: e.soleGate()}
	if e.File == nil && e.Manifest == nil {
		d.Action, d.Reason = ActionAllow, "no policy.json or agent-shell.toml: allowed by default"
		return d
	}
	command := trimSpace(raw)
	var line *shellcmd.Line
	if len(command) > maxCommandBytes {
		// Parsing a megabyte of shell takes longer than a hook should; a
		// command this long is not one a policy can vouch for.
		line = &shellcmd.Line{Err: fmt.Errorf("%w: it is %d bytes, longer than the %d bytes checked", shellcmd.ErrTooLarge, len(command), maxCommandBytes)}
	} else {
		line = shellcmd.Parse(command)
	}
	d.Unknown = line.UnknownReason()

	defaultAction, unknownAction := ActionAllow, ActionAsk
	if e.Manifest != nil {
		defaultAction, unknownAction = e.Manifest.Policy.Default, e.Manifest.Policy.Unknown
	}
	hasAllowList := e.File != nil && e.File.HasAllow

	// Every match counts, and the most severe decides: deny beats ask beats
	// allow. A command that no rule matches takes the default.
	var decisive *Match
	d.Action = ActionAllow
	consider := func(m Match) {
		if decisive == nil || m.Action.severity() > decisive.Action.severity() {
			mm := m
			decisive = &mm
		}
		if m.Action.severity() > d.Action.severity() {
			d.Action = m.Action
		}
	}
	defaulted := false
	ev := e.newEvaluation(req)
	ev.line = line
	// Every match's reason quotes the line: a long line is quoted in part,
	// or a line of n commands would cost n copies of itself. (The stages
	// after the rules get the line whole: it is what they record.)
	quoted := reasonCommand(raw)
	cwds := []string{cwd} // where the line's commands may run, as its cd's go
	for ci := range line.Commands {
		c := &line.Commands[ci]
		for li, layer := range c.Layers {
			sub := &subject{raw: quoted, argv: layer, canon: shellcmd.Canonical(layer), shape: layerShape(c, li),
				cmd: c, innermost: li == len(c.Layers)-1, eval: ev}
			sub.effects = ev.analyze(sub, lineEffects(layer, c, cwds))
			rep := CommandReport{Argv: layer, Layer: li, Effects: sub.effects}
			rep.Matches = e.layerMatches(sub, li, unknownAction, hasAllowList)
			if c.Unknown != "" {
				rep.Matches = append(rep.Matches, unknownMatch(quoted, c.Unknown, unknownAction, hasAllowList))
			}
			if len(rep.Matches) == 0 {
				rep.Action = defaultAction
				defaulted = true
				if defaultAction.severity() > d.Action.severity() {
					d.Action = defaultAction
				}
			}
			for _, m := range rep.Matches {
				if m.Action.severity() >= rep.Action.severity() {
					rep.Action = m.Action
				}
				consider(m)
			}
			d.Effects = appendNew(d.Effects, rep.Effects...)
			d.Commands = append(d.Commands, rep)
		}
		cwds = followCd(c, cwds)
	}
	for _, m := range e.pipelineDenies(quoted, line, unknownAction, hasAllowList) {
		consider(m)
	}
	for _, m := range ev.denies {
		consider(m)
	}
	d.Extensions = ev.runs
	switch {
	case errors.Is(line.Err, shellcmd.ErrTooLarge):
		// Part of the line was never examined: padding must not carry a
		// command past the rules, whatever [policy] unknown says.
		consider(Match{Source: "policy", Action: ActionDeny,
			Reason: fmt.Sprintf("Command denied: %v", line.Err)})
	case line.Err != nil:
		consider(unknownMatch(quoted, line.Err.Error(), unknownAction, hasAllowList))
	}
	if hasAllowList {
		for _, a := range line.Assigns {
			consider(Match{Source: "policy.json allow", Action: ActionDeny,
				Reason: fmt.Sprintf("Command '%s' denied by policy rule: not in allow list (assignment %s)", quoted, a)})
		}
	}

	switch {
	case decisive != nil && decisive.Action == d.Action:
		d.Reason = decisive.Reason
		if decisive.Source == "manifest" || decisive.Source == "policy.json deny" || decisive.Source == "script" {
			d.Rule = decisive.Rule
		}
	case defaulted:
		d.Reason = fmt.Sprintf("Command '%s' %s by the policy default", quoted, d.Action.past())
	default:
		d.Reason = "no command to run"
	}
	if e.beforeStage(&d, ev, raw, line) { // before-interceptors (intercept.go): a rewrite restarts from the top
		return d
	}
	e.review(&d, ev, raw, line)
	return d
}

// layerMatches lists the policy.json and manifest rules that match one
// layer of a command, or that some run-time value of it would match (see
// mayMatch).
func (e *Engine) layerMatches(sub *subject, li int, unknownAction Action, hasAllowList bool) []Match {
	var out []Match
	raw, c := sub.raw, sub.cmd
	canon := strings.Join(sub.canon, " ")
	for _, p := range e.deny {
		switch {
		case p.stages != nil:
		case p.deniesLayer(sub.writtenForms()):
			out = append(out, Match{Source: "policy.json deny", Rule: p.raw, Action: ActionDeny,
				Reason: fmt.Sprintf("Command '%s' denied by policy rule: %s", raw, p.raw)})
		case sub.shape != nil && p.deniesLayer(sub.shapeForms()):
			if m, ok := mayMatch(sub, "policy.json deny", p.raw, ActionDeny, unknownAction, hasAllowList); ok {
				out = append(out, m)
			}
		}
	}
	if hasAllowList {
		if pattern, why := e.allowListMiss(canon, c, li); why != "" {
			out = append(out, Match{Source: "policy.json allow", Action: ActionDeny,
				Reason: fmt.Sprintf("Command '%s' denied by policy rule: not in allow list (%s)", raw, why)})
		} else {
			out = append(out, Match{Source: "policy.json allow", Rule: pattern, Action: ActionAllow,
				Reason: fmt.Sprintf("Command '%s' allowed by policy rule: %s", raw, pattern)})
		}
	}
	if e.Manifest != nil {
		for _, r := range e.Manifest.Rules {
			switch sub.matchRule(r) {
			case triYes:
				out = append(out, Match{Source: "manifest", Rule: r.ID, Action: r.Action, Reason: ruleReason(raw, r, sub)})
			case triFailed:
				// A failed matcher is conservative: it cannot make an
				// allow rule match, nor make a deny or ask rule vanish.
				if r.Action != ActionAllow {
					out = append(out, Match{Source: "manifest", Rule: r.ID, Action: r.Action,
						Reason: ruleReason(raw, r, sub) + " (its script matcher failed, so the rule counts as matching)"})
				}
			case triMaybe:
				// Only some run-time value matches: an allow rule does not allow.
				if r.Action == ActionAllow {
					continue
				}
				if m, ok := mayMatch(sub, "manifest", r.ID, r.Action, unknownAction, hasAllowList); ok {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

func (a Action) past() string {
	switch a {
	case ActionDeny:
		return "denied"
	case ActionAsk:
		return "needs approval"
	}
	return "allowed"
}

func ruleReason(raw string, r *Rule, sub *subject) string {
	why := r.Reason
	if said := sub.scriptReasons(r.Match); said != "" {
		// What the matcher saw comes first, the rule's advice after it.
		if why != "" {
			said += "; " + why
		}
		why = said
	}
	if why == "" {
		why = "matched"
	}
	switch r.Action {
	case ActionDeny:
		return fmt.Sprintf("Command '%s' denied by rule %s: %s", raw, r.ID, why)
	case ActionAsk:
		return fmt.Sprintf("Command '%s' needs approval (rule %s: %s)", raw, r.ID, why)
	}
	return fmt.Sprintf("Command '%s' allowed by rule %s", raw, r.ID)
}

// unknownMatch is the verdict on what cannot be known statically: denied
// under an allow list (which can only pass what it can see), else the
// policy's unknown action.
func unknownMatch(raw, why string, unknownAction Action, allowList bool) Match {
	if allowList {
		return Match{Source: "policy.json allow", Action: ActionDeny,
			Reason: fmt.Sprintf("Command '%s' denied by policy rule: not in allow list (cannot be checked: %s)", raw, why)}
	}
	return Match{Source: "policy", Action: unknownAction,
		Reason: fmt.Sprintf("Command '%s' cannot be checked: %s", raw, why)}
}

// envRisky names variables that change what a command runs or loads, so an
// allow pattern for the command does not cover running it with them set.
var envRisky = map[string]bool{
	"PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "DYLD_INSERT_LIBRARIES": true,
	"NODE_OPTIONS": true, "BASH_ENV": true, "ENV": true, "PYTHONPATH": true, "PYTHONSTARTUP": true,
	"PERL5OPT": true, "RUBYOPT": true, "GIT_SSH_COMMAND": true, "GIT_EXEC_PATH": true, "IFS": true,
	"PROMPT_COMMAND": true, "SHELLOPTS": true, "npm_config_script_shell": true,
}

// allowListMiss says why one layer of a command is not covered by the
// allow list, or which pattern covers it.
func (e *Engine) allowListMiss(canon string, c *shellcmd.Command, layer int) (pattern, why string) {
	if c.Substitution {
		return "", "command substitution"
	}
	if layer == 0 {
		for _, r := range c.Redirects {
			if r.Write && r.File {
				return "", "writes " + r.Target
			}
			if r.Dynamic {
				return "", "redirection to " + r.Target
			}
		}
		for _, a := range c.Assigns {
			name, _, _ := strings.Cut(a, "=")
			if envRisky[name] || strings.HasPrefix(name, "AGENTSHELL_") {
				return "", "sets " + name
			}
		}
	}
	for _, a := range c.Layers[layer] {
		if strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "--output-file=") {
			return "", "writes " + a[strings.IndexByte(a, '=')+1:]
		}
	}
	for _, p := range e.allow {
		if p.stages == nil && globMatch(p.glob, canon) {
			return p.raw, ""
		}
	}
	return "", fmt.Sprintf("%q is not allowed", canon)
}

// pipelineDenies tests deny patterns that contain a pipe against runs of
// consecutive pipeline stages: a run where every stage matches is denied;
// one where some stage only may match at run time is unknown (mayMatch).
func (e *Engine) pipelineDenies(raw string, line *shellcmd.Line, unknownAction Action, hasAllowList bool) []Match {
	var out []Match
	for _, p := range e.deny {
		if p.stages == nil {
			continue
		}
		for _, pl := range line.Pipelines {
			for start := 0; start+len(p.stages) <= len(pl); start++ {
				run, maybe := triYes, -1
				for j, stagePat := range p.stages {
					r := stageMatch(stagePat, line, pl[start+j])
					if r == triNo {
						run = triNo
						break
					}
					if r == triMaybe && maybe < 0 {
						run, maybe = triMaybe, start+j
					}
				}
				switch run {
				case triYes:
					out = append(out, Match{Source: "policy.json deny", Rule: p.raw, Action: ActionDeny,
						Reason: fmt.Sprintf("Command '%s' denied by policy rule: %s", raw, p.raw)})
				case triMaybe:
					c := &line.Commands[pl[maybe][0]]
					sub := &subject{raw: raw, argv: c.Argv, shape: c.Shapes[len(c.Shapes)-1]}
					if m, ok := mayMatch(sub, "policy.json deny", p.raw, ActionDeny, unknownAction, hasAllowList); ok {
						out = append(out, m)
					}
				}
			}
		}
	}
	return out
}

// filePattern is a policy.json pattern normalized like a command: its words
// unquoted, its program reduced to a basename, its flags canonicalized.
type filePattern struct {
	raw string
	wordGlob
	stages []wordGlob // for a pattern with a pipe: each stage
}

// wordGlob is a normalized pattern: its glob, the single-letter flags it
// names, and its glob as written (quotes removed, program basename, no
// flag canonicalization).
type wordGlob struct {
	glob  string
	flags map[string]bool
	plain string
}

// layerForms are the texts of one command layer that deny patterns are
// matched against, read as r says and computed once for all patterns:
// canonical (flags normalized); as written, so that `--force*` still
// covers `--force-with-lease` as a text glob would; and for git, both
// again without the configuration options before the subcommand (-c,
// --config-env, --exec-path), which canonicalization keeps because they
// can run code but which must not hide `git -c x=y push --force` from a
// deny.
type layerForms struct {
	r               reading
	canon           []string
	canonText, text string
	git             *layerForms // without git's configuration options, or nil
}

func newLayerForms(r reading, layer, canon []string) *layerForms {
	f := &layerForms{r: r, canon: canon, canonText: r.join(canon), text: r.join(layer)}
	if stripped, ok := gitWithoutConfig(layer); ok {
		f.git = newLayerForms(r, stripped, r.canon(stripped))
	}
	return f
}

// deniesLayer tests the pattern against every form of one command layer.
func (g wordGlob) deniesLayer(f *layerForms) bool {
	if g.matchDeny(f) || f.r.matchDenyGlob(g.plain, f.text) {
		return true
	}
	return f.git != nil && g.deniesLayer(f.git)
}

// reading is how a pattern reads a command's words: asWritten, where it
// matches or not, or asShapes (shellcmd.Command.Shapes), where it may
// match some value of what is only known at run time.
type reading bool

const (
	asWritten reading = false
	asShapes  reading = true
)

func (r reading) join(words []string) string {
	if r == asShapes {
		return shellcmd.JoinShape(words)
	}
	return strings.Join(words, " ")
}

func (r reading) glob(pattern, s string) bool {
	if r == asShapes {
		return globMeets(pattern, s)
	}
	return globMatch(pattern, s)
}

func (r reading) canon(words []string) []string {
	if r == asShapes {
		return shellcmd.CanonicalShape(words)
	}
	return shellcmd.Canonical(words)
}

// gitWithoutConfig drops git's configuration options before its
// subcommand; ok is false when there are none (or it is not git).
func gitWithoutConfig(argv []string) ([]string, bool) {
	if len(argv) < 2 || argv[0] != "git" {
		return nil, false
	}
	out := []string{argv[0]}
	dropped := false
	i := 1
	for i < len(argv) {
		n, runsCode := shellcmd.GitGlobal(argv[i:])
		if n == 0 {
			break
		}
		if runsCode {
			dropped = true
		} else {
			out = append(out, argv[i:i+n]...)
		}
		i += n
	}
	if !dropped {
		return nil, false
	}
	return append(out, argv[i:]...), true
}

func compilePatterns(raws []string) []filePattern {
	out := make([]filePattern, 0, len(raws))
	for _, raw := range raws {
		p := filePattern{raw: raw, wordGlob: normalizePattern(raw)}
		if parts := splitPipe(raw); len(parts) > 1 {
			for _, part := range parts {
				p.stages = append(p.stages, normalizePattern(part))
			}
		}
		out = append(out, p)
	}
	return out
}

// matchDeny matches a command's canonical words. It is stricter than the
// plain glob in two ways, since a deny can only get safer: a pattern ending
// in " *" also stops the bare command (`sudo *` stops `sudo`), and flags
// the pattern does not name are ignored when the pattern names some
// (`rm -rf *` stops `rm -rfv /`).
func (g wordGlob) matchDeny(f *layerForms) bool {
	if f.r.matchDenyGlob(g.glob, f.canonText) {
		return true
	}
	if len(g.flags) == 0 {
		return false
	}
	reduced := make([]string, 0, len(f.canon))
	for _, w := range f.canon {
		if isShortFlag(w) && !g.flags[w] {
			continue
		}
		reduced = append(reduced, w)
	}
	return len(reduced) < len(f.canon) && f.r.matchDenyGlob(g.glob, f.r.join(reduced))
}

func (r reading) matchDenyGlob(pattern, s string) bool {
	if r.glob(pattern, s) {
		return true
	}
	if p, ok := strings.CutSuffix(pattern, " *"); ok {
		return r.glob(p, s)
	}
	return false
}

func isShortFlag(w string) bool {
	return len(w) == 2 && w[0] == '-' && (w[1] >= 'a' && w[1] <= 'z' || w[1] >= 'A' && w[1] <= 'Z')
}

// normalizePattern splits a pattern into words on whitespace, removes
// quotes, reduces the program to its basename and canonicalizes flags, the
// same normalization a command gets, so both sides compare alike.
func normalizePattern(raw string) wordGlob {
	words := patternWords(raw)
	if len(words) == 0 {
		return wordGlob{}
	}
	if !strings.Contains(words[0], "*") {
		words[0] = filepath.Base(words[0])
	}
	canon := shellcmd.Canonical(words)
	g := wordGlob{glob: strings.Join(canon, " "), plain: strings.Join(words, " ")}
	for _, w := range canon {
		if isShortFlag(w) {
			if g.flags == nil {
				g.flags = map[string]bool{}
			}
			g.flags[w] = true
		}
	}
	return g
}

// patternWords splits on unquoted whitespace and drops the quotes.
func patternWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// splitPipe splits a pattern on unquoted `|` (not `||`).
func splitPipe(s string) []string {
	var parts []string
	var quote rune
	start := 0
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '|':
			if (i+1 < len(s) && s[i+1] == '|') || (i > 0 && s[i-1] == '|') {
				continue
			}
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// trimSpace trims Unicode spaces at both ends, U+FEFF included, as
// JavaScript's trim does.
func trimSpace(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, have := range list {
			if have == it {
				found = true
				break
			}
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}

// subject is one layer of a command as manifest matchers see it, with its
// canonical form computed once for all rules.
type subject struct {
	raw         string // the whole command line, for reasons
	argv, canon []string
	shape       []string          // the layer's shape when it is dynamic (see dynamic.go), else nil
	written     *layerForms       // the layer as deny patterns read it, once writtenForms computes it
	shaped      *layerForms       // its shape so read, once shapeForms computes it
	paths       map[string]string // runtimePaths, once pathsRead
	pathsRead   bool
	writtenOnly bool // matchers read no run-time values (see matchRule)
	cmd         *shellcmd.Command
	innermost   bool
	effects     []string
	memo        map[string][]string // canonical forms of rule arguments in this command's context

	eval    *evaluation
	ctx     starlark.Value    // shell-context-v1 for matchers, built on first use
	scripts map[string]tri    // matcher results, one run per script
	why     map[string]string // what each matcher that said yes said
	gitSub  string            // gitSubcommand, once gitRead
	gitRead bool
}

// eval evaluates a manifest matcher against one layer of a command. The
// static keys are certain, or maybe when only some run-time value of the
// layer's words makes them hold; a script matcher can fail. An answer that
// is not certain spreads: all() is no if any part is no, else failed if
// any part failed, else maybe if any part is maybe; any() is yes if any
// part is yes, else failed, else maybe; not() keeps a failure a failure
// and a maybe a maybe, so negation can never turn either into a match.
func (mt *Matcher) eval(s *subject) tri {
	static := mt.matchStatic(s)
	if static == triNo {
		return triNo
	}
	failed, maybe := false, static == triMaybe
	note := func(r tri) {
		failed = failed || r == triFailed
		maybe = maybe || r == triMaybe
	}
	for _, sub := range mt.All {
		r := sub.eval(s)
		if r == triNo {
			return triNo
		}
		note(r)
	}
	if len(mt.Any) > 0 {
		anyResult := triNo
		for _, sub := range mt.Any {
			r := sub.eval(s)
			if r == triYes {
				anyResult = triYes
				break
			}
			if r == triFailed || r == triMaybe && anyResult == triNo {
				anyResult = r
			}
		}
		if anyResult == triNo {
			return triNo
		}
		note(anyResult)
	}
	if mt.Not != nil {
		r := mt.Not.eval(s)
		if r == triYes {
			return triNo
		}
		note(r)
	}
	// The script runs last: a conjunction's answer does not depend on its
	// order, and the static keys beside it spare most commands the run.
	if mt.Script != "" {
		r := s.matchScript(mt.Script)
		if r == triNo {
			return triNo
		}
		note(r)
	}
	switch {
	case failed:
		return triFailed
	case maybe:
		return triMaybe
	}
	return triYes
}

// matchStatic tests the keys that need no script: triYes when all hold,
// triMaybe when some only may at run time.
func (mt *Matcher) matchStatic(s *subject) tri {
	argv := s.argv
	if len(argv) == 0 {
		return triNo
	}
	if len(mt.Program) > 0 && !(contains(mt.Program, argv[0]) || s.innermost && contains(mt.Program, s.cmd.Path)) {
		return triNo
	}
	if len(mt.Basename) > 0 && !contains(mt.Basename, argv[0]) {
		return triNo
	}
	if len(mt.CommandName) > 0 && !(commandNameIn(mt.CommandName, argv[0]) || s.innermost && commandNameIn(mt.CommandName, s.cmd.Path)) {
		return triNo
	}
	r := triYes
	// For a key that does not hold as written: whether it may at run
	// time, unless run-time values are not read (see matchRule).
	runtime := !s.writtenOnly
	may := func(holds bool) bool {
		if holds {
			r = triMaybe
		}
		return holds
	}
	if len(mt.ArgvPrefix) > 0 {
		switch s.prefixHolds(mt) {
		case triYes:
		case triMaybe:
			// Only if a word that "*" stands for is one word at run time.
			if !runtime {
				return triNo
			}
			r = triMaybe
		default:
			if !(runtime && may(s.mayHavePrefix(mt))) {
				return triNo
			}
		}
	}
	if len(mt.Argument) > 0 && !s.anyArgument(mt.Argument) && !(runtime && may(s.mayHaveArgument(mt.Argument))) {
		return triNo
	}
	if len(mt.ArgumentContains) > 0 && !anyArgumentContains(argv[1:], mt.ArgumentContains) &&
		!(runtime && may(s.mayContainArgument(mt.ArgumentContains))) {
		return triNo
	}
	if re := mt.programRE; re != nil && !(re.MatchString(argv[0]) || s.innermost && re.MatchString(s.cmd.Path)) {
		return triNo
	}
	if len(mt.GitSubcommand) > 0 && !s.gitSubcommandIn(mt.GitSubcommand) {
		return triNo
	}
	if len(mt.Effect) > 0 && !anyEffect(s.effects, mt.Effect) && !(runtime && may(s.mayHaveEffect(mt.Effect))) {
		return triNo
	}
	if mt.NoUnknownEffects != nil {
		hasUnknown := false
		for _, e := range s.effects {
			if e == EffectUnknown || strings.HasPrefix(e, EffectUnknown+":") {
				hasUnknown = true
			}
		}
		if *mt.NoUnknownEffects == hasUnknown {
			return triNo
		}
	}
	return r
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// anyWord, a word of an argv_prefix, stands for any one word of the
// command.
const anyWord = "*"

// prefixHolds reports whether the layer starts with the matcher's
// argv_prefix, as written or in canonical form: triYes when it does, triMaybe
// when it does only if the words that a "*" stands for are single words at
// run time (one holds a part only known at run time, or a glob that the
// shell may expand to several words before more of the prefix), triNo
// otherwise.
func (s *subject) prefixHolds(mt *Matcher) tri {
	// A word is certain when the shell runs it as it is written: static, and
	// with no glob character. In the canonical form, where words move, only
	// a layer with no run-time part at all counts.
	written := prefixWords(s.argv, mt.ArgvPrefix, func(i int) bool {
		return s.shape == nil || i < len(s.shape) && s.shape[i] == s.argv[i]
	})
	if written == triYes {
		return triYes
	}
	canon := prefixWords(s.canon, mt.canonPrefix, func(int) bool { return s.shape == nil })
	switch {
	case canon == triYes:
		return triYes
	case written == triMaybe || canon == triMaybe:
		return triMaybe
	}
	return triNo
}

// prefixWords compares words with an argv_prefix whose "*" stands for any
// one word: triYes when every word a "*" takes is certain, triMaybe when
// some is not: only known at run time (static says which are known), or a
// glob before more of the prefix (a glob is one word or more: at the end of
// the prefix, it fills the "*" either way).
func prefixWords(words, prefix []string, static func(i int) bool) tri {
	if len(prefix) > len(words) {
		return triNo
	}
	r := triYes
	for i, p := range prefix {
		switch {
		case p == anyWord:
			if !static(i) || i < len(prefix)-1 && strings.ContainsAny(words[i], "*?[") {
				r = triMaybe
			}
		case words[i] != p:
			return triNo
		}
	}
	return r
}

// gitSubcommandIn reports whether the layer is git (in any case, git.exe
// too: a case-insensitive file system runs them) running one of subs,
// or a subcommand that cannot be known from the text: a dynamic word, or
// one the command's own configuration may alias (-c alias.*,
// --config-env, -c include.path, GIT_CONFIG_* variables). An alias set by
// an earlier git config is judged where it is set (git config is one of
// the safety pack's subcommands).
func (s *subject) gitSubcommandIn(subs []string) bool {
	if !s.gitRead {
		s.gitSub, s.gitRead = s.gitSubcommand(), true
	}
	switch s.gitSub {
	case "":
		return false
	case gitAnySub:
		return true
	}
	return contains(subs, s.gitSub)
}

// gitAnySub stands for a subcommand that may be any: dynamic, or aliased.
const gitAnySub = "\x00any"

// gitSubcommand is the layer's git subcommand in lower case, gitAnySub
// when it may be any, "" when the layer is not git or runs none: read once
// per layer, however many rules ask.
func (s *subject) gitSubcommand() string {
	if commandName(s.argv[0]) != "git" {
		return ""
	}
	globals, sub, rest := shellcmd.GitSplit(s.argv[1:])
	if sub == "" && len(rest) > 0 && rest[0] == "--" {
		_, sub, _ = shellcmd.GitSplit(rest[1:])
	}
	if sub == "" {
		return ""
	}
	if dynamicWord(sub) {
		return gitAnySub
	}
	for _, g := range globals {
		// -c alias.x=..., --config-env=alias.x=VAR, -c include.path=...:
		// configuration that may define what the subcommand runs.
		if g := strings.ToLower(g); strings.Contains(g, "alias.") || strings.Contains(g, "include") {
			return gitAnySub
		}
	}
	for _, a := range s.cmd.Assigns {
		if strings.HasPrefix(a, "GIT_CONFIG") {
			return gitAnySub
		}
	}
	return strings.ToLower(sub)
}

// anyArgument reports whether some wanted argument is among the command's
// arguments, as written or canonicalized in the command's own context (so
// "--force" finds "git push -f", and "-D" finds "git branch -d -f").
func (s *subject) anyArgument(wants []string) bool {
	for _, w := range wants {
		if contains(s.argv[1:], w) {
			return true
		}
		words := s.canonicalArgument(w)
		found := len(words) > 0
		for _, x := range words {
			if !contains(s.canon[1:], x) {
				found = false
			}
		}
		if found {
			return true
		}
	}
	return false
}

// canonicalArgument is the canonical form of w as an argument of this
// command's program (and subcommand, which decides what options mean).
func (s *subject) canonicalArgument(w string) []string {
	if words, ok := s.memo[w]; ok {
		return words
	}
	ctx := s.canon[:1]
	if len(s.canon) > 1 && !strings.HasPrefix(s.canon[1], "-") {
		ctx = s.canon[:2]
	}
	base := shellcmd.Canonical(ctx)
	var words []string
	for _, x := range shellcmd.Canonical(append(append([]string{}, ctx...), w)) {
		if !contains(base, x) {
			words = append(words, x)
		}
	}
	if s.memo == nil {
		s.memo = map[string][]string{}
	}
	s.memo[w] = words
	return words
}

func anyArgumentContains(args, wants []string) bool {
	for _, a := range args {
		for _, w := range wants {
			if strings.Contains(a, w) {
				return true
			}
		}
	}
	return false
}

// anyEffect reports whether some effect matches some pattern: a bare kind
// matches every effect of that kind, kind:glob matches the path by glob.
func anyEffect(effects, patterns []string) bool {
	for _, p := range patterns {
		pk, pglob, hasGlob := strings.Cut(p, ":")
		for _, e := range effects {
			ek, epath, _ := strings.Cut(e, ":")
			if ek != pk {
				continue
			}
			if !hasGlob {
				return true
			}
			if ok, _ := doublestar.Match(pglob, epath); ok {
				return true
			}
		}
	}
	return false
}

// The example project: a pack rule's examples run at its root, with HOME
// its parent.
const (
	exampleProject = "/home/dev/project"
	exampleHome    = "/home/dev"
)

// CheckPackExamples verifies the examples of every pack rule, which loading
// skips (the pack's files are pinned, and a pack's examples cost every call
// time): what policy check and pack add do.
func (e *Engine) CheckPackExamples() error {
	if e.Manifest == nil || e.LoadErr != nil {
		return e.LoadErr
	}
	for _, r := range e.Manifest.Rules {
		if r.pack == "" {
			continue
		}
		if err := e.checkExamples(r); err != nil {
			return err
		}
	}
	return nil
}

// checkExamples verifies a rule's examples when the manifest loads.
func (e *Engine) checkExamples(r *Rule) error {
	for _, ex := range r.Examples.Match {
		ok, err := e.ruleMatchesLine(r, ex)
		if err != nil {
			return &ManifestError{Path: e.Manifest.Path, Line: ruleLineByID(e.Manifest, r), Key: "examples.match", Msg: err.Error()}
		}
		if !ok {
			return &ManifestError{Path: e.Manifest.Path, Line: ruleLineByID(e.Manifest, r), Key: "examples.match",
				Msg: fmt.Sprintf("rule %q does not match its example %q", r.ID, ex)}
		}
	}
	for _, ex := range r.Examples.NotMatch {
		ok, err := e.ruleMatchesLine(r, ex)
		if err != nil {
			return &ManifestError{Path: e.Manifest.Path, Line: ruleLineByID(e.Manifest, r), Key: "examples.not_match", Msg: err.Error()}
		}
		if ok {
			return &ManifestError{Path: e.Manifest.Path, Line: ruleLineByID(e.Manifest, r), Key: "examples.not_match",
				Msg: fmt.Sprintf("rule %q matches its counter-example %q", r.ID, ex)}
		}
	}
	return nil
}

func ruleLineByID(m *Manifest, r *Rule) int {
	for i, x := range m.Rules {
		if x == r {
			return m.ruleKeyLine(i, "examples")
		}
	}
	return 0
}

// ruleMatchesLine reports whether the rule matches any layer of any command
// of a command line, running its matchers and the analyzers as a decision
// would. A script that fails on an example is an error: the example cannot
// be checked.
func (e *Engine) ruleMatchesLine(r *Rule, command string) (bool, error) {
	line := shellcmd.Parse(command)
	req := Request{}
	if r.pack != "" {
		// A pack's rules judge paths against the project and HOME: their
		// examples run at the root of an example project.
		req = Request{Cwd: exampleProject, Project: exampleProject, Home: exampleHome}
	}
	ev := e.newEvaluation(req)
	ev.line = line
	for ci := range line.Commands {
		c := &line.Commands[ci]
		for li, layer := range c.Layers {
			sub := &subject{raw: command, argv: layer, canon: shellcmd.Canonical(layer), cmd: c, innermost: li == len(c.Layers)-1, eval: ev}
			sub.effects = ev.analyze(sub, commandEffects(layer, c, req.Cwd))
			res := r.Match.eval(sub)
			for _, run := range ev.runs {
				if run.Error != "" {
					return false, fmt.Errorf("rule %q: example %q: script %s failed: %s: %s", r.ID, command, run.Script, run.Outcome, firstLine(run.Error))
				}
			}
			if res == triYes {
				return true, nil
			}
		}
	}
	return false, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// commandReports pairs each command of a line with its reports in d, one
// per layer in order; ok is false when they do not line up (the decision
// was not made on this line).
func commandReports(d *Decision, line *shellcmd.Line) ([][]CommandReport, bool) {
	out := make([][]CommandReport, 0, len(line.Commands))
	ri := 0
	for ci := range line.Commands {
		c := &line.Commands[ci]
		if len(c.Layers) == 0 || ri+len(c.Layers) > len(d.Commands) {
			return nil, false
		}
		reps := d.Commands[ri : ri+len(c.Layers)]
		ri += len(c.Layers)
		for li, rep := range reps {
			if !slices.Equal(rep.Argv, c.Layers[li]) {
				return nil, false
			}
		}
		out = append(out, reps)
	}
	return out, ri == len(d.Commands)
}

// TrimCommand is the command as the policy evaluates and records it: with
// Unicode spaces trimmed at both ends.
func TrimCommand(c string) string { return trimSpace(c) }

// maxReasonCommand is how much of a command line a reason quotes.
const maxReasonCommand = 200

// reasonCommand is the command line as a reason quotes it.
func reasonCommand(raw string) string {
	if cut, ok := textcut.Cut(raw, maxReasonCommand); ok {
		return cut + "…"
	}
	return raw
}
