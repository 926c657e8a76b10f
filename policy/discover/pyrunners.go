package discover

import (
	"regexp"
	"strings"
	"sync"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// Sessions of nox and environments of tox are the project's tasks, as
// Makefile targets are: each is proposed by name (nox -s lint, tox -e
// docs), and one that publishes or releases (nox -s upload-release, tox -e
// release) asks. The runner alone is no prefix: `nox` or `tox` followed by
// anything would admit those too.

// scanNox reads noxfile.py's sessions and nox.options.sessions.
func (s *scanner) scanNox() {
	data, ok := s.read("noxfile.py")
	if !ok {
		return
	}
	s.p.NoxSessions, s.p.NoxDefault = NoxSessions(data)
}

// The noxfile's regexps are compiled on first use: every agent-shell
// process links this package, and only policy --init reads a noxfile.
var (
	noxOptionSessions = lazyRegexp(`(?m)^nox\.options\.sessions\s*=\s*[\[(]([^\])]*)[\])]`)
	pyString          = lazyRegexp(`["']([^"'\n]+)["']`)
	noxNameArg        = lazyRegexp(`\bname\s*=\s*["']([^"'\n]+)["']`)
	pyDef             = lazyRegexp(`^(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
	pythonFactor      = lazyRegexp(`^(py|pypy)?\d+(\.?\d+)*t?$|^py$|^pypy$`)
)

func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// NoxSessions reads a noxfile's sessions, in file order: each function
// decorated with @nox.session (or @session), named by its name= argument or
// the function's name; Params counts the Pythons it is parametrized on
// (nox -s test-3.12). defaults are nox.options.sessions, nil when the file
// does not set them (nox then runs every session). It never fails: a
// session it cannot read is not one.
func NoxSessions(data []byte) (sessions []Task, defaults []string) {
	src := strings.ReplaceAll(string(data), "\r\n", "\n")
	if m := noxOptionSessions().FindStringSubmatch(src); m != nil {
		defaults = []string{}
		for _, q := range pyString().FindAllStringSubmatch(m[1], -1) {
			defaults = append(defaults, q[1])
		}
	}
	lines := strings.Split(src, "\n")
	seen := map[string]bool{}
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "@nox.session") && !strings.HasPrefix(t, "@session") {
			continue
		}
		// The decorator, up to its closing parenthesis.
		deco := t
		for depth := strings.Count(t, "(") - strings.Count(t, ")"); depth > 0 && i+1 < len(lines); {
			i++
			deco += " " + strings.TrimSpace(lines[i])
			depth += strings.Count(lines[i], "(") - strings.Count(lines[i], ")")
		}
		// The function, past any other decorators.
		name := ""
		for i+1 < len(lines) {
			next := strings.TrimSpace(lines[i+1])
			if m := pyDef().FindStringSubmatch(next); m != nil {
				name = m[1]
				i++
				break
			}
			if !strings.HasPrefix(next, "@") && !strings.HasPrefix(next, "#") && next != "" {
				break
			}
			i++
		}
		if name == "" {
			continue
		}
		if m := noxNameArg().FindStringSubmatch(deco); m != nil {
			name = m[1]
		}
		if seen[name] || !taskName(name) {
			continue
		}
		seen[name] = true
		session := Task{Name: name}
		if strings.Contains(deco, "python=") || strings.Contains(deco, "python =") {
			session.Params = 1
		}
		sessions = append(sessions, session)
	}
	return sessions, defaults
}

// scanTox reads tox's environments from tox.ini, tox.toml or pyproject.toml
// ([tool.tox], native or legacy_tox_ini), the first that configures tox.
func (s *scanner) scanTox() {
	if data, ok := s.read("tox.ini"); ok {
		s.p.ToxEnvs, s.p.ToxDefault = ToxINI(data)
		s.p.Tox, s.p.ToxFile = true, "tox.ini"
		return
	}
	for _, f := range []string{"tox.toml", "pyproject.toml"} {
		data, ok := s.read(f)
		if !ok {
			continue
		}
		envs, defaults, found, err := ToxTOML(data, f == "pyproject.toml")
		if err != nil {
			s.notef("%s: %v; its tox environments are not read", f, err)
			continue
		}
		if found {
			s.p.ToxEnvs, s.p.ToxDefault, s.p.Tox, s.p.ToxFile = envs, defaults, true, f
			return
		}
	}
}

// ToxINI reads a tox.ini's environments (taskfile.ReadToxINI): those
// whose names can be proposed, and the env_list, nil when there is none.
func ToxINI(data []byte) (envs []Task, defaults []string) {
	return toxTasks(taskfile.ReadToxINI(string(data)))
}

// ToxTOML reads tox's native TOML configuration (taskfile.ReadToxTOML).
// found is false when the file does not configure tox.
func ToxTOML(data []byte, pyproject bool) (envs []Task, defaults []string, found bool, err error) {
	t, found, err := taskfile.ReadToxTOML(data, pyproject)
	envs, defaults = toxTasks(t)
	return envs, defaults, found, err
}

// toxTasks are t's environments whose names can be proposed, and its
// env_list.
func toxTasks(t taskfile.Tox) (envs []Task, defaults []string) {
	for _, e := range t.Envs {
		if taskName(e.Name) {
			envs = append(envs, Task{Name: e.Name})
		}
	}
	return envs, t.Defaults
}

// classifyNox: nox [-s|-e|--session(s) NAME...] [-- args]. The sessions
// must be the noxfile's; a keyword or tag selection, or another noxfile, is
// not proposed.
func (p *Project) classifyNox(args []string) (Category, string) {
	if opt := hasOption(args, "f", "noxfile", "k", "keywords", "t", "tags"); opt != "" {
		return "", opt + " chooses sessions or a noxfile the scan did not read"
	}
	var names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if a == "-s" || a == "-e" || a == "--session" || a == "--sessions" {
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				names = append(names, args[i])
			}
			continue
		}
		if v, ok := strings.CutPrefix(a, "--sessions="); ok {
			names = append(names, v)
		} else if v, ok := strings.CutPrefix(a, "--session="); ok {
			names = append(names, v)
		}
	}
	if len(names) == 0 {
		names = p.NoxDefault
		if names == nil {
			for _, t := range p.NoxSessions {
				names = append(names, t.Name)
			}
		}
		if len(names) == 0 {
			return "", "no nox session found in noxfile.py"
		}
	}
	for i, n := range names {
		names[i] = noxBase(n, p.NoxSessions)
	}
	return p.taskList(names, p.NoxSessions, "nox session")
}

// noxBase is the session a name runs: test-3.12 runs test on Python 3.12.
func noxBase(name string, sessions []Task) string {
	for _, t := range sessions {
		if rest, ok := strings.CutPrefix(name, t.Name+"-"); ok && t.Params > 0 && pythonFactor().MatchString(rest) {
			return t.Name
		}
	}
	return name
}

// classifyTox: tox [run|r|p|run-parallel] [-e|--env ENV[,ENV...]] [-- args].
// The environments must be the configuration's (a name made of known
// factors, py312-xdist, counts); another configuration, an override, or
// a subcommand that runs a command of its own (tox exec) is not proposed.
func (p *Project) classifyTox(args []string) (Category, string) {
	if opt := hasOption(args, "c", "conf", "x", "override", "root", "workdir"); opt != "" {
		return "", opt + " runs another configuration or overrides it"
	}
	pos, _, _ := splitArgs(args, map[string]bool{"-e": true, "--env": true, "-m": true, "-f": true, "-p": true, "--parallel": true})
	if len(pos) > 0 {
		switch pos[0] {
		case "run", "r", "p", "run-parallel":
		default:
			return "", "tox " + pos[0] + " is not a run of the project's environments"
		}
	}
	if hasOption(args, "m", "f", "labels", "factors") != "" {
		return "", "selects environments by label or factor"
	}
	var names []string
	if v := optionValue(args, "-e", "--env"); v != "" {
		names = strings.Split(v, ",")
	} else {
		names = p.ToxDefault
		if len(names) == 0 {
			return "", "no tox env_list to run"
		}
	}
	factors := map[string]bool{}
	for _, t := range p.ToxEnvs {
		for _, f := range strings.Split(t.Name, "-") {
			factors[f] = true
		}
	}
	cat := Category("")
	for _, n := range names {
		if _, ok := findTask(p.ToxEnvs, n); !ok {
			for _, f := range strings.Split(n, "-") {
				if !factors[f] && !pythonFactor().MatchString(f) {
					return "", "no tox environment " + n
				}
			}
		}
		c := nameCategory(n)
		if c == CatRisky {
			return CatRisky, ""
		}
		if cat == "" || cat == CatTask {
			cat = c
		}
	}
	if cat == CatTask && allPythonFactors(names) {
		cat = CatTest // py312: the test suite on Python 3.12
	}
	return cat, ""
}

func allPythonFactors(names []string) bool {
	for _, n := range names {
		if !pythonFactor().MatchString(strings.Split(n, "-")[0]) {
			return false
		}
	}
	return true
}
