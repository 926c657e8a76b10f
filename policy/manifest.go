package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/pelletier/go-toml/v2"

	"github.com/agent-shell/agent-shell/policy/guard"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
	"github.com/agent-shell/agent-shell/runtime"
)

// ManifestSubpath is where the manifest lives under the repository root.
const ManifestSubpath = ".github/hooks/agent-shell/agent-shell.toml"

const maxManifestBytes = 1 << 20

// Action is what a rule or the policy decides for a command.
type Action string

const (
	ActionAllow Action = "allow"
	ActionAsk   Action = "ask"
	ActionDeny  Action = "deny"
)

// severity orders actions: deny beats ask beats allow.
func (a Action) severity() int {
	switch a {
	case ActionDeny:
		return 2
	case ActionAsk:
		return 1
	}
	return 0
}

func (a Action) valid() bool {
	return a == ActionAllow || a == ActionAsk || a == ActionDeny
}

// Manifest is agent-shell.toml: the project's rules.
type Manifest struct {
	Path    string
	Version int          `toml:"version"`
	Policy  PolicyConfig `toml:"policy"`
	// Rules are nil in a manifest read from its snapshot until AllRules
	// decodes them: read them through AllRules.
	Rules []*Rule `toml:"rule"`

	Scripts   []*ScriptDecl   `toml:"script"`
	Analyzers []*AnalyzerDecl `toml:"analyzer"`
	Audit     AuditConfig     `toml:"audit"`
	Guard     guard.Config    `toml:"guard"` // [guard]: see package guard
	Reviewers []*ReviewerDecl `toml:"reviewer"`
	Approvals ApprovalsConfig `toml:"approvals"`
	// Interceptors are the [[interceptor]] entries: see the package doc.
	Interceptors []*InterceptorDecl `toml:"interceptor"`
	// Packs are the [[pack]] entries: see pack.go. Their rules and scripts
	// are added to Rules, Scripts, ... with ids namespaced NAME/id.
	Packs []*PackDecl `toml:"pack"`
	// Enforce is the [enforce] table: see enforce.go.
	Enforce EnforceConfig `toml:"enforce"`

	// Digest is the SHA-256 of the manifest's text and of every script
	// and module it runs, set when the engine compiles the scripts.
	Digest string

	runtime     *runtime.Runtime
	executables map[string]*runtime.Executable // by script id
	// skipExecutables fails every executable extension without running
	// it (LoadReplay without RunExecutables).
	skipExecutables bool
	src             string
	headerLines     map[string][]int // the line of each [[name]] header by name, found on the first error that needs one
	packs           []*Pack          // the packs taken in, in declaration order
	inPack          bool             // the declarations of a pack.toml, being validated
	snap            snapshotState
	lazy            *lazyRules // the rules not decoded yet, of a manifest read from its snapshot (see AllRules)
	indexState
}

// PolicyConfig is the manifest's [policy] table.
type PolicyConfig struct {
	Default  Action `toml:"default"`   // when no rule matches; allow unless set
	Unknown  Action `toml:"unknown"`   // for commands that cannot be known; ask unless set
	SoleGate bool   `toml:"sole_gate"` // render allow as an explicit allow
	// Unauthorized is how to decide while the configuration differs from
	// the one last authorized: last-authorized (the default), deny or warn.
	// It is read from the authorized copy, never from the changed one.
	Unauthorized string `toml:"unauthorized"`
}

// Rule is one [[rule]].
type Rule struct {
	ID       string   `toml:"id"`
	Action   Action   `toml:"action"`
	Reason   string   `toml:"reason"`
	Match    *Matcher `toml:"match"`
	Examples Examples `toml:"examples"`
	// When (pack rules only) keeps the rule only when the pack's options
	// have the values it names: { level = "strict" } or a list of values.
	When map[string]any `toml:"when"`

	pack string // the pack the rule comes from, "" for the project's own
}

// Examples are commands a rule must and must not match, checked at load.
type Examples struct {
	Match    []string `toml:"match"`
	NotMatch []string `toml:"not_match"`
}

