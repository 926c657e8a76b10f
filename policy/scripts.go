package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/state"
)

// ScriptDecl is one [[script]]: a Starlark extension of one kind.
type ScriptDecl struct {
	ID     string `toml:"id"`
	Kind   string `toml:"kind"`
	Src    string `toml:"src"`    // relative to the manifest's folder
	Source string `toml:"source"` // inline, instead of src
	// Executable is a program speaking shell-hook-json-v1, instead of
	// Starlark; SHA256 pins it.
	Executable string            `toml:"executable"`
	SHA256     string            `toml:"sha256"`
	Function   string            `toml:"function"`
	Lifecycle  string            `toml:"lifecycle"`
	Failure    runtime.OnFailure `toml:"failure"`
	Fuel       int64             `toml:"fuel"`
	Timeout    string            `toml:"timeout"` // a Go duration, e.g. "500ms"
	MaxOutput  int64             `toml:"max_output"`

	timeout time.Duration
	pack    string // the pack the script comes from: Src is relative to it
}

// AnalyzerDecl is one [[analyzer]]: an effect analyzer, run in order.
type AnalyzerDecl struct {
	Script string `toml:"script"`
	// Replace lets the analyzer replace the built-in effects instead of
	// only adding to them: authority the manifest grants explicitly.
	Replace bool `toml:"replace"`
}

