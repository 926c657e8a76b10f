package policy

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/state"
	"github.com/agent-shell/agent-shell/telemetry"
)

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
	// built-in guards (package guard) protect paths under it. "" finds it from
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

	reason string
	// A manifest rule's match keeps what its reason is made of, and the
	// reason is written when read (Reason): most commands of a long line
	// match a rule, and only the deciding match's reason is usually read.
	rule          *Rule
	quoted, said  string // the line as reasons quote it; what the rule's scripts said
	matcherFailed bool
}

// Reason says why the rule matched, quoting the command line.
func (m Match) Reason() string {
	if m.rule == nil {
		return m.reason
	}
	r := ruleReason(m.quoted, m.rule, m.said)
	if m.matcherFailed {
		r += " (its script matcher failed, so the rule counts as matching)"
	}
	return r
}

// CommandReport is what was decided about one simple command (one layer of
// a wrapped command counts as its own).
type CommandReport struct {
	Argv    []string // the layer, normalized
	Layer   int      // 0 for the outermost layer
	Guessed bool     // of a command another may run (shellcmd's Command.Guessed)
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
	// Guard names the built-in guard rule that decided (package guard), "" when
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
