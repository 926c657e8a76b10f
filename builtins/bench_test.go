package builtins

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

func BenchmarkSurface(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Surface(KindReviewer)
	}
}

func BenchmarkContextValue(b *testing.B) {
	c := testContext()
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Value()
	}
}

func BenchmarkStateRoundTrip(b *testing.B) {
	state := map[string]any{"asked": int64(3), "seen": []any{"git", "curl", "npm"}, "last": map[string]any{"argv": []any{"curl", "-sSL", "https://example.com"}}}
	b.ReportAllocs()
	for b.Loop() {
		v, err := ToStarlark(state)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := FromStarlark(v); err != nil {
			b.Fatal(err)
		}
	}
}

func benchCall(b *testing.B, fn string, args ...starlark.Value) {
	mod := Library()
	name, member, _ := strings.Cut(fn, ".")
	f, err := mod[name].(starlark.HasAttrs).Attr(member)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		thread := &starlark.Thread{}
		if _, err := starlark.Call(thread, f, args, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReSearch(b *testing.B) {
	benchCall(b, "re.search", starlark.String(`(?i)token=(\S+)`), starlark.String(strings.Repeat("some output line\n", 256)+"token=abc"))
}

func BenchmarkReSub(b *testing.B) {
	benchCall(b, "re.sub", starlark.String(`\s+`), starlark.String(" "), starlark.String(strings.Repeat("a  b\n", 1000)))
}

func BenchmarkShellSplit(b *testing.B) {
	benchCall(b, "shell.split", starlark.String(`git commit -m "fix: handle 'quoted' args" --author='A B <a@b>'`))
}

func BenchmarkPathMatch(b *testing.B) {
	benchCall(b, "path.match", starlark.String("**/*.{go,star}"), starlark.String("cmd/agent-shell/internal/x/main.go"))
}
