package state

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func testID() Identity {
	return Identity{
		ScriptID:       "counter",
		Kind:           "shell_reviewer",
		SourceSHA256:   digest("source v1"),
		ManifestSHA256: digest("manifest v1"),
	}
}

func newStore(t testing.TB) *Store {
	t.Helper()
	return Open(filepath.Join(t.TempDir(), ".agent-shell", "state"))
}

// commit stores st as the committed state.
func commit(t *testing.T, s *Store, lc Lifecycle, session string, id Identity, st map[string]any) {
	t.Helper()
	err := s.Transact(context.Background(), lc, session, id, func(map[string]any) (map[string]any, bool, error) {
		return st, true, nil
	})
	if err != nil {
		t.Fatalf("commit: %v", err)
	}
}

func load(t *testing.T, s *Store, lc Lifecycle, session string, id Identity) map[string]any {
	t.Helper()
	st, err := s.Load(context.Background(), lc, session, id)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return st
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// increment adds one to the counter "n", committing.
func increment(ctx context.Context, s *Store, lc Lifecycle, session string, id Identity) error {
	return s.Transact(ctx, lc, session, id, func(cur map[string]any) (map[string]any, bool, error) {
		n, _ := cur["n"].(int64)
		if _, ok := cur["n"]; ok && n == 0 {
			return nil, false, fmt.Errorf("counter is %T %v, want int64", cur["n"], cur["n"])
		}
		cur["n"] = n + 1
		return cur, true, nil
	})
}

func TestLifecycleValid(t *testing.T) {
	for _, lc := range []Lifecycle{Invocation, Session, Runtime} {
		if !lc.Valid() {
			t.Errorf("%q not valid", lc)
		}
	}
	for _, lc := range []Lifecycle{"", "Session", "global"} {
		if lc.Valid() {
			t.Errorf("%q valid", lc)
		}
	}
	s := newStore(t)
	err := s.Transact(context.Background(), "global", "s1", testID(), func(map[string]any) (map[string]any, bool, error) {
		t.Fatal("fn called")
		return nil, false, nil
	})
	if err == nil || !strings.Contains(err.Error(), "invalid lifecycle") {
		t.Errorf("err = %v, want invalid lifecycle", err)
	}
}

func TestInvocationFreshAndNeverStored(t *testing.T) {
	s := newStore(t)
	for i := range 3 {
		calls := 0
		err := s.Transact(context.Background(), Invocation, "", testID(), func(cur map[string]any) (map[string]any, bool, error) {
			calls++
			if cur == nil || len(cur) != 0 {
				t.Errorf("call %d: cur = %v, want an empty map", i, cur)
			}
			cur["n"] = int64(i + 1)
			return cur, true, nil
		})
		if err != nil || calls != 1 {
			t.Fatalf("call %d: err = %v, calls = %d", i, err, calls)
		}
	}
	if _, err := os.Stat(filepath.Dir(s.Dir())); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("invocation wrote to disk: stat %s: %v", filepath.Dir(s.Dir()), err)
	}
	// fn's error comes back unchanged.
	boom := errors.New("boom")
	err := s.Transact(context.Background(), Invocation, "", Identity{}, func(map[string]any) (map[string]any, bool, error) {
		return nil, false, boom
	})
	if err != boom {
		t.Errorf("err = %v, want fn's error", err)
	}
	if _, err := s.Path(Invocation, "", testID()); err == nil {
		t.Error("Path(Invocation) = nil error")
	}
}

func richState() map[string]any {
	return map[string]any{
		"int":      int64(42),
		"neg":      int64(math.MinInt64),
		"max":      int64(math.MaxInt64),
		"float":    2.0,
		"half":     1.5,
		"negzero":  math.Copysign(0, -1),
		"big":      1e21,
		"tiny":     1e-7,
		"nil":      nil,
		"yes":      true,
		"no":       false,
		"text":     "quote \" backslash \\ newline \n tab \t nul \x00 é 😀 \u2028",
		"list":     []any{int64(1), 2.0, "three", nil, []any{}, map[string]any{}},
		"nested":   map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": int64(-7)}}}},
		"":         "empty key",
		"ключ\n\"": int64(0),
	}
}

