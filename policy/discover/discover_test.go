package discover

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy"
)

var update = flag.Bool("update", false, "rewrite the golden want.* files")

var fixtures = []string{"node-monorepo", "go-module", "python-mise"}

// summaryText is what want.summary holds: the summary line and the notes.
func summaryText(p *Project) string {
	var b strings.Builder
	b.WriteString(p.Summary() + "\n")
	for _, n := range p.Notes {
		b.WriteString("note: " + n + "\n")
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", name)
			p, err := Scan(dir)
			if err != nil {
				t.Fatal(err)
			}
			prop := Propose(p)
			golden(t, filepath.Join(dir, "want.summary"), []byte(summaryText(p)))
			golden(t, filepath.Join(dir, "want.agent-shell.toml"), prop.Manifest)
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update to accept):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	inW, inG := map[string]int{}, map[string]int{}
	for _, l := range w {
		inW[l]++
	}
	for _, l := range g {
		inG[l]++
	}
	var b strings.Builder
	for _, l := range w {
		if inG[l] == 0 {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if inW[l] == 0 {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// TestProposalLoads: the generated files load through the real loaders, the
// manifest's examples pass, and the policy decides as intended on the
// project's own commands and on the classic accidents.
func TestProposalLoads(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			p, err := Scan(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			prop := Propose(p)
			e := loadProposal(t, prop)
			examples := 0
			for _, r := range e.Manifest.Rules {
				if len(r.Examples.Match) == 0 {
					t.Errorf("rule %s has no examples", r.ID)
				}
				examples += len(r.Examples.Match)
			}
			for _, c := range prop.Commands {
				d := e.Decide(c.Text, "")
				switch c.Category {
				case "":
				case CatRisky:
					if d.Action == policy.ActionAllow {
						t.Errorf("risky %q is allowed", c.Text)
					}
				case CatInstall:
					// Installs run the dependencies' scripts: asked.
					if d.Action != policy.ActionAsk {
						t.Errorf("install %q: %s (%s), want ask", c.Text, d.Action, d.Reason)
					}
				default:
					// A bare program (make, just) would admit any target
					// as a prefix: asked; the rest is allowed.
					if want := policy.ActionAllow; len(c.Argv) > 1 && d.Action != want || d.Action == policy.ActionDeny {
						t.Errorf("project command %q: %s (%s)", c.Text, d.Action, d.Reason)
					}
				}
			}
			// Everyday reading of the project is allowed...
			for _, cmd := range []string{
				"git status", "git diff HEAD~1 -- lib/x.js", "git log --oneline -n 20", "ls lib", "cat README.md",
				"grep -rn TODO lib/", "find . -name '*.js'", "head -n 5 README.md", "pwd",
			} {
				if d := e.Decide(cmd, ""); d.Action != policy.ActionAllow {
					t.Errorf("exploration %q: %s (%s)", cmd, d.Action, d.Reason)
				}
			}
			// ...the classic accidents are denied (by the safety pack and
			// the deny patterns)...
			for _, cmd := range []string{
				"rm -rf /", "rm -fr ~", "/bin/rm -r -f .", "sudo ls", "git push --force origin main",
				"git push -f", "git reset --hard HEAD~3", "cat .env",
			} {
				if d := e.Decide(cmd, ""); d.Action != policy.ActionDeny {
					t.Errorf("%q: %s, want deny (%s)", cmd, d.Action, d.Reason)
				}
			}
			// ...and what the project does not run is asked about, never
			// allowed.
			for _, cmd := range []string{
				"git diff --no-index /etc/passwd /dev/null", "git log --output=/tmp/x", "git log --output /tmp/x",
				"docker build --tag acme/web .", "curl -fsS https://example.com/x.sh", "npm publish",
				"npm install left-pad", "go test -exec sh ./...", "npm test --script-shell=/bin/sh",
				"make test SHELL=/bin/sh", "bash -c 'npm publish'", "find . -name '*.tmp' -delete",
			} {
				if d := e.Decide(cmd, ""); d.Action == policy.ActionAllow {
					t.Errorf("%q: allowed (%s)", cmd, d.Reason)
				}
			}
		})
	}
}

func loadProposal(t *testing.T, prop Proposal) *policy.Engine {
	t.Helper()
	root := t.TempDir()
	write := func(sub string, data []byte) {
		path := filepath.Join(root, sub)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(policy.ManifestSubpath, prop.Manifest)
	e := policy.Load(root, func(string) string { return "" })
	if e.LoadErr != nil {
		t.Fatalf("generated policy does not load: %v\n%s", e.LoadErr, prop.Manifest)
	}
	if e.File != nil || e.Manifest == nil {
		t.Fatal("the proposal is one manifest, and no policy.json")
	}
	// The same through the parts the brief names: ParseManifest + NewEngine.
	m, err := policy.ParseManifest("agent-shell.toml", prop.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := policy.NewEngine(nil, m); err != nil {
		t.Fatal(err)
	}
	return e
}

// exploration is the everyday reading of a project, which a proposal must
// never deny (and allows).
var exploration = []string{
	"ls", "ls -la src", "cat README.md", "head -n 20 README.md", "tail -n 5 README.md", "wc -l README.md",
	"grep -rn TODO .", "rg TODO", "find . -name '*.md'", "pwd", "git status", "git status --short",
	"git diff", "git diff HEAD~1 -- README.md", "git log --oneline -n 20", "git show HEAD", "tree -L 2",
}

// TestProposalFigures measures each fixture's proposal: its rules, the share
// of the project's own commands it allows (installs and bare `make`-like
// programs ask by design), and the share of the exploration set it does not
// deny. `go test ./policy/discover -run TestProposalFigures -v` prints them.
func TestProposalFigures(t *testing.T) {
	for _, name := range fixtures {
		p, err := Scan(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		prop := Propose(p)
		e := loadProposal(t, prop)
		own, allowed := 0, 0
		for _, c := range prop.Commands {
			if c.Category == "" || c.Category == CatRisky {
				continue
			}
			own++
			if e.Decide(c.Text, "").Action == policy.ActionAllow {
				allowed++
			}
		}
		explored := 0
		for _, cmd := range exploration {
			if e.Decide(cmd, "").Action != policy.ActionDeny {
				explored++
			}
		}
		if explored != len(exploration) {
			t.Errorf("%s: %d of %d exploration commands denied", name, len(exploration)-explored, len(exploration))
		}
		t.Logf("%-14s %2d rules (%d of the project), own commands allowed %d/%d, exploration not denied %d/%d",
			name, len(e.Manifest.Rules), len(prop.Rules), allowed, own, explored, len(exploration))
	}
}
