package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/telemetry"
)

// InterceptorDecl is one [[interceptor]].
type InterceptorDecl struct {
	Script string   `toml:"script"`
	Phase  string   `toml:"phase"` // "before" or "after"
	Match  *Matcher `toml:"match"` // before only: when the interceptor runs
}

// The phases of an interceptor.
const (
	PhaseBefore = "before"
	PhaseAfter  = "after"
)

// maxRewrites bounds the restarts an interceptor's rewrites cause.
const maxRewrites = 8

// Output limits: what is captured of each stream of a command whose output
// after-interceptors see, and what a synthetic or replaced output keeps.
const (
	MaxInterceptOutput = builtins.MaxOutput // 256 KiB per stream
	// maxReasonOutput bounds each stream of a synthetic result quoted in a
	// hook's deny reason or added context.
	maxReasonOutput = 4 << 10
)

// validateInterceptors checks the [[interceptor]] list.
func (m *Manifest) validateInterceptors() error {
	for i, ic := range m.Interceptors {
		fail := func(key, format string, args ...any) error {
			return &ManifestError{Path: m.Path, Line: m.tableLine("interceptor", i), Key: fmt.Sprintf("interceptor[%d].%s", i+1, key), Msg: fmt.Sprintf(format, args...)}
		}
		var want builtins.Kind
		switch ic.Phase {
		case PhaseBefore:
			want = builtins.KindBefore
		case PhaseAfter:
			want = builtins.KindAfter
		case "":
			return fail("phase", "every interceptor says its phase: \"before\" or \"after\"")
		default:
			return fail("phase", "%q: want \"before\" or \"after\"", ic.Phase)
		}
		s := m.script(ic.Script)
		switch {
		case ic.Script == "":
			return fail("script", "every interceptor names its %s script", want)
		case s == nil:
			return fail("script", "no [[script]] has id %q", ic.Script)
		case builtins.Kind(s.Kind) != want:
			return fail("script", "script %q is a %s, not a %s (phase %q)", ic.Script, s.Kind, want, ic.Phase)
		}
		for _, prev := range m.Interceptors[:i] {
			if prev.Script == ic.Script {
				return fail("script", "interceptor %q is listed twice", ic.Script)
			}
		}
		if ic.Match == nil {
			continue
		}
		if ic.Phase == PhaseAfter {
			return fail("match", "an after-interceptor has no match: it sees every finished command's output")
		}
		if err := ic.Match.compile(); err != nil {
			return fail("match", "interceptor %q: %v", ic.Script, err)
		}
		for _, id := range ic.Match.scriptRefs(nil) {
			ms := m.script(id)
			if ms == nil {
				return fail("match.script", "no [[script]] has id %q", id)
			}
			if builtins.Kind(ms.Kind) != builtins.KindMatcher {
				return fail("match.script", "script %q is a %s, not a %s", id, ms.Kind, builtins.KindMatcher)
			}
		}
	}
	return nil
}

// interceptors lists the interceptors of one phase, in declaration order.
func (m *Manifest) interceptors(phase string) []*InterceptorDecl {
	if m == nil {
		return nil
	}
	var out []*InterceptorDecl
	for _, ic := range m.Interceptors {
		if ic.Phase == phase {
			out = append(out, ic)
		}
	}
	return out
}

// HasInterceptors reports whether the engine's manifest declares any
// interceptor (and loaded).
func (e *Engine) HasInterceptors() bool {
	return e != nil && e.LoadErr == nil && e.Manifest != nil && e.Manifest.runtime != nil && len(e.Manifest.Interceptors) > 0
}

// HasBeforeInterceptors reports whether the engine's manifest declares a
// before-interceptor.
func (e *Engine) HasBeforeInterceptors() bool {
	return e.HasInterceptors() && len(e.Manifest.interceptors(PhaseBefore)) > 0
}

// HasAfterInterceptors reports whether the engine's manifest declares an
// after-interceptor.
func (e *Engine) HasAfterInterceptors() bool {
	return e.HasInterceptors() && len(e.Manifest.interceptors(PhaseAfter)) > 0
}

// ConfigText is what a process that loads the policy only when it may
// need it (the npm shim) looks in first, without loading anything: the
// text of the configuration that may be in force under a root, the
// manifest and every authorized copy's (which decides while the current
// one is not authorized), read once. Mentions errs on the side of yes (a
// manifest it cannot read counts), so that a caller skipping the load when
// it says no never skips an interceptor, a sandbox or an audit filter.
type ConfigText struct {
	texts      [][]byte
	unreadable bool // a manifest or the authorized copies could not be read
}

// ReadConfigText reads the configuration's texts.
func ReadConfigText(root string) *ConfigText {
	c := &ConfigText{}
	read := func(path string) {
		data, err := readConfined(root, path, maxManifestBytes)
		switch {
		case err == nil:
			c.texts = append(c.texts, data)
		case !errors.Is(err, fs.ErrNotExist):
			c.unreadable = true
		}
	}
	read(filepath.Join(root, ManifestSubpath))
	dir := filepath.Join(root, filepath.FromSlash(AuthorizedSubpath))
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.unreadable = c.unreadable || !errors.Is(err, fs.ErrNotExist)
		return c
	}
	for _, d := range entries {
		if d.IsDir() {
			read(filepath.Join(dir, d.Name(), ManifestSubpath))
		}
	}
	return c
}

// Mentions reports whether the configuration may mention word: a text says
// it, or one could not be read (which errs on the side of loading).
func (c *ConfigText) Mentions(word string) bool {
	if c.unreadable {
		return true
	}
	for _, t := range c.texts {
		if bytes.Contains(t, []byte(word)) {
			return true
		}
	}
	return false
}

// Interception is what the before-interceptors did to a decision.
type Interception struct {
	// Outcome is InterceptProceed (nothing changed), InterceptRewrite (the
	// command to run is Command), InterceptRespond (nothing runs; the
	// synthetic result is Stdout, Stderr, Exit) or InterceptDeny (a reject, a
	// failure, a refused rewrite or answer, too many rewrites).
	Outcome string
	// Interceptor is the one whose answer decided ("" for proceed).
	Interceptor string
	// Command is, after a rewrite, the command line that runs instead (the
	// last one, after every restart).
	Command string
	// Rewrites counts the restarts.
	Rewrites int
	// The synthetic result of a respond, finalized.
	Stdout, Stderr                   string
	StdoutTruncated, StderrTruncated bool
	Exit                             int
	// Steps lists every interceptor that ran, in order, across restarts.
	Steps []InterceptStep
}

// The outcomes of an Interception.
const (
	InterceptProceed = "proceed"
	InterceptRewrite = "rewrite"
	InterceptRespond = "respond"
	InterceptDeny    = "deny"
)

// InterceptStep is one interceptor's run on one command: what an intercept
// audit event records.
type InterceptStep struct {
	Phase       string // PhaseBefore or PhaseAfter
	Command     string // the command line it was about
	Argv        []string
	Interceptor string
	// Answer is the action ("proceed", "rewrite", "respond", "reject",
	// "keep", "replace", "reject_disclosure") or the failure ("fuel",
	// "timeout", "error", "malformed", "state", "input", "pin").
	Answer string
	// Outcome is what the step did: before "proceed", "rewrite", "respond",
	// "deny"; after "keep", "replace", "withhold".
	Outcome string
	// Reason says why: the reject reason, the rewritten command, the
	// failure.
	Reason string
	// Failed is set when Answer is a failure; Reason then says why.
	Failed bool
	// Run is the extension run, for the record.
	Run telemetry.ExtensionRun
}