// AuditConfig is the manifest's [audit] table.
type AuditConfig struct {
	Filter string `toml:"filter"` // the audit filter script every event goes through
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(strings.ToLower(s)) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// validID reports whether s can name a script or function: it becomes a
// state file's name, so it is 1 to 64 of [A-Za-z0-9_.-], not starting with
// '.' or '-'.
func validID(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

const (
	maxFuel      = 100_000_000
	maxTimeout   = 30 * time.Second
	maxMaxOutput = 1 << 20
)

// validateScripts checks the script declarations and every reference to
// them, without reading any file.
func (m *Manifest) validateScripts() error {
	byID := map[string]*ScriptDecl{}
	for i, s := range m.Scripts {
		fail := func(key, format string, args ...any) error {
			return &ManifestError{Path: m.Path, Line: m.tableLine("script", i), Key: fmt.Sprintf("script[%d].%s", i+1, key), Msg: fmt.Sprintf(format, args...)}
		}
		if !validID(s.ID) {
			return fail("id", "%q: a script id is 1 to 64 letters, digits, '_', '.' or '-'", s.ID)
		}
		if byID[s.ID] != nil {
			return fail("id", "duplicate script id %q", s.ID)
		}
		byID[s.ID] = s
		kind := builtins.Kind(s.Kind)
		if !kind.Valid() {
			return fail("kind", "script %q: kind %q: want one of %s", s.ID, s.Kind, kindList())
		}
		given := 0
		for _, v := range []string{s.Src, s.Source, s.Executable} {
			if v != "" {
				given++
			}
		}
		switch {
		case given == 0:
			return fail("src", "script %q needs src (a file), source (inline) or executable (a pinned program)", s.ID)
		case given > 1:
			return fail("src", "script %q has more than one of src, source and executable; give one", s.ID)
		case s.Src != "" && (filepath.IsAbs(s.Src) || strings.HasPrefix(filepath.Clean(s.Src), "..")):
			return fail("src", "script %q: %q must be a path inside the manifest's folder", s.ID, s.Src)
		case s.Executable != "" && (filepath.IsAbs(s.Executable) || strings.HasPrefix(filepath.Clean(s.Executable), "..")):
			return fail("executable", "script %q: %q must be a path inside the manifest's folder", s.ID, s.Executable)
		case s.Executable != "" && !isHex64(s.SHA256):
			return fail("sha256", "script %q: an executable needs its sha256 pin (64 hex digits), got %q", s.ID, s.SHA256)
		case s.Executable == "" && s.SHA256 != "":
			return fail("sha256", "script %q: sha256 pins an executable; this script has none", s.ID)
		case s.Executable != "" && kind == builtins.KindMatcher:
			return fail("executable", "script %q: a matcher is Starlark only (it runs for every rule on every command)", s.ID)
		}
		if s.Function != "" && !validID(s.Function) {
			return fail("function", "script %q: %q is not a function name", s.ID, s.Function)
		}
		if s.Lifecycle == "" {
			s.Lifecycle = string(runtime.DefaultLifecycle(kind))
		}
		if !state.Lifecycle(s.Lifecycle).Valid() {
			return fail("lifecycle", "script %q: lifecycle %q: want invocation, session or runtime", s.ID, s.Lifecycle)
		}
		if kind == builtins.KindMatcher && s.Lifecycle != string(state.Invocation) {
			return fail("lifecycle", "script %q: a matcher is always invocation-scoped (matching must not depend on earlier calls)", s.ID)
		}
		spec, _ := runtime.Spec(kind)
		if s.Failure == "" {
			s.Failure = spec.Failures[0]
		}
		if !slices.Contains(spec.Failures, s.Failure) {
			allowed := make([]string, len(spec.Failures))
			for i, f := range spec.Failures {
				allowed[i] = string(f)
			}
			return fail("failure", "script %q: failure %q: a %s may fail with %s", s.ID, s.Failure, kind, strings.Join(allowed, " or "))
		}
		if s.Fuel < 0 || s.Fuel > maxFuel {
			return fail("fuel", "script %q: fuel %d: want 1 to %d steps", s.ID, s.Fuel, maxFuel)
		}
		if s.Timeout != "" {
			d, err := time.ParseDuration(s.Timeout)
			if err != nil || d < time.Millisecond || d > maxTimeout {
				return fail("timeout", "script %q: timeout %q: want a duration from 1ms to %s, e.g. \"500ms\"", s.ID, s.Timeout, maxTimeout)
			}
			s.timeout = d
		}
		if s.MaxOutput < 0 || s.MaxOutput > maxMaxOutput {
			return fail("max_output", "script %q: max_output %d: want 0 to %d bytes", s.ID, s.MaxOutput, maxMaxOutput)
		}
	}
	// wrongKind says what is wrong with a reference to a script of kind,
	// or "" when nothing is; its callers look up the line only then.
	wrongKind := func(id string, kind builtins.Kind) string {
		s := byID[id]
		if s == nil {
			return fmt.Sprintf("no [[script]] has id %q", id)
		}
		if builtins.Kind(s.Kind) != kind {
			return fmt.Sprintf("script %q is a %s, not a %s", id, s.Kind, kind)
		}
		return ""
	}
	for i, r := range m.Rules {
		for _, id := range r.Match.scriptRefs(nil) {
			if msg := wrongKind(id, builtins.KindMatcher); msg != "" {
				return &ManifestError{Path: m.Path, Line: m.ruleKeyLine(i, "match"), Key: fmt.Sprintf("rule[%d].match.script", i+1), Msg: msg}
			}
		}
	}
	seen := map[string]bool{}
	for i, a := range m.Analyzers {
		key := fmt.Sprintf("analyzer[%d].script", i+1)
		msg := wrongKind(a.Script, builtins.KindEffect)
		if msg == "" && seen[a.Script] {
			msg = fmt.Sprintf("analyzer %q is listed twice", a.Script)
		}
		if msg != "" {
			return &ManifestError{Path: m.Path, Line: m.tableLine("analyzer", i), Key: key, Msg: msg}
		}
		seen[a.Script] = true
	}
	if m.Audit.Filter != "" {
		if msg := wrongKind(m.Audit.Filter, builtins.KindAudit); msg != "" {
			return &ManifestError{Path: m.Path, Line: keyLine(m.src, "audit", "filter"), Key: "audit.filter", Msg: msg}
		}
	}
	if err := m.validateInterceptors(); err != nil { // intercept.go
		return err
	}
	return m.validateReviewers()
}

func kindList() string {
	var names []string
	for _, k := range builtins.Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// scriptRefs lists the scripts a matcher names, nested ones included.
func (mt *Matcher) scriptRefs(out []string) []string {
	if mt == nil {
		return out
	}
	if mt.Script != "" {
		out = append(out, mt.Script)
	}
	for _, sub := range mt.All {
		out = sub.scriptRefs(out)
	}
	for _, sub := range mt.Any {
		out = sub.scriptRefs(out)
	}
	return mt.Not.scriptRefs(out)
}

// RuntimeOptions says where compiled programs and script state live.
type RuntimeOptions struct {
	CacheDir string // "" for no compile cache
	// CachePins, when not nil, are the only cached programs used (see
	// runtime.Options.CachePins): those of an authorization.
	CachePins map[string]string
	Store     *state.Store // grants and script state; nil keeps none between calls
}

// compileScripts reads every script's source (src through the manifest's
// folder, never outside it), compiles the set and computes the manifest
// digest from the manifest's text and every source that went in.
func (m *Manifest) compileScripts(opts RuntimeOptions) error {
	dir := filepath.Dir(m.Path)
	decls := make([]runtime.Script, 0, len(m.Scripts))
	for _, s := range m.Scripts {
		if s.Executable != "" {
			continue
		}
		rs := runtime.Script{
			ID: s.ID, Kind: builtins.Kind(s.Kind), Function: s.Function, Lifecycle: state.Lifecycle(s.Lifecycle),
			Limits: runtime.Limits{Fuel: uint64(s.Fuel), Timeout: s.timeout, MaxOutput: int(s.MaxOutput)},
			Pack:   s.pack,
			// A built-in pack's scripts are the binary's, compiled and
			// tested with it: each is compiled when it first runs.
			Lazy: m.packByName(s.pack) != nil && m.packByName(s.pack).Builtin(),
		}
		if s.Src != "" {
			rs.File = filepath.ToSlash(filepath.Clean(s.Src)) // read by Compile, through the folder's root
		} else {
			// A pack's inline script is named by its own id, so that its
			// relative loads resolve at the pack's root.
			rs.File, rs.Source = "inline:"+strings.TrimPrefix(s.ID, s.pack+"/")+".star", []byte(s.Source)
		}
		decls = append(decls, rs)
	}
	rt, err := runtime.Compile(decls, runtime.Options{Dir: dir, CacheDir: opts.CacheDir, CachePins: opts.CachePins, Store: opts.Store, Packs: m.runtimePacks()})
	if err != nil {
		me := &ManifestError{Path: m.Path, Msg: err.Error()}
		if ce, ok := err.(*runtime.CompileError); ok {
			for i, s := range m.Scripts {
				if s.ID == ce.Script {
					me.Line = m.tableLine("script", i)
					if ce.Src {
						me.Key = fmt.Sprintf("script[%d].src", i+1)
					}
				}
			}
		}
		return me
	}
	m.compileExecutables()
	if !m.snap.used { // a snapshot holds its text's digest: it has no scripts
		m.Digest = m.digest(rt.Digests())
	}
	rt.SetManifestDigest(m.Digest)
	m.runtime = rt
	return nil
}

// digest is the manifest digest: its text, every script and module of
// its own that runs, and each vendored pack's tree, which covers every file
// of the pack. A built-in pack counts by its name only (in the text): it
// changes with the binary, like the rest of the code, and an upgrade must
// not make every authorized configuration look changed.
func (m *Manifest) digest(sources []runtime.Digest) string {
	h := sha256.New()
	// The text is written as it is, not through fmt, which would copy it.
	fmt.Fprintf(h, "agent-shell manifest 1\n%d\n", len(m.src))
	io.WriteString(h, m.src)
	io.WriteString(h, "\n")
	for _, d := range sources {
		if m.fromPack(d.Name) {
			continue
		}
		fmt.Fprintf(h, "%s %s\n", d.SHA256, d.Name)
	}
	for _, p := range m.packs {
		if !p.Builtin() {
			fmt.Fprintf(h, "%s pack %s\n", p.Tree, p.Decl.Name)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fromPack reports whether a runtime digest name ("script ID" or "module
// NAME") belongs to a pack.
func (m *Manifest) fromPack(name string) bool {
	for _, p := range m.packs {
		if strings.HasPrefix(name, "script "+p.Decl.Name+"/") || strings.HasPrefix(name, "module @"+p.Decl.Name+"//") {
			return true
		}
	}
	return false
}

// Runtime is the compiled scripts of the manifest, nil before the engine
// compiled them.
func (m *Manifest) Runtime() *runtime.Runtime { return m.runtime }

// script returns the declaration of a script id.
func (m *Manifest) script(id string) *ScriptDecl {
	for _, s := range m.Scripts {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// tableLine is the line of the i-th (0-based) [[name]] header, or 0. It is
// for errors: the headers are found in one pass over the text when the
// first error needs one, so that a manifest that validates (a built-in
// pack's, on every hook call) is never scanned for them.
func (m *Manifest) tableLine(name string, i int) int {
	if m.headerLines == nil {
		m.headerLines = map[string][]int{}
		ln := 0
		for rest := m.src; rest != ""; ln++ {
			line, after, _ := strings.Cut(rest, "\n")
			rest = after
			// Most lines are not headers: spare them tableHeader's copy.
			if t := strings.TrimSpace(line); strings.HasPrefix(t, "[[") {
				if h := tableHeader(t); strings.HasSuffix(h, "]]") {
					name := h[2 : len(h)-2]
					m.headerLines[name] = append(m.headerLines[name], ln+1)
				}
			}
		}
	}
	if lines := m.headerLines[name]; i < len(lines) {
		return lines[i]
	}
	return 0
}

// tableHeader is a table header line without its spaces and trailing
// comment ("[[ script ]] # x" is "[[script]]"), or "" for other lines.
func tableHeader(line string) string {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "[") {
		return ""
	}
	if i := strings.LastIndexByte(t, ']'); i >= 0 {
		t = t[:i+1]
	}
	return strings.Join(strings.Fields(t), "")
}