// Matcher is a rule's match table. Every key that is set must hold (AND);
// all/any/not combine nested matchers.
type Matcher struct {
	Program          stringList `toml:"program"`
	Basename         stringList `toml:"basename"`
	CommandName      stringList `toml:"command_name"`
	ArgvPrefix       []string   `toml:"argv_prefix"` // a word "*" (anyWord) is any one word
	Argument         stringList `toml:"argument"`
	ArgumentContains stringList `toml:"argument_contains"`
	ProgramRegex     string     `toml:"program_regex"`
	GitSubcommand    stringList `toml:"git_subcommand"`
	Effect           stringList `toml:"effect"`
	NoUnknownEffects *bool      `toml:"no_unknown_effects"`
	Script           string     `toml:"script"`
	All              []*Matcher `toml:"all"`
	Any              []*Matcher `toml:"any"`
	Not              *Matcher   `toml:"not"`

	programRE   *regexp.Regexp // ProgramRegex compiled
	canonPrefix []string       // ArgvPrefix, canonicalized like a command
}

// stringList accepts a string or a list of strings.
type stringList []string

// UnmarshalTOML receives the value's raw TOML text.
func (l *stringList) UnmarshalTOML(raw []byte) error {
	var v struct{ V any }
	if err := toml.Unmarshal(append([]byte("V = "), raw...), &v); err != nil {
		return err
	}
	switch v := v.V.(type) {
	case string:
		*l = stringList{v}
		return nil
	case []any:
		out := make(stringList, 0, len(v))
		for _, it := range v {
			s, ok := it.(string)
			if !ok {
				return fmt.Errorf("want a string or a list of strings, got a list holding %T", it)
			}
			out = append(out, s)
		}
		*l = out
		return nil
	}
	return fmt.Errorf("want a string or a list of strings, got %T", v.V)
}

// ErrNoManifest is returned when there is no manifest file.
var ErrNoManifest = errors.New("no agent-shell.toml")

// ManifestError is a load error located in the manifest.
type ManifestError struct {
	Path string
	Line int // 0 when unknown
	Key  string
	Msg  string
}

func (e *ManifestError) Error() string {
	loc := e.Path
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// LoadManifest reads and validates the manifest under root. A missing file
// gives ErrNoManifest; any other problem is an error the caller must treat
// as "deny everything".
func LoadManifest(root string) (*Manifest, error) {
	path := filepath.Join(root, ManifestSubpath)
	data, err := readConfined(root, path, maxManifestBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoManifest
		}
		return nil, &ManifestError{Path: path, Msg: err.Error()}
	}
	return ParseManifest(path, data)
}

// LoadManifestFile reads and validates the manifest at path, wherever it
// is: `script test` uses the manifest nearest to a test file.
func LoadManifestFile(path string) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return nil, &ManifestError{Path: path, Msg: err.Error()}
	}
	if len(data) > maxManifestBytes {
		return nil, &ManifestError{Path: path, Msg: fmt.Sprintf("longer than %d bytes", maxManifestBytes)}
	}
	return ParseManifest(path, data)
}

// ParseManifest decodes and validates manifest text; path names it in errors.
func ParseManifest(path string, data []byte) (*Manifest, error) {
	m := &Manifest{}
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().EnableUnmarshalerInterface()
	if err := dec.Decode(m); err != nil {
		return nil, decodeError(path, data, err)
	}
	m.Path, m.src = path, string(data)
	if err := m.validate(string(data)); err != nil {
		return nil, err
	}
	if err := m.loadPacks(); err != nil { // pack.go
		return nil, err
	}
	return m, nil
}

// decodeError locates a TOML error: the first unknown key, or where the
// syntax or a type is wrong.
func decodeError(path string, data []byte, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		de := &strict.Errors[0]
		line, _ := de.Position()
		return &ManifestError{Path: path, Line: line, Key: inlineKey(data, line, de.Key()), Msg: "unknown key"}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return &ManifestError{Path: path, Line: line, Key: strings.Join(de.Key(), "."), Msg: strings.TrimPrefix(de.Error(), "toml: ")}
	}
	return &ManifestError{Path: path, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
}