func TestCommitAndReadBack(t *testing.T) {
	for _, lc := range []Lifecycle{Session, Runtime} {
		t.Run(string(lc), func(t *testing.T) {
			s := newStore(t)
			id := testID()
			if st := load(t, s, lc, "sess-1", id); len(st) != 0 {
				t.Fatalf("initial state = %v, want empty", st)
			}
			commit(t, s, lc, "sess-1", id, richState())
			got := load(t, s, lc, "sess-1", id)
			if !reflect.DeepEqual(got, richState()) {
				t.Errorf("read back:\n got %#v\nwant %#v", got, richState())
			}
			if f := got["float"]; reflect.TypeOf(f) != reflect.TypeFor[float64]() {
				t.Errorf("2.0 came back as %T", f)
			}
			if f := got["negzero"].(float64); !math.Signbit(f) {
				t.Errorf("-0.0 came back as %v", f)
			}

			path, err := s.Path(lc, "sess-1", id)
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(s.Dir(), "sessions", "sess-1", "scripts", "counter.json")
			if lc == Runtime {
				want = filepath.Join(s.Dir(), "runtime", id.ManifestSHA256, "counter.json")
			}
			if path != want {
				t.Errorf("Path = %s, want %s", path, want)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("snapshot mode %v, want 0600", fi.Mode().Perm())
			}
			for d := filepath.Dir(path); ; d = filepath.Dir(d) {
				fi, err := os.Stat(d)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != 0o700 {
					t.Errorf("folder %s mode %v, want 0700", d, fi.Mode().Perm())
				}
				if d == filepath.Dir(s.Dir()) {
					break
				}
			}
			data := readFile(t, path)
			if !bytes.HasPrefix(data, []byte(`{"version":1,"script_id":"counter","kind":"shell_reviewer","source_sha256":"`)) {
				t.Errorf("snapshot starts %q", data[:min(len(data), 120)])
			}
			// Nothing but the snapshot and its lock is left behind.
			entries, _ := os.ReadDir(filepath.Dir(path))
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if strings.Join(names, " ") != "counter.json counter.lock" {
				t.Errorf("folder holds %v", names)
			}

			// The other lifecycle, and another session, do not see it.
			other := Session
			if lc == Session {
				other = Runtime
			}
			if st := load(t, s, other, "sess-1", id); len(st) != 0 {
				t.Errorf("%s state sees %s state: %v", other, lc, st)
			}
			if lc == Session {
				if st := load(t, s, Session, "sess-2", id); len(st) != 0 {
					t.Errorf("another session sees the state: %v", st)
				}
			}
			if lc == Runtime {
				if st := load(t, s, Runtime, "other-session", id); !reflect.DeepEqual(st, richState()) {
					t.Errorf("runtime state differs across sessions: %v", st)
				}
			}
		})
	}
}

func TestLoadCreatesNothing(t *testing.T) {
	s := newStore(t)
	for _, lc := range []Lifecycle{Session, Runtime} {
		if st := load(t, s, lc, "s", testID()); st == nil || len(st) != 0 {
			t.Errorf("%s: state = %v, want an empty map", lc, st)
		}
	}
	if _, err := os.Stat(filepath.Dir(s.Dir())); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load wrote to disk: %v", err)
	}
	if _, err := s.Load(context.Background(), Session, "", testID()); err == nil {
		t.Error("Load without a session id: nil error")
	}
}

func TestCommitAcrossCalls(t *testing.T) {
	s := newStore(t)
	id := testID()
	for range 5 {
		if err := increment(context.Background(), s, Session, "s", id); err != nil {
			t.Fatal(err)
		}
	}
	if st := load(t, s, Session, "s", id); st["n"] != int64(5) {
		t.Errorf("n = %#v, want 5", st["n"])
	}
}

func TestFreshMapEachCall(t *testing.T) {
	s := newStore(t)
	id := testID()
	commit(t, s, Session, "s", id, map[string]any{"l": []any{int64(1)}})
	var kept map[string]any
	s.Transact(context.Background(), Session, "s", id, func(cur map[string]any) (map[string]any, bool, error) {
		kept = cur
		cur["l"].([]any)[0] = "mutated"
		cur["x"] = int64(9)
		return nil, false, nil
	})
	if st := load(t, s, Session, "s", id); !reflect.DeepEqual(st, map[string]any{"l": []any{int64(1)}}) {
		t.Errorf("state after a rolled back mutation = %v", st)
	}
	if kept["x"] != int64(9) {
		t.Error("the map fn kept changed")
	}
}

