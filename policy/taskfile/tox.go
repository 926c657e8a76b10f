package taskfile

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// ToxEnv is an environment of a tox configuration: its name and the
// command lines it runs (commands_pre, commands, commands_post), its own
// or, for a key its section does not set, [testenv]'s.
type ToxEnv struct {
	Name     string
	Commands []string
}

// Tox is a tox configuration: its environments, in the order the file
// names them, the env_list (nil when there is none), and the commands of
// the base section, which an environment the file does not name runs.
type Tox struct {
	Envs     []ToxEnv
	Defaults []string
	Base     []string
	TooMany  bool // it names more than MaxToxEnvs environments: not all are read
}

// Env returns the environment name, or one that runs the base commands.
func (t Tox) Env(name string) ToxEnv {
	for _, e := range t.Envs {
		if e.Name == name {
			return e
		}
	}
	return ToxEnv{Name: name, Commands: t.Base}
}

// toxCommandKeys are the keys whose lines tox runs, in the order it runs
// them.
var toxCommandKeys = []string{"commands_pre", "commands", "commands_post"}

// ReadToxINI reads a tox.ini: the environments of its [testenv:NAME]
// sections and of the env_list (or envlist) of [tox], whose factor braces
// are expanded (py3{11,12}-lint), with their commands. A line's factor
// condition (py311: pytest) and its - or ! prefix are dropped, a
// {[section]key} reference is replaced by that key's lines; {posargs} and
// the other substitutions stay for the caller.
func ReadToxINI(text string) Tox {
	sections := map[string]map[string][]string{} // section, key: its lines
	var order []string
	section, key := "", ""
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(raw)
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		if raw[0] == ' ' || raw[0] == '\t' {
			if key != "" {
				sections[section][key] = append(sections[section][key], t)
			}
			continue
		}
		key = ""
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			section = strings.TrimSpace(t[1 : len(t)-1])
			if sections[section] == nil {
				sections[section] = map[string][]string{}
				order = append(order, section)
			}
			continue
		}
		k, v, ok := strings.Cut(t, "=")
		if !ok || sections[section] == nil && section != "" {
			continue
		}
		if sections[section] == nil {
			sections[section] = map[string][]string{}
		}
		key = strings.TrimSpace(k)
		sections[section][key] = nil
		if v = strings.TrimSpace(v); v != "" {
			sections[section][key] = []string{v}
		}
	}
	commands := func(sec string) []string {
		var out []string
		for _, k := range toxCommandKeys {
			lines, ok := sections[sec][k]
			if !ok {
				lines = sections["testenv"][k]
			}
			out = append(out, toxLines(lines, sections, 0)...)
		}
		return out
	}
	var t Tox
	t.Base = commands("testenv")
	seen := map[string]bool{}
	add := func(name string) {
		t.TooMany = t.TooMany || !seen[name] && len(t.Envs) == MaxToxEnvs
		if name != "" && !seen[name] && len(t.Envs) < MaxToxEnvs {
			seen[name] = true
			t.Envs = append(t.Envs, ToxEnv{Name: name, Commands: commands("testenv:" + name)})
		}
	}
	for _, sec := range order {
		if name, ok := strings.CutPrefix(sec, "testenv:"); ok && !strings.ContainsAny(name, "{},") {
			add(strings.TrimSpace(name))
		}
	}
	list, ok := sections["tox"]["env_list"]
	if !ok {
		list, ok = sections["tox"]["envlist"]
	}
	if ok {
		t.Defaults = []string{}
		for _, l := range list {
			for _, entry := range splitEnvList(l) {
				for _, name := range expandFactors(entry) {
					t.Defaults = append(t.Defaults, name)
					add(name)
				}
			}
		}
	}
	return t
}

// MaxToxEnvs bounds the environments read from one configuration.
const MaxToxEnvs = 1024

// maxToxLines bounds the command lines references expand to.
const maxToxLines = 256

