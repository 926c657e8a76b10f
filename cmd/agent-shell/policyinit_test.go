package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy"
)

func TestPolicyInit(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":   "module example.com/x\n\ngo 1.23\n",
		"Makefile": "test:\n\tgo test ./...\nrelease:\n\tgoreleaser\n",
		".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: |\n          go vet ./... && go test -race ./...\n" +
			"          docker build --tag x .\n",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func() (string, string) {
		var out, errb bytes.Buffer
		a := newApp(strings.NewReader(""), &out, &errb)
		if err := a.runPolicyInit(root, false, false, refiner{}); err != nil {
			t.Fatalf("runPolicyInit: %v\n%s", err, errb.String())
		}
		return out.String(), errb.String()
	}

	out, _ := run()
	for _, want := range []string{
		"Discovered: 0 npm script(s), 3 workflow command(s), 0 mise task(s), 2 make target(s), 0 just recipe(s), 1 language(s)\n",
		"--- Proposed .github/hooks/agent-shell/agent-shell.toml ---\n",
		"Wrote .github/hooks/agent-shell/agent-shell.toml\n",
		"Verify with: agent-shell policy check\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("first run: no %q in\n%s", want, out)
		}
	}
	// One manifest: the safety pack, the project's rules, default ask; no
	// policy.json, whose patterns would overrule the pack's finer rules.
	if _, err := os.Stat(filepath.Join(root, policy.PolicyFileSubpath)); err == nil {
		t.Error("a policy.json was written")
	}
	manifest, err := os.ReadFile(filepath.Join(root, policy.ManifestSubpath))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), `{ argv_prefix = ["go", "test"] }`) {
		t.Errorf("agent-shell.toml has no go test rule:\n%s", manifest)
	}
	e := policy.Load(root, func(string) string { return "" })
	if e.LoadErr != nil || e.Manifest == nil {
		t.Fatalf("written policy does not load: %v", e.LoadErr)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, ".github/hooks/agent-shell")); len(entries) != 1 {
		t.Errorf("left temporary files behind: %v", entries)
	}

	// A second run writes nothing and says the file is the same.
	out, _ = run()
	if strings.Contains(out, "Wrote ") || strings.Count(out, "(it is the same as the proposal)") != 1 {
		t.Errorf("second run:\n%s", out)
	}

	// An edited file is kept, and the difference is shown.
	edited := strings.Replace(string(manifest), `default = "ask"`, `default = "deny"`, 1)
	if err := os.WriteFile(filepath.Join(root, policy.ManifestSubpath), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ = run()
	for _, want := range []string{
		"Skipping .github/hooks/agent-shell/agent-shell.toml: it already exists, nothing written.\n",
		"--- .github/hooks/agent-shell/agent-shell.toml (existing)\n+++ .github/hooks/agent-shell/agent-shell.toml (proposed)\n",
		"-default = \"deny\"\n+default = \"ask\"\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("edited run: no %q in\n%s", want, out)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(root, policy.ManifestSubpath)); string(got) != edited {
		t.Error("the existing agent-shell.toml was changed")
	}
}

func TestPolicyInitRefusesLinks(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, ".github", "hooks")); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := newApp(strings.NewReader(""), &out, &errb).runPolicyInit(root, false, false, refiner{})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("wrote through the link: %v", entries)
	}
}