func (m *Manifest) validate(src string) error {
	fail := func(key []string, line int, format string, args ...any) error {
		return &ManifestError{Path: m.Path, Line: line, Key: strings.Join(key, "."), Msg: fmt.Sprintf(format, args...)}
	}
	if m.Version != 1 {
		return fail([]string{"version"}, 0, "must be 1, got %d", m.Version)
	}
	if m.Policy.Default == "" {
		m.Policy.Default = ActionAllow
	}
	if m.Policy.Unknown == "" {
		m.Policy.Unknown = ActionAsk
	}
	for k, a := range map[string]Action{"default": m.Policy.Default, "unknown": m.Policy.Unknown} {
		if !a.valid() {
			return fail([]string{"policy", k}, keyLine(src, "policy", k), "%q: want allow, ask or deny", a)
		}
	}
	if m.Policy.Unauthorized == "" {
		m.Policy.Unauthorized = UnauthorizedLastAuthorized
	}
	if !validUnauthorized(m.Policy.Unauthorized) {
		return fail([]string{"policy", "unauthorized"}, keyLine(src, "policy", "unauthorized"), "%q: want last-authorized, deny or warn", m.Policy.Unauthorized)
	}
	if err := m.Guard.Validate(); err != nil {
		return fail([]string{"guard", "allow_agent_edits"}, keyLine(src, "guard", "allow_agent_edits"), "%v", err)
	}
	if key, err := m.Enforce.validate(); err != nil {
		return fail([]string{"enforce", key}, keyLine(src, "enforce", key), "%v", err)
	}
	ids := map[string]bool{}
	for i, r := range m.Rules {
		line := func() int { return m.tableLine("rule", i) }
		key := func(k string) []string { return []string{fmt.Sprintf("rule[%d]", i+1), k} }
		if r.ID == "" {
			return fail(key("id"), line(), "every rule needs an id")
		}
		if ids[r.ID] {
			return fail(key("id"), line(), "duplicate rule id %q", r.ID)
		}
		ids[r.ID] = true
		if !r.Action.valid() {
			return fail(key("action"), m.ruleKeyLine(i, "action"), "rule %q: action %q: want allow, ask or deny", r.ID, r.Action)
		}
		if r.Match == nil {
			return fail(key("match"), line(), "rule %q needs a match table", r.ID)
		}
		if r.When != nil && !m.inPack {
			return fail(key("when"), m.ruleKeyLine(i, "when"), "rule %q: when chooses a pack's rules by its options; a manifest's own rules have none", r.ID)
		}
		if err := r.Match.compile(); err != nil {
			return fail(key("match"), line(), "rule %q: %v", r.ID, err)
		}
	}
	return m.validateScripts()
}

// compile checks a matcher and prepares its regexps and globs.
func (mt *Matcher) compile() error {
	if mt == nil {
		return errors.New("empty matcher")
	}
	if len(mt.ArgvPrefix) > 0 {
		if mt.ArgvPrefix[0] == anyWord {
			return errors.New(`argv_prefix: the program cannot be "*" (basename, command_name or program_regex choose programs)`)
		}
		mt.canonPrefix = shellcmd.Canonical(mt.ArgvPrefix)
	}
	if mt.ProgramRegex != "" {
		re, err := compileRegexp(mt.ProgramRegex)
		if err != nil {
			return fmt.Errorf("program_regex: %v", err)
		}
		mt.programRE = re
	}
	for _, e := range mt.Effect {
		if err := validEffectPattern(e); err != nil {
			return err
		}
	}
	for _, name := range mt.CommandName {
		if err := validCommandName(name); err != nil {
			return err
		}
	}
	for _, sub := range mt.GitSubcommand {
		if sub == "" || sub != strings.ToLower(sub) {
			return fmt.Errorf("git_subcommand %q: want a subcommand in lower case", sub)
		}
	}
	empty := len(mt.Program) == 0 && len(mt.Basename) == 0 && len(mt.CommandName) == 0 && len(mt.ArgvPrefix) == 0 && len(mt.GitSubcommand) == 0 &&
		len(mt.Argument) == 0 && len(mt.ArgumentContains) == 0 && mt.ProgramRegex == "" &&
		len(mt.Effect) == 0 && mt.NoUnknownEffects == nil && mt.Script == "" && len(mt.All) == 0 && len(mt.Any) == 0 && mt.Not == nil
	if empty {
		return errors.New("empty match table (it would match everything; say so with program_regex = \".*\")")
	}
	for _, sub := range mt.All {
		if err := sub.compile(); err != nil {
			return fmt.Errorf("all: %w", err)
		}
	}
	for _, sub := range mt.Any {
		if err := sub.compile(); err != nil {
			return fmt.Errorf("any: %w", err)
		}
	}
	if mt.Not != nil {
		if err := mt.Not.compile(); err != nil {
			return fmt.Errorf("not: %w", err)
		}
	}
	return nil
}

