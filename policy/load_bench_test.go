package policy

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkLoad(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, ".github", "hooks", "agent-shell")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, f := range []string{"policy.json", "agent-shell.toml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "bench", f))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	getenv := func(string) string { return "" }
	b.ReportAllocs()
	for b.Loop() {
		if e := Load(root, getenv); e.LoadErr != nil {
			b.Fatal(e.LoadErr)
		}
	}
}
