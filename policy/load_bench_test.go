package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy/guard"
)

// benchRepo copies a testdata/<name> policy folder into a fresh repository.
func benchRepo(b *testing.B, name string) string {
	root := b.TempDir()
	dir := filepath.Join(root, ".github", "hooks", "agent-shell")
	src := filepath.Join("testdata", name)
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		b.Fatal(err)
	}
	return root
}

func BenchmarkLoad(b *testing.B) {
	root := benchRepo(b, "bench")
	getenv := func(string) string { return "" }
	b.ReportAllocs()
	for b.Loop() {
		regexps.Clear() // as in a new process
		if e := Load(root, getenv); e.LoadErr != nil {
			b.Fatal(e.LoadErr)
		}
	}
}

// BenchmarkLoadWithScripts: the same policy plus a matcher, an effect
// analyzer and an audit filter, their compiled programs in the cache.
func BenchmarkLoadWithScripts(b *testing.B) { benchLoadCached(b, "bench-scripts") }

// benchLoadCached times loading a testdata/<name> policy with its compile
// cache filled.
func benchLoadCached(b *testing.B, name string) {
	root := benchRepo(b, name)
	getenv := func(string) string { return "" }
	Load(root, getenv) // fills the compile cache
	b.ReportAllocs()
	for b.Loop() {
		regexps.Clear() // as in a new process
		if e := Load(root, getenv); e.LoadErr != nil {
			b.Fatal(e.LoadErr)
		}
	}
}

func BenchmarkDecideWithScripts(b *testing.B) {
	e := Load(benchRepo(b, "bench-scripts"), func(string) string { return "" })
	if e.LoadErr != nil {
		b.Fatal(e.LoadErr)
	}
	const line = "cd web && FOO=1 npm ci && npm test -- --coverage | tee out.log; git status --short"
	b.ReportAllocs()
	for b.Loop() {
		if d := e.Decide(line, "/repo"); len(d.Extensions) == 0 {
			b.Fatal("no script ran")
		}
	}
}

// BenchmarkGuardEvent: the built-in guards on a Claude Bash call, the
// check every pre-tool call pays before the policy.
func BenchmarkGuardEvent(b *testing.B) {
	root := benchRepo(b, "bench")
	ev := &hostapi.Event{Agent: "claude", Kind: hostapi.KindPreTool, Tool: hostapi.ToolBash, NativeTool: "Bash", Cwd: root,
		Command: "cd web && FOO=1 npm ci && npm test -- --coverage | tee out.log; git status --short"}
	b.ReportAllocs()
	for b.Loop() {
		if g := guard.Check(root, ev, nil, nil); g != nil {
			b.Fatal(g.Reason)
		}
	}
}

// BenchmarkLoadAuthorized: Load plus the authorization check of an
// authorized repository (the record read from the config directory).
func BenchmarkLoadAuthorized(b *testing.B) {
	root := benchRepo(b, "bench")
	cfg := b.TempDir()
	getenv := func(string) string { return "" }
	p, err := ProposeAuthorization(root, getenv, cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Accept(nil, nil, time.Now()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, au := LoadAuthorized(root, getenv, cfg); au.State != AuthAuthorized {
			b.Fatal(au.State)
		}
	}
}

// BenchmarkLoadSafetyPack: the configuration init writes, the safety pack
// at level standard, its compiled programs in the cache.
func BenchmarkLoadSafetyPack(b *testing.B) { benchLoadCached(b, "bench-safety") }

// BenchmarkDecideSafetyPack: a five-command line under the safety pack,
// its matchers running.
func BenchmarkDecideSafetyPack(b *testing.B) {
	root := benchRepo(b, "bench-safety")
	e := Load(root, func(string) string { return "" })
	if e.LoadErr != nil {
		b.Fatal(e.LoadErr)
	}
	const line = "git status && rm -rf ./dist && npm test -- --grep x | tee log.txt && cat README.md"
	b.ReportAllocs()
	for b.Loop() {
		if d := e.DecideRequest(line, Request{Cwd: root, Home: "/home/dev"}); d.Action != ActionAllow {
			b.Fatal(d.Action, d.Reason)
		}
	}
}

// BenchmarkLoadDecideSafetyPack: what one hook call does in process with
// the safety pack: load it and decide a five-command line, its matchers
// compiled (from the cache) and initialised on first use.
func BenchmarkLoadDecideSafetyPack(b *testing.B) {
	root := benchRepo(b, "bench-safety")
	getenv := func(string) string { return "" }
	const line = "git status && rm -rf ./dist && npm test -- --grep x | tee log.txt && cat README.md"
	Load(root, getenv).DecideRequest(line, Request{Cwd: root}) // fills the compile cache
	b.ReportAllocs()
	for b.Loop() {
		regexps.Clear() // as in a new process
		e := Load(root, getenv)
		if d := e.DecideRequest(line, Request{Cwd: root, Home: "/home/dev"}); d.Action != ActionAllow {
			b.Fatal(d.Action, d.Reason)
		}
	}
}

// genRulesManifest writes a manifest of n rules of the kinds bench/run.sh's
// scale section generates (argv prefixes with arguments, basenames,
// effects; a regexp in one rule of 100), none matching ordinary commands.
func genRulesManifest(b *testing.B, n int) string {
	root := b.TempDir()
	dir := filepath.Join(root, ".github", "hooks", "agent-shell")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent-shell.toml"), []byte(rulesManifest(n)), 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

// BenchmarkLoadDecideRules: the load of a manifest of 10 and of 10,000
// rules, and a decision on a command none of them matches.
func BenchmarkLoadDecideRules(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			root := genRulesManifest(b, n)
			getenv := func(string) string { return "" }
			b.ReportAllocs()
			Load(root, getenv) // writes the snapshot
			for b.Loop() {
				regexps.Clear() // as in a new process
				e := Load(root, getenv)
				if d := e.Decide("git status --short", root); e.LoadErr != nil || d.Action != ActionAllow {
					b.Fatal(e.LoadErr, d.Reason)
				}
			}
		})
	}
}
