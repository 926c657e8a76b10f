package runtime

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/builtins"
)

const (
	srcA = "def on_event(ctx, state):\n    return Match.yes(\"A\")\n"
	srcB = "def on_event(ctx, state):\n    return Match.yes(\"B\")\n"
)

// cacheEntries lists the files in a cache folder, failing on leftovers.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".bin") {
			t.Errorf("unexpected file %s in the cache", e.Name())
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// cacheOne compiles src as matcher "s" with cacheDir and returns its one
// entry's path and bytes.
func cacheOne(t *testing.T, cacheDir, src string) (string, []byte) {
	t.Helper()
	mustCompile(t, []Script{script(builtins.KindMatcher, src, Limits{})}, Options{CacheDir: cacheDir})
	names := cacheEntries(t, cacheDir)
	if len(names) != 1 {
		t.Fatalf("cache holds %v, want one entry", names)
	}
	p := filepath.Join(cacheDir, names[0])
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, data
}

// splitEntry splits an entry into its header line and the program bytes.
func splitEntry(t *testing.T, data []byte) (header, prog []byte) {
	t.Helper()
	i := bytes.IndexByte(data, '\n')
	if i < 0 || !bytes.HasPrefix(data, []byte("agent-shell-starlark ")) {
		t.Fatalf("entry %.80q has no header line", data)
	}
	return data[:i+1], data[i+1:]
}

// runA compiles srcA from cacheDir and returns the reason it answers.
func runA(t *testing.T, cacheDir string) string {
	t.Helper()
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, srcA, Limits{})}, Options{CacheDir: cacheDir})
	res := rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil)
	if res.Action == nil {
		t.Fatalf("run: %v", res.Err)
	}
	return res.Action.Reason
}

func TestCacheWritesEntries(t *testing.T) {
	cacheDir := filepath.Join(t.TempDir(), "cache", "starlark")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"lib.star": "x = 1\n"})
	src := "load(\"./lib.star\", \"x\")\nload(\"@agent-shell//helpers.star\", \"under\")\n" + srcA
	mustCompile(t, []Script{script(builtins.KindMatcher, src, Limits{})}, Options{Dir: dir, CacheDir: cacheDir})
	if names := cacheEntries(t, cacheDir); len(names) != 3 {
		t.Errorf("cache holds %v, want the script and its two modules", names)
	}
	if fi, err := os.Stat(cacheDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("cache folder: %v, %v; want mode 0700", fi.Mode(), err)
	}
	// A second Compile adds nothing.
	mustCompile(t, []Script{script(builtins.KindMatcher, src, Limits{})}, Options{Dir: dir, CacheDir: cacheDir})
	if names := cacheEntries(t, cacheDir); len(names) != 3 {
		t.Errorf("after a second compile the cache holds %v", names)
	}
}

func TestCacheEntryIsUsed(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	pathA, entryA := cacheOne(t, dirA, srcA)
	_, entryB := cacheOne(t, dirB, srcB)
	headerA, _ := splitEntry(t, entryA)
	_, progB := splitEntry(t, entryB)

	if got := runA(t, dirA); got != "A" {
		t.Fatalf("before substitution: %q", got)
	}
	// Substitute B's program under A's key and header: compiling A's
	// source now runs B, which can only happen if the entry was used.
	substituted := append(append([]byte{}, headerA...), progB...)
	if err := os.WriteFile(pathA, substituted, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := runA(t, dirA); got != "B" {
		t.Errorf("after substitution: A's source answered %q, want the cached program's \"B\"", got)
	}
	// A valid entry is not rewritten.
	if data, _ := os.ReadFile(pathA); !bytes.Equal(data, substituted) {
		t.Errorf("a valid entry was rewritten")
	}
}

// runAPinned is runA with the cache trusted only as pins say; it returns
// the reason and the entries rejected.
func runAPinned(t *testing.T, cacheDir string, pins map[string]string) (string, []string) {
	t.Helper()
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, srcA, Limits{})}, Options{CacheDir: cacheDir, CachePins: pins})
	res := rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil)
	if res.Action == nil {
		t.Fatalf("run: %v", res.Err)
	}
	return res.Action.Reason, rt.CacheRejected()
}