func TestNilNextCommitsEmpty(t *testing.T) {
	s := newStore(t)
	id := testID()
	commit(t, s, Runtime, "", id, map[string]any{"a": int64(1)})
	commit(t, s, Runtime, "", id, nil)
	if st := load(t, s, Runtime, "", id); len(st) != 0 {
		t.Errorf("state = %v, want empty", st)
	}
}

func TestRollbackLeavesSnapshotUnchanged(t *testing.T) {
	s := newStore(t)
	id := testID()
	commit(t, s, Session, "s", id, map[string]any{"n": int64(1), "l": []any{"a"}})
	path, _ := s.Path(Session, "s", id)
	before := readFile(t, path)
	fiBefore, _ := os.Stat(path)

	boom := errors.New("script failed")
	err := s.Transact(context.Background(), Session, "s", id, func(cur map[string]any) (map[string]any, bool, error) {
		cur["n"] = int64(2)
		cur["l"] = append(cur["l"].([]any), "b")
		return cur, true, boom // commit is ignored with an error
	})
	if err != boom {
		t.Errorf("err = %v, want fn's error unchanged", err)
	}
	err = s.Transact(context.Background(), Session, "s", id, func(cur map[string]any) (map[string]any, bool, error) {
		cur["n"] = int64(3)
		return map[string]any{"other": true}, false, nil
	})
	if err != nil {
		t.Errorf("commit=false: err = %v", err)
	}
	if after := readFile(t, path); !bytes.Equal(before, after) {
		t.Errorf("snapshot changed:\nbefore %s\nafter  %s", before, after)
	}
	fiAfter, _ := os.Stat(path)
	if !os.SameFile(fiBefore, fiAfter) {
		t.Error("snapshot was replaced")
	}
	if st := load(t, s, Session, "s", id); st["n"] != int64(1) {
		t.Errorf("n = %v, want 1", st["n"])
	}
}

func TestUnchangedCommitIsNotRewritten(t *testing.T) {
	s := newStore(t)
	id := testID()
	commit(t, s, Session, "s", id, map[string]any{"n": int64(1)})
	path, _ := s.Path(Session, "s", id)
	fi1, _ := os.Stat(path)
	commit(t, s, Session, "s", id, map[string]any{"n": int64(1)})
	fi2, _ := os.Stat(path)
	if !os.SameFile(fi1, fi2) {
		t.Error("an unchanged state was rewritten")
	}
	commit(t, s, Session, "s", id, map[string]any{"n": int64(2)})
	fi3, _ := os.Stat(path)
	if os.SameFile(fi1, fi3) {
		t.Error("a changed state was not rewritten")
	}
}

func TestIdentityMismatchStartsEmpty(t *testing.T) {
	base := testID()
	variants := map[string]func(Identity) Identity{
		"source":   func(id Identity) Identity { id.SourceSHA256 = digest("source v2"); return id },
		"manifest": func(id Identity) Identity { id.ManifestSHA256 = digest("manifest v2"); return id },
		"kind":     func(id Identity) Identity { id.Kind = "shell_before_interceptor"; return id },
	}
	for name, change := range variants {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			other := change(base)
			commit(t, s, Session, "s", base, map[string]any{"n": int64(7)})
			pa, _ := s.Path(Session, "s", base)
			pb, _ := s.Path(Session, "s", other)
			if pa != pb {
				t.Fatalf("session paths differ: %s, %s", pa, pb)
			}
			if st := load(t, s, Session, "s", other); len(st) != 0 {
				t.Fatalf("other identity sees %v", st)
			}
			if err := increment(context.Background(), s, Session, "s", other); err != nil {
				t.Fatal(err)
			}
			if st := load(t, s, Session, "s", other); st["n"] != int64(1) {
				t.Errorf("other identity: n = %v, want 1 (started empty)", st["n"])
			}
			if st := load(t, s, Session, "s", base); len(st) != 0 {
				t.Errorf("after the overwrite, the old identity sees %v", st)
			}
		})
	}
	// Runtime state of another manifest lives in another folder.
	s := newStore(t)
	commit(t, s, Runtime, "", base, map[string]any{"n": int64(7)})
	other := variants["manifest"](base)
	if st := load(t, s, Runtime, "", other); len(st) != 0 {
		t.Errorf("runtime state of another manifest sees %v", st)
	}
}

