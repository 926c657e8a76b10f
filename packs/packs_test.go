package packs

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy"
)

// A name that is not a pack's never reaches the file system: it would be
// a folder under packs/, and ../ would be outside it.
func TestCommandsRefuseBadNames(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(root, "victim")
	os.MkdirAll(victim, 0o755)
	p := &Project{Root: filepath.Join(root, "repo"), Getenv: func(string) string { return "" }, Out: io.Discard}
	for _, name := range []string{"../victim", "../../victim", "a/b", "", "Team"} {
		if err := p.Remove(name); err == nil || !strings.Contains(err.Error(), "cannot name a pack") {
			t.Errorf("remove %q: %v", name, err)
		}
		if err := p.Update(t.Context(), name, "", false); err == nil || !strings.Contains(err.Error(), "cannot name a pack") {
			t.Errorf("update %q: %v", name, err)
		}
		if _, err := p.ShowFiles(name); err == nil || !strings.Contains(err.Error(), "cannot name a pack") {
			t.Errorf("show %q: %v", name, err)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the folder outside was touched: %v", err)
	}
}

// A [[pack]] table's sub-tables ([pack.options]) belong to it: removing
// the pack removes them, and they do not move to the pack before.
func TestPackTableKeepsItsSubtables(t *testing.T) {
	text := "version = 1\n\n[[pack]]\nname = \"team\"\nsource = \"x\"\n\n[[pack]]\nname = \"team2\"\nsource = \"y\"\n\n[pack.options]\nlevel = \"strict\"\n\n[[rule]]\nid = \"r\"\n"
	start, end, ok := packTable(text, "team2")
	if !ok {
		t.Fatal("no table")
	}
	lines := strings.SplitAfter(text, "\n")
	got := strings.Join(lines[start:end], "")
	if !strings.Contains(got, "[pack.options]") || strings.Contains(got, "[[rule]]") {
		t.Errorf("team2's table is %q", got)
	}
	start, end, _ = packTable(text, "team")
	if strings.Contains(strings.Join(lines[start:end], ""), "options") {
		t.Error("team's table took team2's options")
	}
}

// A pack's executable extensions are vendored executable.
func TestStageMakesExecutablesExecutable(t *testing.T) {
	dir := t.TempDir()
	staged, err := stage(dir, "ops", policy.PackFiles{"pack.toml": []byte("x"), "hooks/rev.sh": []byte("#!/bin/sh\n")}, []string{"hooks/rev.sh"})
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]os.FileMode{"pack.toml": 0o644, "hooks/rev.sh": 0o755} {
		fi, err := os.Stat(filepath.Join(staged, f))
		if err != nil || fi.Mode().Perm()&0o111 != want&0o111 {
			t.Errorf("%s: %v, %v; want %v", f, fi.Mode(), err, want)
		}
	}
}

// A pack with reviewers is added only with --trust reviewers, which the
// [[pack]] table then records.
func TestAddNeedsTrustForReviewers(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "pack.toml"), []byte(`name = "ops"
version = "1"

[[script]]
id = "ok"
kind = "shell_reviewer"
source = """
def on_event(ctx, state):
    return Review.defer()
"""

[[reviewer]]
script = "ok"
`), 0o644)
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	p := &Project{Root: root, Getenv: func(string) string { return "" }, Out: io.Discard}
	if err := p.Add(t.Context(), src, "", root, nil); err == nil || !strings.Contains(err.Error(), "--trust reviewers") {
		t.Fatalf("add without trust: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, policy.ManifestSubpath)); err == nil {
		t.Error("a refused add wrote the manifest")
	}
	if err := p.Add(t.Context(), src, "", root, []string{"reviewers"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, policy.ManifestSubpath))
	if !strings.Contains(string(data), `trust = ["reviewers"]`) {
		t.Errorf("manifest:\n%s", data)
	}
	if e := policy.Load(root, func(string) string { return "" }); e.LoadErr != nil {
		t.Error(e.LoadErr)
	}
}
