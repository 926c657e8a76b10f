package shellcmd

import (
	"fmt"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// tox runs the commands of its configuration's environments, as npm runs
// package.json's scripts (pkgscripts.go): where the caller gives the
// configuration (Disk.FindUp), the commands of the environments the
// command selects (-e, else env_list, else all), with {posargs} the words
// after --, are walked as commands it may run ([Command.Guessed]).

// toxFiles are the files tox reads its configuration from.
var toxFiles = []string{"tox.ini", "setup.cfg", "tox.toml", "pyproject.toml"}

// runsToxEnvs walks the commands a layer of the command at idx runs with
// tox.
func (w *walker) runsToxEnvs(idx int) {
	if w.st.disk.FindUp == nil {
		return
	}
	c := &w.st.line.Commands[idx]
	for _, layer := range c.Layers {
		if len(layer) > 2 && strings.HasPrefix(layer[0], "python") && layer[1] == "-m" {
			layer = layer[2:] // python -m tox
		}
		if len(layer) == 0 || layer[0] != "tox" {
			continue
		}
		if w.writesAny(toxFiles) {
			c.Unknown = "tox runs the commands of its configuration, which the line writes earlier"
			return
		}
		sel := readToxSelection(layer[1:])
		if sel.why != "" {
			c.Unknown = sel.why
			return
		}
		var srcs []string
		dir := ""
		if sel.exec && len(sel.posargs) > 0 {
			srcs = []string{quoteAll(sel.posargs)} // tox exec -- COMMAND: the command itself
		} else if sel.run {
			t, d, why := w.readTox(c.Dirs, c.DirUnknown)
			if why != "" {
				c.Unknown = why
				return
			}
			if t.TooMany {
				c.Unknown = fmt.Sprintf("its tox configuration names more than %d environments", taskfile.MaxToxEnvs)
				return
			}
			dir = d
			var envs []taskfile.ToxEnv
			switch {
			case sel.all || sel.envs == nil && t.Defaults == nil:
				envs = append(t.Envs, taskfile.ToxEnv{Name: "(base)", Commands: t.Base})
			case sel.envs == nil:
				for _, n := range t.Defaults {
					envs = append(envs, t.Env(n))
				}
			default:
				for _, n := range sel.envs {
					envs = append(envs, t.Env(n))
				}
			}
			seen := map[string]bool{}
			for _, e := range envs {
				for _, line := range e.Commands {
					line = toxPosargs(line, sel.posargs)
					if !seen[line] {
						seen[line] = true
						srcs = append(srcs, line)
					}
				}
			}
		}
		w.mayRunLines(idx, srcs, dir, "its tox environments")
		return
	}
}

// toxSelection is what a tox command line selects.
type toxSelection struct {
	run     bool     // it runs environments' commands (not tox list, config)
	exec    bool     // tox exec: it runs its own command
	all     bool     // every environment (-e ALL, labels, factors, a name known at run time)
	envs    []string // those -e names; nil: the env_list
	posargs []string // the words after --
	why     string   // the configuration comes from the command line: not known
}

// readToxSelection reads tox's arguments.
func readToxSelection(args []string) (s toxSelection) {
	s.run = true
	positional := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			s.posargs = args[i+1:]
			break
		}
		opt, v, eq := strings.Cut(a, "=")
		value := func() string {
			if eq {
				return v
			}
			if strings.HasPrefix(opt, "-e") && len(opt) > 2 && !strings.HasPrefix(opt, "--") {
				return opt[2:]
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case opt == "-e" || opt == "--env" || strings.HasPrefix(opt, "-e") && !strings.HasPrefix(opt, "--"):
			for _, n := range strings.Split(value(), ",") {
				if n == "ALL" || strings.ContainsAny(n, "$`") {
					s.all = true
				} else if n != "" {
					s.envs = append(s.envs, n)
				}
			}
		case opt == "-m" || opt == "--labels" || opt == "-f" || opt == "--factors":
			s.all = true
		case opt == "-c" || opt == "--conf" || opt == "--root" || opt == "--workdir" || opt == "-x" || opt == "--override":
			s.why = "tox takes its configuration from the command line (" + opt + ")"
			return s
		case strings.HasPrefix(a, "-"):
		default:
			if positional++; positional == 1 {
				switch a {
				case "run", "r", "run-parallel", "p", "legacy", "le":
				case "exec", "e":
					s.run, s.exec = false, true
				default: // list, config, depends, devenv, quickstart: no commands
					s.run = false
				}
			}
		}
	}
	return s
}

// readTox reads the tox configuration of the project tox runs in: the
// nearest tox.ini, setup.cfg with [tox:tox], tox.toml or pyproject.toml
// with [tool.tox] up.
func (w *walker) readTox(dirs []string, unknown bool) (t taskfile.Tox, dir, why string) {
	find := w.st.disk.FindUp
	if text, d, why := find(dirs, unknown, "tox.ini"); text != "" || why != "" {
		return taskfile.ReadToxINI(text), d, why
	}
	if text, d, why := find(dirs, unknown, "setup.cfg"); why != "" || strings.Contains(text, "[tox:tox]") {
		// The same sections, with [tox:tox] for [tox].
		return taskfile.ReadToxINI(strings.ReplaceAll(text, "[tox:tox]", "[tox]")), d, why
	}
	for _, name := range toxFiles[2:] {
		text, d, why := find(dirs, unknown, name)
		if why != "" {
			return t, "", why
		}
		if text == "" {
			continue
		}
		t, found, err := taskfile.ReadToxTOML([]byte(text), name == "pyproject.toml")
		if err != nil {
			return t, "", fmt.Sprintf("%s: %v", name, err)
		}
		if found {
			return t, d, ""
		}
	}
	return t, "", ""
}

// toxPosargs replaces {posargs} (and {posargs:DEFAULT}, whose default
// stands when there are none) in line with args.
func toxPosargs(line string, args []string) string {
	var b strings.Builder
	for {
		i := strings.Index(line, "{posargs")
		j := strings.IndexByte(line[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(line)
			return b.String()
		}
		repl := quoteAll(args)
		if def, ok := strings.CutPrefix(line[i+len("{posargs"):i+j], ":"); ok && len(args) == 0 {
			repl = def
		}
		b.WriteString(line[:i] + repl)
		line = line[i+j+1:]
	}
}

// quoteAll is args quoted, each, into one line.
func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}
