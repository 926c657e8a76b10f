package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/bmatcuk/doublestar/v4"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
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

func (a *Action) UnmarshalText(b []byte) error {
	switch v := Action(b); v {
	case ActionAllow, ActionAsk, ActionDeny:
		*a = v
		return nil
	}
	return fmt.Errorf("action %q: want allow, ask or deny", b)
}

// Manifest is agent-shell.toml: the project's rules.
type Manifest struct {
	Path    string
	Version int          `toml:"version"`
	Policy  PolicyConfig `toml:"policy"`
	Rules   []*Rule      `toml:"rule"`

	src       string
	ruleLines []int // the line of each rule's [[rule]] header, for errors
}

// PolicyConfig is the manifest's [policy] table.
type PolicyConfig struct {
	Default  Action `toml:"default"`   // when no rule matches; allow unless set
	Unknown  Action `toml:"unknown"`   // for commands that cannot be known; ask unless set
	SoleGate bool   `toml:"sole_gate"` // render allow as an explicit allow
}

// Rule is one [[rule]].
type Rule struct {
	ID       string   `toml:"id"`
	Action   Action   `toml:"action"`
	Reason   string   `toml:"reason"`
	Match    *Matcher `toml:"match"`
	Examples Examples `toml:"examples"`
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
	ArgvPrefix       []string   `toml:"argv_prefix"`
	Argument         stringList `toml:"argument"`
	ArgumentContains stringList `toml:"argument_contains"`
	ProgramRegex     string     `toml:"program_regex"`
	Effect           stringList `toml:"effect"`
	NoUnknownEffects *bool      `toml:"no_unknown_effects"`
	Script           string     `toml:"script"`
	All              []*Matcher `toml:"all"`
	Any              []*Matcher `toml:"any"`
	Not              *Matcher   `toml:"not"`

	programRE   *regexp.Regexp
	canonPrefix []string // ArgvPrefix, canonicalized like a command
}

// stringList accepts a string or a list of strings.
type stringList []string

func (l *stringList) UnmarshalTOML(v any) error {
	switch v := v.(type) {
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
	return fmt.Errorf("want a string or a list of strings, got %T", v)
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

// ParseManifest decodes and validates manifest text; path names it in errors.
func ParseManifest(path string, data []byte) (*Manifest, error) {
	m := &Manifest{}
	md, err := toml.Decode(string(data), m)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ManifestError{Path: path, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
		}
		return nil, decodeError(path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		return nil, &ManifestError{Path: path, Line: locateKey(string(data), k), Key: k.String(), Msg: "unknown key"}
	}
	m.Path, m.src = path, string(data)
	if err := m.validate(string(data)); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Manifest) validate(src string) error {
	fail := func(key []string, line int, format string, args ...any) error {
		if line == 0 {
			line = locateKey(src, key)
		}
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
	ids := map[string]bool{}
	for i, r := range m.Rules {
		line := ruleLine(src, i)
		m.ruleLines = append(m.ruleLines, line)
		key := func(k string) []string { return []string{fmt.Sprintf("rule[%d]", i+1), k} }
		if r.ID == "" {
			return fail(key("id"), line, "every rule needs an id")
		}
		if ids[r.ID] {
			return fail(key("id"), line, "duplicate rule id %q", r.ID)
		}
		ids[r.ID] = true
		if r.Action == "" {
			return fail(key("action"), line, "rule %q needs an action (allow, ask or deny)", r.ID)
		}
		if r.Match == nil {
			return fail(key("match"), line, "rule %q needs a match table", r.ID)
		}
		if err := r.Match.compile(); err != nil {
			return fail(key("match"), line, "rule %q: %v", r.ID, err)
		}
	}
	return nil
}

// compile checks a matcher and prepares its regexps and globs.
func (mt *Matcher) compile() error {
	if mt == nil {
		return errors.New("empty matcher")
	}
	if mt.Script != "" {
		return errors.New("script matchers need the Starlark runtime, which this build does not have yet")
	}
	if len(mt.ArgvPrefix) > 0 {
		mt.canonPrefix = shellcmd.Canonical(mt.ArgvPrefix)
	}
	if mt.ProgramRegex != "" {
		re, err := regexp.Compile(mt.ProgramRegex)
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
	empty := len(mt.Program) == 0 && len(mt.Basename) == 0 && len(mt.ArgvPrefix) == 0 &&
		len(mt.Argument) == 0 && len(mt.ArgumentContains) == 0 && mt.ProgramRegex == "" &&
		len(mt.Effect) == 0 && mt.NoUnknownEffects == nil && len(mt.All) == 0 && len(mt.Any) == 0 && mt.Not == nil
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

// ruleLine is the line of the i-th [[rule]] header (0-based i), or 0.
func ruleLine(src string, i int) int {
	n := -1
	for ln, line := range strings.Split(src, "\n") {
		if strings.TrimSpace(line) == "[[rule]]" {
			n++
			if n == i {
				return ln + 1
			}
		}
	}
	return 0
}

// locateKey finds the line where key (a dotted path, array indexes dropped)
// is written: the first line, under a table header naming the key's
// parents, that assigns the key's last part. The TOML decoder keeps key
// positions private, so this reads the text again; 0 when not found.
func locateKey(src string, key []string) int {
	if len(key) == 0 {
		return 0
	}
	leaf := key[len(key)-1]
	parents := strings.Join(key[:len(key)-1], ".")
	table := ""
	for ln, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			table = strings.Trim(t, "[] ")
			continue
		}
		if parents != "" && !strings.HasPrefix(parents, table) {
			continue
		}
		if i := strings.Index(t, leaf); i >= 0 {
			rest := strings.TrimSpace(t[i+len(leaf):])
			before := t[:i]
			if strings.HasPrefix(rest, "=") && (before == "" || strings.ContainsAny(before[len(before)-1:], " {,.")) {
				return ln + 1
			}
		}
	}
	return 0
}

// ruleKeyLine is the line of key within the i-th rule (0-based), falling
// back to the rule's header line.
func (m *Manifest) ruleKeyLine(i int, key string) int {
	if i >= len(m.ruleLines) || m.ruleLines[i] == 0 {
		return 0
	}
	lines := strings.Split(m.src, "\n")
	for ln := m.ruleLines[i]; ln < len(lines); ln++ {
		t := strings.TrimSpace(lines[ln])
		if strings.HasPrefix(t, "[") {
			break
		}
		if rest, ok := strings.CutPrefix(t, key); ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
			return ln + 1
		}
	}
	return m.ruleLines[i]
}

// decodeError locates a TOML type error, which the decoder reports only as
// text: "toml: line N (last key "K"): message".
func decodeError(path string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	rest, ok := strings.CutPrefix(msg, "line ")
	if !ok {
		return &ManifestError{Path: path, Msg: msg}
	}
	n := 0
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		n = n*10 + int(rest[i]-'0')
		i++
	}
	rest = rest[i:]
	key := ""
	if k, ok := strings.CutPrefix(rest, ` (last key "`); ok {
		if j := strings.Index(k, `"): `); j >= 0 {
			key, rest = k[:j], k[j+len(`"): `):]
		}
	}
	return &ManifestError{Path: path, Line: n, Key: key, Msg: strings.TrimPrefix(rest, ": ")}
}