func TestCorruptSnapshotFailsClosed(t *testing.T) {
	id := testID()
	good, err := encodeSnapshot(id, map[string]any{"n": int64(1)})
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1)
	env := func(state string) string {
		return `{"version":1,"script_id":"counter","kind":"shell_reviewer","source_sha256":"` + id.SourceSHA256 +
			`","manifest_sha256":"` + id.ManifestSHA256 + `","state":` + state + `}`
	}
	cases := map[string]string{
		"not json":       "not json",
		"empty file":     "",
		"truncated":      string(good[:len(good)/2]),
		"version 2":      strings.Replace(string(good), `"version":1`, `"version":2`, 1),
		"version string": strings.Replace(string(good), `"version":1`, `"version":"1"`, 1),
		"no version":     strings.Replace(string(good), `"version":1,`, ``, 1),
		"unknown key":    strings.Replace(string(good), `"version":1,`, `"version":1,"halted":false,`, 1),
		"duplicate key":  strings.Replace(string(good), `"version":1,`, `"version":1,"version":1,`, 1),
		"wrong case key": strings.Replace(string(good), `"version":1,`, `"Version":1,`, 1),
		"trailing data":  string(good) + "{}",
		"array":          "[]",
		"null state":     env("null"),
		"list state":     env("[1]"),
		"too deep":       env(deep),
		"huge number":    env(`{"n":1e400}`),
		"script id num":  strings.Replace(string(good), `"script_id":"counter"`, `"script_id":1`, 1),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			commit(t, s, Session, "s", id, map[string]any{"n": int64(1)}) // creates the folders
			path, _ := s.Path(Session, "s", id)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			err := s.Transact(context.Background(), Session, "s", id, func(map[string]any) (map[string]any, bool, error) {
				t.Error("fn called on a corrupt snapshot")
				return map[string]any{}, true, nil
			})
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %v, want ErrCorrupt naming %s", err, path)
			}
			if got := readFile(t, path); string(got) != content {
				t.Error("corrupt snapshot was changed")
			}
		})
	}
	// Exactly MaxDepth levels is fine.
	s := newStore(t)
	commit(t, s, Session, "s", id, nil)
	path, _ := s.Path(Session, "s", id)
	okDeep := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)
	os.WriteFile(path, []byte(env(okDeep)), 0o600)
	if _, err := s.Load(context.Background(), Session, "s", id); err != nil {
		t.Errorf("state %d levels deep: %v", MaxDepth, err)
	}
	// A snapshot that is a folder or over the cap fails closed too.
	os.Remove(path)
	os.WriteFile(path, bytes.Repeat([]byte(" "), MaxFileBytes+1), 0o600)
	if _, err := s.Load(context.Background(), Session, "s", id); !errors.Is(err, ErrCorrupt) {
		t.Errorf("oversized snapshot: err = %v", err)
	}
	os.Remove(path)
	os.Mkdir(path, 0o700)
	if _, err := s.Load(context.Background(), Session, "s", id); err == nil {
		t.Error("snapshot that is a folder: no error")
	}
}

func TestInvalidIdentityAndSession(t *testing.T) {
	s := newStore(t)
	never := func(map[string]any) (map[string]any, bool, error) {
		t.Error("fn called")
		return nil, false, nil
	}
	if err := s.Transact(context.Background(), Session, "", testID(), never); err == nil || !strings.Contains(err.Error(), "session id") {
		t.Errorf("missing session id: err = %v", err)
	}
	bad := map[string]Identity{}
	for _, sid := range []string{"", ".", "..", "../x", "a/b/c", "a/", "/b", "a/..", `a\b`, "a b", "x\x00", "é", strings.Repeat("a", 129), "/abs"} {
		id := testID()
		id.ScriptID = sid
		bad["script id "+sid] = id
	}
	for _, m := range []string{"", "abc", strings.ToUpper(digest("m")), digest("m") + "0", "../" + digest("m")[3:], strings.Repeat("g", 64)} {
		id := testID()
		id.ManifestSHA256 = m
		bad["manifest "+m] = id
		id = testID()
		id.SourceSHA256 = m
		bad["source "+m] = id
	}
	id := testID()
	id.Kind = ""
	bad["no kind"] = id
	for name, id := range bad {
		for _, lc := range []Lifecycle{Session, Runtime} {
			if err := s.Transact(context.Background(), lc, "s", id, never); err == nil {
				t.Errorf("%s %s: no error", lc, name)
			}
		}
	}
	if _, err := os.Stat(filepath.Dir(s.Dir())); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a rejected call wrote to disk: %v", err)
	}
	// The longest valid script id is fine.
	id = testID()
	id.ScriptID = strings.Repeat("a", 128)
	commit(t, s, Runtime, "", id, map[string]any{"ok": true})
	// A pack's script PACK/ID is stored in the pack's own folder.
	id = testID()
	id.ScriptID = "team/counter"
	commit(t, s, Runtime, "", id, map[string]any{"ok": true})
	if p, err := s.Path(Runtime, "", id); err != nil || filepath.Base(filepath.Dir(p)) != "team" {
		t.Errorf("pack script path %q, %v: want it in the folder team", p, err)
	}
}

