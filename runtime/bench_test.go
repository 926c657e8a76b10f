package runtime

import (
	"context"
	"testing"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/state"
)

// The example matcher.
const tfMatcher = `load("@agent-shell//helpers.star", "subcommand")

def on_event(ctx, state):
    if ctx.basename == "terraform" and subcommand(ctx.argv) == "destroy":
        return Match.yes("terraform destroy")
    return Match.no("not terraform destroy")
`

// benchScripts are three realistic scripts of three kinds.
func benchScripts() []Script {
	return []Script{
		{ID: "tf", Kind: builtins.KindMatcher, File: "tf.star", Source: []byte(tfMatcher)},
		{ID: "rm", Kind: builtins.KindReviewer, File: "rm.star", Lifecycle: state.Session, Source: []byte(`load("@agent-shell//helpers.star", "has_flag", "under", "effect_paths")

def on_event(ctx, state):
    if ctx.basename != "rm" or not has_flag(ctx.argv, "-r", "--recursive"):
        return Review.defer()
    outside = [p for p in effect_paths(ctx.effects, "write") if not under(p, ctx.cwd)]
    if outside:
        return Review.deny("rm -r outside the repository: " + ", ".join(outside))
    state["approved"] = state.get("approved", 0) + 1
    return Review.approve_for("exact_session")
`)},
		{ID: "py", Kind: builtins.KindEffect, File: "py.star", Source: []byte(`def on_event(ctx, state):
    if ctx.basename in ("python", "python3") and "-c" in ctx.argv:
        return Effect.arbitrary_code()
    if ctx.basename == "curl":
        return Effect.network()
    return Effect.add([])
`)},
	}
}

func BenchmarkMatcherWarm(b *testing.B) {
	rt := mustCompile(b, benchScripts(), Options{})
	if err := rt.Check(); err != nil {
		b.Fatal(err)
	}
	input := (&builtins.Context{Phase: "shell_matcher", RequestID: "r", SessionID: "s", Agent: "claude", Tool: "bash",
		Argv: []string{"terraform", "-chdir=infra", "destroy", "-auto-approve"}, Program: "/usr/bin/terraform", Cwd: "/repo",
		Timestamp: "2026-01-01T00:00:00.000Z"}).Value()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res := rt.Invoke(ctx, "tf", input, "s")
		if res.Action == nil || res.Action.Op != "yes" {
			b.Fatalf("%v %v", res.Action, res.Err)
		}
	}
}

func BenchmarkCompileCold(b *testing.B) {
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		rt, err := Compile(benchScripts(), Options{Dir: dir})
		if err != nil || rt.Check() != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileCached(b *testing.B) {
	dir, cache := b.TempDir(), b.TempDir()
	if _, err := Compile(benchScripts(), Options{Dir: dir, CacheDir: cache}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		rt, err := Compile(benchScripts(), Options{Dir: dir, CacheDir: cache})
		if err != nil || rt.Check() != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileCachedPinned: BenchmarkCompileCached as an authorized
// configuration loads, each program read from the cache checked against
// its pin (a SHA-256 of its bytes).
func BenchmarkCompileCachedPinned(b *testing.B) {
	dir, cache := b.TempDir(), b.TempDir()
	rt, err := Compile(benchScripts(), Options{Dir: dir, CacheDir: cache})
	if err != nil {
		b.Fatal(err)
	}
	pins := rt.ProgramSums()
	b.ReportAllocs()
	for b.Loop() {
		rt, err := Compile(benchScripts(), Options{Dir: dir, CacheDir: cache, CachePins: pins})
		if err != nil || rt.Check() != nil || len(rt.CacheRejected()) > 0 || rt.CacheUnpinned() > 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkContextValue(b *testing.B) {
	c := &builtins.Context{Phase: "shell_matcher", RequestID: "r", SessionID: "s", Agent: "claude", Tool: "bash",
		Argv: []string{"git", "commit", "-m", "fix the build", "--no-verify"}, Program: "git", Cwd: "/repo",
		Effects: []string{"write:/repo/.git"}, Timestamp: "2026-01-01T00:00:00.000Z"}
	b.ReportAllocs()
	for b.Loop() {
		if c.Value() == nil {
			b.Fatal("nil")
		}
	}
}