// toxFactorPrefix is a command line's factor condition: py311,lint: or
// !docs: before the command. Compiled on first use: every hook call would
// pay for it at start.
var toxFactorPrefix = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^!?[A-Za-z0-9_.-]+(,!?[A-Za-z0-9_.-]+)*:\s+`)
}}

// toxLines turns a key's lines into command lines: a line ending in \
// joined to the next, factor conditions and - or ! prefixes dropped,
// {[section]key} references expanded (depth bounds a reference cycle).
func toxLines(lines []string, sections map[string]map[string][]string, depth int) []string {
	var out []string
	pending := ""
	for _, l := range lines {
		if c, ok := strings.CutSuffix(l, `\`); ok {
			pending += strings.TrimSpace(c) + " "
			continue
		}
		l, pending = pending+l, ""
		l = toxFactorPrefix.Get().ReplaceAllString(l, "")
		l = strings.TrimSpace(strings.TrimLeft(l, "-!"))
		if ref, ok := toxReference(l); ok {
			if depth < 4 { // deeper is a cycle
				sec, key, _ := strings.Cut(ref, "]")
				out = append(out, toxLines(sections[strings.TrimPrefix(sec, "[")][key], sections, depth+1)...)
			}
		} else if l != "" {
			out = append(out, l)
		}
		if len(out) > maxToxLines {
			return out[:maxToxLines]
		}
	}
	return out
}

// toxReference reports a line that is one {[section]key} reference.
func toxReference(l string) (string, bool) {
	if !strings.HasPrefix(l, "{[") || !strings.HasSuffix(l, "}") || strings.Count(l, "{") != 1 {
		return "", false
	}
	return l[1 : len(l)-1], true
}

// ReadToxTOML reads tox's native TOML configuration: env_list,
// [env_run_base] and [env.NAME] (in pyproject.toml under [tool.tox]), or
// a legacy_tox_ini string there. Its commands are lists of arguments,
// each quoted into a command line. found is false when the file does not
// configure tox.
func ReadToxTOML(data []byte, pyproject bool) (t Tox, found bool, err error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		msg, _, _ := strings.Cut(strings.TrimPrefix(err.Error(), "toml: "), "\n")
		return t, false, fmt.Errorf("not valid TOML (%s)", msg)
	}
	if pyproject {
		tool, _ := doc["tool"].(map[string]any)
		if doc, found = tool["tox"].(map[string]any); !found {
			return t, false, nil
		}
	}
	if legacy, ok := doc["legacy_tox_ini"].(string); ok {
		return ReadToxINI(legacy), true, nil
	}
	base, _ := doc["env_run_base"].(map[string]any)
	commands := func(env map[string]any) []string {
		var out []string
		for _, k := range toxCommandKeys {
			v, ok := env[k]
			if !ok {
				v = base[k]
			}
			list, _ := v.([]any)
			for _, argv := range list {
				words, _ := argv.([]any)
				if line := quoteArgv(Strings(words)); line != "" && len(out) < maxToxLines {
					out = append(out, line)
				}
			}
		}
		return out
	}
	t.Base = commands(nil)
	seen := map[string]bool{}
	tables, _ := doc["env"].(map[string]any)
	add := func(name string) {
		t.TooMany = t.TooMany || !seen[name] && len(t.Envs) == MaxToxEnvs
		if name != "" && !seen[name] && len(t.Envs) < MaxToxEnvs {
			seen[name] = true
			env, _ := tables[name].(map[string]any)
			t.Envs = append(t.Envs, ToxEnv{Name: name, Commands: commands(env)})
		}
	}
	if list, ok := doc["env_list"].([]any); ok {
		t.Defaults = []string{}
		for _, name := range Strings(list) {
			t.Defaults = append(t.Defaults, name)
			add(name)
		}
	}
	names := make([]string, 0, len(tables))
	for name := range tables {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		add(name)
	}
	return t, true, nil
}

// quoteArgv writes argv as a command line, each word that needs it in
// single quotes; a {substitution} stays as it is for the caller.
func quoteArgv(argv []string) string {
	words := make([]string, 0, len(argv))
	for _, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=@%+{}") == "" {
			words = append(words, a)
		} else {
			words = append(words, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
		}
	}
	return strings.Join(words, " ")
}

// splitEnvList splits one line of an env_list at commas outside braces.
func splitEnvList(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth = max(0, depth-1)
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// MaxFactorNames bounds what one env_list entry expands to.
const MaxFactorNames = 64

// expandFactors expands tox's factor braces: py3{11,12}-{a,b} is
// py311-a, py311-b, py312-a, py312-b.
func expandFactors(entry string) []string {
	if entry == "" {
		return nil
	}
	open := strings.IndexByte(entry, '{')
	if open < 0 {
		return []string{entry}
	}
	end := strings.IndexByte(entry[open:], '}')
	if end < 0 {
		return nil
	}
	end += open
	var out []string
	for _, alt := range strings.Split(entry[open+1:end], ",") {
		for _, rest := range expandFactors(entry[:open] + strings.TrimSpace(alt) + entry[end+1:]) {
			if len(out) == MaxFactorNames {
				return out
			}
			out = append(out, rest)
		}
	}
	return out
}