// Under pins, another program written under A's key and header is not
// used (and is replaced by A's), while the program pinned for the key is.
func TestCachePinsVerifyEntries(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	pathA, entryA := cacheOne(t, dirA, srcA)
	_, entryB := cacheOne(t, dirB, srcB)
	headerA, progA := splitEntry(t, entryA)
	_, progB := splitEntry(t, entryB)
	key := cacheKey("x.star", sum(srcA), string(builtins.KindMatcher), builtins.Surface(builtins.KindMatcher))
	pins := map[string]string{key: sum(string(progA))}
	poisoned := append(append([]byte{}, headerA...), progB...)

	if err := os.WriteFile(pathA, poisoned, 0o600); err != nil {
		t.Fatal(err)
	}
	got, rejected := runAPinned(t, dirA, pins)
	if got != "A" || len(rejected) != 1 || rejected[0] != pathA {
		t.Errorf("poisoned entry under pins: answered %q, rejected %v; want A and the entry", got, rejected)
	}
	if data, _ := os.ReadFile(pathA); !bytes.Equal(data, entryA) {
		t.Errorf("the poisoned entry was not replaced by the pinned program")
	}

	// The entry that is the pinned program is used: pin B's program for
	// A's key, and A's source runs B.
	if err := os.WriteFile(pathA, poisoned, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, rejected := runAPinned(t, dirA, map[string]string{key: sum(string(progB))}); got != "B" || len(rejected) != 0 {
		t.Errorf("pinned entry: answered %q, rejected %v; want the cached B", got, rejected)
	}

	// Nothing pinned for the key: the entry is not even read, nor
	// rewritten with a program no one pinned.
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, srcA, Limits{})}, Options{CacheDir: dirA, CachePins: map[string]string{}})
	if res := rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil); res.Action == nil || res.Action.Reason != "A" ||
		len(rt.CacheRejected()) != 0 || rt.CacheUnpinned() != 1 {
		t.Errorf("unpinned key: answered %+v, rejected %v, unpinned %d; want A compiled from source", res.Action, rt.CacheRejected(), rt.CacheUnpinned())
	}
	if data, _ := os.ReadFile(pathA); !bytes.Equal(data, poisoned) {
		t.Errorf("an entry was written for a key nothing pins")
	}
}

// ProgramSums are what an authorization pins: the same source compiles to
// the same bytes in another process, so a pin made once holds.
func TestProgramSumsAreStable(t *testing.T) {
	scripts := []Script{script(builtins.KindMatcher, "load(\"@agent-shell//helpers.star\", \"under\")\n"+srcA, Limits{})}
	one := mustCompile(t, scripts, Options{CacheDir: t.TempDir(), CachePins: map[string]string{}}).ProgramSums()
	two := mustCompile(t, scripts, Options{CacheDir: t.TempDir(), CachePins: map[string]string{}}).ProgramSums()
	if len(one) == 0 || !maps.Equal(one, two) {
		t.Errorf("sums differ between compiles: %v / %v", one, two)
	}
	cached := t.TempDir()
	mustCompile(t, scripts, Options{CacheDir: cached})
	if three := mustCompile(t, scripts, Options{CacheDir: cached, CachePins: one}).ProgramSums(); !maps.Equal(one, three) {
		t.Errorf("verified entries report %v, want %v", three, one)
	}
}

func TestCacheBadEntriesIgnoredAndRewritten(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	pathA, entryA := cacheOne(t, dirA, srcA)
	_, entryB := cacheOne(t, dirB, srcB)
	headerA, progA := splitEntry(t, entryA)
	headerB, progB := splitEntry(t, entryB)
	if bytes.Equal(headerA, headerB) {
		t.Fatalf("two sources share the header %q", headerA)
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"garbage", []byte("not a cache entry at all")},
		{"corrupt program", cat(headerA, []byte("\x00\x01garbage"))},
		{"truncated program", cat(headerA, progA[:len(progA)/2])},
		{"header only", headerA},
		{"foreign header", cat(headerB, progB)},
		{"other version", cat([]byte(strings.Replace(string(headerA), "agent-shell-starlark ", "agent-shell-starlark-v0 ", 1)), progB)},
		{"no header", progB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(pathA, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			if got := runA(t, dirA); got != "A" {
				t.Errorf("A's source answered %q: a bad entry was used", got)
			}
			data, err := os.ReadFile(pathA)
			if err != nil {
				t.Fatal(err)
			}
			h, p := splitEntry(t, data)
			if !bytes.Equal(h, headerA) || !bytes.Equal(p, progA) {
				t.Errorf("the entry was not rewritten: %.80q", data)
			}
			if names := cacheEntries(t, dirA); len(names) != 1 {
				t.Errorf("cache holds %v", names)
			}
		})
	}
}