func TestHostileSessionIDs(t *testing.T) {
	root := t.TempDir()
	s := Open(filepath.Join(root, "state"))
	id := testID()
	hostile := []string{
		"../x", "a/b", strings.Repeat("a", 300), "..", ".", "/etc/passwd", `..\..\x`, "x\x00y",
		"a\nb", "~", "$HOME", "*", " ", "sess ion", "é", strings.Repeat("../", 50),
		"h-0123", // safe, but looks like a hashed form: hashed too
	}
	sessions := filepath.Join(s.Dir(), "sessions")
	keys := map[string]string{}
	for _, sid := range hostile {
		commit(t, s, Session, sid, id, map[string]any{"sid": sid})
		path, err := s.Path(Session, sid, id)
		if err != nil {
			t.Fatalf("%q: %v", sid, err)
		}
		rel, err := filepath.Rel(sessions, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("%q: path %s escapes %s", sid, path, sessions)
		}
		parts := strings.Split(rel, string(filepath.Separator))
		if len(parts) != 3 || parts[1] != "scripts" || parts[2] != "counter.json" {
			t.Fatalf("%q: path %s is not sessions/<one element>/scripts/counter.json", sid, path)
		}
		key := parts[0]
		if !strings.HasPrefix(key, "h-") || len(key) != 34 {
			t.Errorf("%q: folder %q, want the hashed form", sid, key)
		}
		if prev, dup := keys[key]; dup {
			t.Errorf("%q and %q share folder %s", sid, prev, key)
		}
		keys[key] = sid
		if st := load(t, s, Session, sid, id); st["sid"] != sid {
			t.Errorf("%q: read back %v", sid, st)
		}
	}
	// A hashed form used as a session id gets its own folder.
	k, _ := SessionKey("../x")
	k2, _ := SessionKey(k)
	if k == k2 {
		t.Errorf("SessionKey(%q) = %q = SessionKey(itself)", k, k2)
	}
	// Safe ids are used as they are.
	for _, sid := range []string{"sess-1", "8f3c2a1e-5b7d-4c9a-a1b2-c3d4e5f60718", "A.b_C-9", strings.Repeat("z", 128), "-x", ".hidden"} {
		if k, _ := SessionKey(sid); k != sid {
			t.Errorf("SessionKey(%q) = %q, want it unchanged", sid, k)
		}
	}
	if _, err := SessionKey(""); err == nil {
		t.Error(`SessionKey("") = nil error`)
	}
	// Everything written is under the store.
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if p != root && !strings.HasPrefix(p, s.Dir()) {
			t.Errorf("written outside the store: %s", p)
		}
		return nil
	})
}

