package discover

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// seedFiles adds every fixture file named like one of names as a seed.
func seedFiles(f *testing.F, names ...string) {
	matches, _ := filepath.Glob("testdata/*/*")
	more, _ := filepath.Glob("testdata/*/.github/workflows/*")
	for _, m := range append(matches, more...) {
		for _, n := range names {
			if strings.HasSuffix(m, n) {
				if data, err := os.ReadFile(m); err == nil {
					f.Add(data)
				}
			}
		}
	}
}

// FuzzWorkflowCommands: any bytes give commands, notes or an error, never a
// panic, and every command has a program.
func FuzzWorkflowCommands(f *testing.F) {
	seedFiles(f, ".yml", ".yaml")
	f.Add([]byte("jobs:\n  a:\n    steps:\n      - run: |\n          a && b ${{ x }} | c\n"))
	f.Add([]byte("jobs: &a\n  x: *a\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cmds, _, err := WorkflowCommands("fuzz.yml", data)
		if err != nil && len(cmds) > 0 {
			t.Fatalf("commands with an error: %v", err)
		}
		for _, c := range cmds {
			if len(c.Argv) == 0 || c.Path == "" {
				t.Fatalf("empty command %+v", c)
			}
		}
	})
}

// FuzzMakeTargets: targets are plain, distinct names.
func FuzzMakeTargets(f *testing.F) {
	seedFiles(f, "Makefile")
	f.Add([]byte("a b: c\n\tx\ndefine\nendef\n.DEFAULT_GOAL := a\n"))
	f.Add([]byte("x \\\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		targets, _ := MakeTargets(data)
		seen := map[string]bool{}
		for _, tg := range targets {
			if !plainName(tg.Name) || seen[tg.Name] {
				t.Fatalf("bad or repeated target %q", tg.Name)
			}
			seen[tg.Name] = true
		}
	})
}

// FuzzNoxTox: nox sessions and tox environments are usable names, each
// once, and a factor expansion stays bounded.
func FuzzNoxTox(f *testing.F) {
	seedFiles(f, "noxfile.py", "tox.ini")
	f.Add([]byte("[tox]\nenvlist = py3{10,11}-{a,b}, lint\n[testenv:x]\n"))
	f.Add([]byte("@nox.session(\n name='a-b')\n@x\ndef f(s): pass\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sessions, _ := NoxSessions(data)
		envs, defaults := ToxINI(data)
		seen := map[string]bool{}
		for _, list := range [][]Task{sessions, envs} {
			clear(seen)
			for _, s := range list {
				if !taskName(s.Name) || seen[s.Name] {
					t.Fatalf("bad or repeated name %q", s.Name)
				}
				seen[s.Name] = true
			}
		}
		if len(defaults) > taskfile.MaxFactorNames*len(data) {
			t.Fatalf("%d defaults from %d bytes", len(defaults), len(data))
		}
	})
}

// FuzzJustRecipes: recipes have names and sane parameter counts.
func FuzzJustRecipes(f *testing.F) {
	seedFiles(f, "justfile")
	f.Add([]byte("@a x='y:z' +r: b\n\tc\n[private]\n_b:\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, r := range JustRecipes(data) {
			if r.Name == "" || r.Required > r.Params || r.Required < 0 {
				t.Fatalf("bad recipe %+v", r)
			}
		}
	})
}

// FuzzMiseTasks: never a panic.
func FuzzMiseTasks(f *testing.F) {
	seedFiles(f, "mise.toml")
	f.Add([]byte("[tasks]\na = 'b'\n[tasks.c]\nrun = ['d']\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = MiseTasks(data)
	})
}

// FuzzPropose: whatever a workflow holds, the proposal loads and its
// examples pass.
func FuzzPropose(f *testing.F) {
	f.Add("npm test && make build", "test build")
	f.Add("go test -exec x ./... ; pytest -k 'a b'", "x")
	f.Fuzz(func(t *testing.T, run, targets string) {
		wf := "jobs:\n  a:\n    steps:\n      - run: " + quoteYAML(run) + "\n"
		cmds, _, err := WorkflowCommands("f.yml", []byte(wf))
		if err != nil {
			return
		}
		p := &Project{Workflows: cmds, PackageManager: "npm"}
		for _, name := range strings.Fields(targets) {
			if plainName(name) {
				p.MakeTargets = append(p.MakeTargets, Task{Name: name})
			}
		}
		loadProposal(t, Propose(p))
	})
}

// quoteYAML writes s as a double-quoted YAML scalar.
func quoteYAML(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