func TestCacheKeyedByKind(t *testing.T) {
	cacheDir := t.TempDir()
	// A matcher's program, cached...
	mustCompile(t, []Script{script(builtins.KindMatcher, srcA, Limits{})}, Options{CacheDir: cacheDir})
	// ...is not what the same source compiles to as a reviewer: there
	// Match is undefined.
	_, err := Compile([]Script{script(builtins.KindReviewer, srcA, Limits{})}, Options{Dir: t.TempDir(), CacheDir: cacheDir})
	wantErrContains(t, "reviewer", err, "x.star:2:12: undefined: Match")

	// A source valid for every kind gets one entry per kind.
	neutral := "def on_event(ctx, state):\n    return None\n"
	cacheDir = t.TempDir()
	for _, k := range builtins.Kinds() {
		mustCompile(t, []Script{script(k, neutral, Limits{})}, Options{CacheDir: cacheDir})
	}
	if names := cacheEntries(t, cacheDir); len(names) != len(builtins.Kinds()) {
		t.Errorf("cache holds %d entries for %d kinds: %v", len(names), len(builtins.Kinds()), names)
	}
	// The key separates kinds, the library surface, file names and sources.
	keys := map[string]bool{}
	for _, k := range builtins.Kinds() {
		keys[cacheKey("x.star", sum(neutral), string(k), builtins.Surface(k))] = true
	}
	keys[cacheKey("x.star", sum(neutral), "library", builtins.Library())] = true
	keys[cacheKey("y.star", sum(neutral), string(builtins.KindMatcher), builtins.Surface(builtins.KindMatcher))] = true
	keys[cacheKey("x.star", sum(srcA), string(builtins.KindMatcher), builtins.Surface(builtins.KindMatcher))] = true
	if len(keys) != len(builtins.Kinds())+3 {
		t.Errorf("cache keys collide: %d distinct of %d", len(keys), len(builtins.Kinds())+3)
	}
}

func TestCacheFailureIsNotAnError(t *testing.T) {
	// CacheDir is a file: nothing can be cached, everything still compiles.
	blocker := filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, srcA, Limits{})}, Options{CacheDir: blocker})
	wantAction(t, "uncached", rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil), `Match.yes("A")`)
}

// TestCacheKeyCoversSurface: an entry written by another agent-shell
// binary (same go.starlark.net, same kind name) whose matcher surface had a
// name this one lacks must not be used: the source does not compile here.
func TestCacheKeyCoversSurface(t *testing.T) {
	src := "def on_event(ctx, state):\n    return Match.yes(str(gone))\n"
	cacheDir := t.TempDir()
	surface := builtins.Surface(builtins.KindMatcher)
	_, prog, err := starlark.SourceProgramOptions(dialect, "x.star", []byte(src), func(name string) bool {
		return surface.Has(name) || name == "gone"
	})
	if err != nil {
		t.Fatal(err)
	}
	// The other build's key covers its own surface, "gone" included.
	other := starlark.StringDict{"gone": starlark.None}
	for k, v := range surface {
		other[k] = v
	}
	key := cacheKey("x.star", sum(src), string(builtins.KindMatcher), other)
	var buf bytes.Buffer
	buf.WriteString("agent-shell-starlark " + key + "\n")
	if err := prog.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cacheDir, key[:40]+".bin"), buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	rt, err := Compile([]Script{script(builtins.KindMatcher, src, Limits{})}, Options{Dir: t.TempDir(), CacheDir: cacheDir})
	if err == nil {
		res := rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil)
		t.Errorf("Compile used a program compiled against another surface; the run then gives %q: %v", res.Failure, res.Err)
	}
	wantErrContains(t, "stale surface", err, "x.star:2:26: undefined: gone")
}