func TestOverCapStateIsNotCommitted(t *testing.T) {
	s := newStore(t)
	id := testID()
	commit(t, s, Session, "s", id, map[string]any{"n": int64(1)})
	path, _ := s.Path(Session, "s", id)
	before := readFile(t, path)

	deep := any(int64(1))
	for range MaxDepth { // with the state map: MaxDepth+1 levels
		deep = []any{deep}
	}
	var cyclic []any
	cyclic = append(cyclic, nil)
	cyclic[0] = cyclic
	big := strings.Repeat("x", MaxFileBytes)
	cases := map[string]map[string]any{
		"one big string": {"big": big},
		"many entries": func() map[string]any {
			m := map[string]any{}
			for i := range 20000 {
				m[fmt.Sprintf("key%06d", i)] = "0123456789"
			}
			return m
		}(),
		"big list":      {"l": []any{big[:MaxFileBytes/2], big[:MaxFileBytes/2]}},
		"too deep":      {"d": deep},
		"cyclic":        {"c": cyclic},
		"nan":           {"f": math.NaN()},
		"inf":           {"f": math.Inf(-1)},
		"bad utf-8":     {"s": "\xff"},
		"bad utf-8 key": {"\xff": int64(1)},
		"func":          {"f": func() {}},
		"int32":         {"i": int32(1)},
		"string list":   {"l": []string{"a"}},
	}
	for name, next := range cases {
		err := s.Transact(context.Background(), Session, "s", id, func(map[string]any) (map[string]any, bool, error) {
			return next, true, nil
		})
		if err == nil {
			t.Errorf("%s: committed", name)
		}
		if sizeOnly := strings.Contains(name, "big") || name == "many entries"; !sizeOnly && Validate(next) == nil {
			t.Errorf("%s: Validate = nil", name)
		}
	}
	if after := readFile(t, path); !bytes.Equal(before, after) {
		t.Error("snapshot changed by a rejected commit")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 2 {
		t.Errorf("folder holds %d entries, want the snapshot and its lock", len(entries))
	}
	// Exactly MaxDepth levels commits.
	ok := any(int64(1))
	for range MaxDepth - 1 {
		ok = []any{ok}
	}
	commit(t, s, Session, "s", id, map[string]any{"d": ok})
	if err := Validate(map[string]any{"d": ok}); err != nil {
		t.Errorf("Validate at MaxDepth: %v", err)
	}
}

// holdLock starts a Transact in a goroutine whose fn blocks until release
// is closed; it returns once fn runs, so the lock is held.
func holdLock(t *testing.T, s *Store, lc Lifecycle, session string, id Identity, next map[string]any) (release func(), done <-chan error) {
	t.Helper()
	entered := make(chan struct{})
	rel := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- s.Transact(context.Background(), lc, session, id, func(map[string]any) (map[string]any, bool, error) {
			close(entered)
			<-rel
			return next, true, nil
		})
	}()
	select {
	case <-entered:
	case err := <-errc:
		t.Fatalf("holder: %v", err)
	}
	return func() { close(rel) }, errc
}

func TestLockWaitHonoursContext(t *testing.T) {
	s := newStore(t)
	id := testID()
	release, done := holdLock(t, s, Session, "s", id, map[string]any{"holder": true})

	// The lock conflicts within one process: it belongs to the open file
	// description, and each Transact opens the lock file anew.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.Transact(ctx, Session, "s", id, func(map[string]any) (map[string]any, bool, error) {
		t.Error("fn ran while the lock was held")
		return nil, false, nil
	})
	waited := time.Since(start)
	if !errors.Is(err, ErrLocked) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrLocked and DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), "state is locked") {
		t.Errorf("err = %q, want it to say the state is locked", err)
	}
	if waited < 45*time.Millisecond || waited > 2*time.Second {
		t.Errorf("waited %v for a 50ms deadline", waited)
	}

	// Other instances are not blocked.
	other := id
	other.ScriptID = "other"
	if err := increment(context.Background(), s, Session, "s", other); err != nil {
		t.Errorf("other script: %v", err)
	}
	if err := increment(context.Background(), s, Session, "s2", id); err != nil {
		t.Errorf("other session: %v", err)
	}

	// A canceled context fails fast too.
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if err := increment(cctx, s, Session, "s", id); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: err = %v", err)
	}

	// A waiter with time left gets the lock once it is released, and sees
	// the holder's commit.
	waiter := make(chan map[string]any, 1)
	go func() {
		st, err := s.Load(context.Background(), Session, "s", id)
		if err != nil {
			t.Error(err)
		}
		waiter <- st
	}()
	time.Sleep(20 * time.Millisecond)
	select {
	case st := <-waiter:
		t.Fatalf("waiter ran while the lock was held: %v", st)
	default:
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("holder: %v", err)
	}
	select {
	case st := <-waiter:
		if st["holder"] != true {
			t.Errorf("waiter saw %v, want the holder's commit", st)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter never got the lock")
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	s := newStore(t)
	id := testID()
	const workers, each = 8, 25
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				if err := increment(context.Background(), s, Runtime, "", id); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if st := load(t, s, Runtime, "", id); st["n"] != int64(workers*each) {
		t.Errorf("n = %v, want %d", st["n"], workers*each)
	}
}