// validCommandName checks a command_name entry: a program's name in lower
// case, or the start of one followed by a *.
func validCommandName(name string) error {
	stem := strings.TrimSuffix(name, "*")
	switch {
	case stem == "":
		return fmt.Errorf("command_name %q: want a program's name, or the start of one and a * (program_regex = \".*\" matches every program)", name)
	case stem != strings.ToLower(stem):
		return fmt.Errorf("command_name %q: want a name in lower case (it matches any case)", name)
	case strings.ContainsAny(stem, "*/\\"):
		return fmt.Errorf("command_name %q: want a name without a folder, and * only at its end", name)
	}
	return nil
}

// commandName is the name a program runs as on a file system that ignores
// case: the last component of its path, in lower case, without .exe.
func commandName(program string) string {
	name := strings.ToLower(program)
	name = name[strings.LastIndexAny(name, `/\`)+1:]
	return strings.TrimSuffix(name, ".exe")
}

// commandNameIn reports whether a program's command name is one of names
// (an entry ending in * takes every name it starts).
func commandNameIn(names []string, program string) bool {
	name := commandName(program)
	for _, n := range names {
		if stem, prefix := strings.CutSuffix(n, "*"); prefix && strings.HasPrefix(name, stem) || n == name {
			return true
		}
	}
	return false
}

// validEffectPattern checks `kind` or `kind:glob` against the known kinds.
func validEffectPattern(p string) error {
	kind, glob, hasPath := strings.Cut(p, ":")
	switch kind {
	case EffectRead, EffectWrite:
		if hasPath && !doublestar.ValidatePattern(glob) {
			return fmt.Errorf("effect %q: bad path glob", p)
		}
		return nil
	case EffectNetwork, EffectChildProcesses, EffectArbitraryCode, EffectPrivilegeChange, EffectUnknown:
		return nil
	}
	return fmt.Errorf("effect %q: unknown kind %q (want read, write, network, child_processes, arbitrary_code, privilege_change or unknown)", p, kind)
}

// regexps are the program_regex patterns compiled in this process: a
// pack's rules share a few patterns, and a *regexp.Regexp is safe for
// concurrent use.
var regexps sync.Map // pattern -> *regexp.Regexp

func compileRegexp(pattern string) (*regexp.Regexp, error) {
	if re, ok := regexps.Load(pattern); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	regexps.Store(pattern, re)
	return re, nil
}

// inlineKey puts back the inline tables that the decoder leaves out of an
// unknown key's path: `match = { argumnt = "x" }` in a [[rule]] is
// rule.match.argumnt, not rule.argumnt.
func inlineKey(data []byte, line int, key []string) string {
	if len(key) == 0 || line < 1 {
		return strings.Join(key, ".")
	}
	lines := strings.Split(string(data), "\n")
	if line > len(lines) {
		return strings.Join(key, ".")
	}
	text := lines[line-1]
	leaf := key[len(key)-1]
	end := strings.Index(text, leaf)
	if end < 0 {
		return strings.Join(key, ".")
	}
	var tables []string
	for _, part := range strings.Split(text[:end], "{")[:max(0, strings.Count(text[:end], "{"))] {
		f := strings.Fields(strings.TrimRight(strings.TrimSpace(part), "=[ "))
		if len(f) > 0 {
			name := strings.Trim(f[len(f)-1], ",")
			if !contains(key, name) {
				tables = append(tables, name)
			}
		}
	}
	full := append(append(append([]string{}, key[:len(key)-1]...), tables...), leaf)
	return strings.Join(full, ".")
}

// keyLine is the line of key in [table], or 0.
func keyLine(src, table, key string) int {
	in := false
	for ln, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if h := tableHeader(t); h != "" {
			in = h == "["+table+"]"
			continue
		}
		if rest, ok := strings.CutPrefix(t, key); in && ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
			return ln + 1
		}
	}
	return 0
}

// ruleKeyLine is the line of key within the i-th rule (0-based), falling
// back to the rule's header line.
func (m *Manifest) ruleKeyLine(i int, key string) int {
	header := m.tableLine("rule", i)
	if header == 0 {
		return 0
	}
	lines := strings.Split(m.src, "\n")
	for ln := header; ln < len(lines); ln++ {
		t := strings.TrimSpace(lines[ln])
		if strings.HasPrefix(t, "[") {
			break
		}
		if rest, ok := strings.CutPrefix(t, key); ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
			return ln + 1
		}
	}
	return header
}
