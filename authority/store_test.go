package authority

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func digest(c byte) string { return strings.Repeat(string(c), 64) }

func TestConfigDir(t *testing.T) {
	for _, tc := range []struct {
		env  func(string) string
		want string
		err  error
	}{
		{env("XDG_CONFIG_HOME", "/x/cfg", "HOME", "/home/u"), "/x/cfg/agent-shell", nil},
		{env("HOME", "/home/u"), "/home/u/.config/agent-shell", nil},
		// A relative XDG_CONFIG_HOME is ignored, as the specification says.
		{env("XDG_CONFIG_HOME", "cfg", "HOME", "/home/u"), "/home/u/.config/agent-shell", nil},
		{env("HOME", "relative"), "", ErrNoConfigDir},
		{env(), "", ErrNoConfigDir},
	} {
		got, err := ConfigDir(tc.env)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("ConfigDir = %q, %v; want %q, %v", got, err, tc.want, tc.err)
		}
	}
}

func TestStoreRoundTrip(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config", "agent-shell")
	rootA, rootB := t.TempDir(), t.TempDir()
	if _, ok, err := Lookup(cfg, rootA); ok || err != nil {
		t.Fatalf("Lookup before any Save: %v %v", ok, err)
	}
	at := time.Date(2026, 11, 29, 15, 4, 5, 999, time.FixedZone("x", 3600))
	if err := Save(cfg, rootA, Record{Digest: digest('a'), AuthorizedAt: at, Hosts: []string{"copilot", "claude"}}); err != nil {
		t.Fatal(err)
	}
	if err := Save(cfg, rootB, Record{Digest: digest('b'), AuthorizedAt: at}); err != nil {
		t.Fatal(err)
	}
	rec, ok, err := Lookup(cfg, rootA)
	if err != nil || !ok {
		t.Fatalf("Lookup: %v %v", ok, err)
	}
	if rec.Digest != digest('a') || !rec.AuthorizedAt.Equal(at.Truncate(time.Second)) || rec.AuthorizedAt.Location() != time.UTC ||
		strings.Join(rec.Hosts, ",") != "claude,copilot" {
		t.Errorf("record: %+v", rec)
	}
	// Replacing one repository's record keeps the other's.
	if err := Save(cfg, rootA, Record{Digest: digest('c'), AuthorizedAt: at}); err != nil {
		t.Fatal(err)
	}
	if rec, _, _ := Lookup(cfg, rootA); rec.Digest != digest('c') {
		t.Errorf("replaced record: %+v", rec)
	}
	if rec, _, _ := Lookup(cfg, rootB); rec.Digest != digest('b') {
		t.Errorf("other record: %+v", rec)
	}
	// Private: the folder 0700, the store 0600, no temporary file left.
	if fi, _ := os.Stat(cfg); fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v", fi.Mode())
	}
	if fi, _ := os.Stat(filepath.Join(cfg, FileName)); fi.Mode().Perm() != 0o600 {
		t.Errorf("store mode %v", fi.Mode())
	}
	entries, _ := os.ReadDir(cfg)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "authorized.json authorized.json.lock" {
		t.Errorf("folder holds %v", names)
	}
	data, _ := os.ReadFile(filepath.Join(cfg, FileName))
	if !strings.Contains(string(data), `"version": 1`) || !strings.Contains(string(data), `"authorized_at": "2026-11-29T14:04:05Z"`) {
		t.Errorf("store:\n%s", data)
	}
}

func TestSaveRejectsBadRecords(t *testing.T) {
	cfg := t.TempDir()
	for _, rec := range []Record{
		{Digest: "abc"},
		{Digest: strings.Repeat("z", 64)},
		{Digest: digest('a'), Hosts: []string{""}},
		{Digest: digest('a'), Hosts: []string{"a\nb"}},
	} {
		if err := Save(cfg, t.TempDir(), rec); err == nil {
			t.Errorf("Save(%+v): no error", rec)
		}
	}
}

// Roots are keys as they are, whatever they hold; a root that is not an
// absolute path is refused; one repository reached through a symbolic link
// is one record.
func TestHostileRoots(t *testing.T) {
	cfg := t.TempDir()
	base := t.TempDir()
	for _, name := range []string{"with\nnewline", `quote"s and \back`, "ünïcode ✓", "trailing/"} {
		root := filepath.Join(base, name)
		if err := Save(cfg, root, Record{Digest: digest('d')}); err != nil {
			t.Fatalf("Save(%q): %v", root, err)
		}
		if rec, ok, err := Lookup(cfg, root); !ok || err != nil || rec.Digest != digest('d') {
			t.Errorf("Lookup(%q): %v %v %v", root, rec, ok, err)
		}
	}
	for _, root := range []string{"", "relative/repo", "/a\x00b"} {
		if err := Save(cfg, root, Record{Digest: digest('d')}); !errors.Is(err, ErrBadRoot) {
			t.Errorf("Save(%q): %v, want ErrBadRoot", root, err)
		}
		if _, _, err := Lookup(cfg, root); !errors.Is(err, ErrBadRoot) {
			t.Errorf("Lookup(%q): %v, want ErrBadRoot", root, err)
		}
	}
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := Save(cfg, link, Record{Digest: digest('e')}); err != nil {
		t.Fatal(err)
	}
	if rec, ok, _ := Lookup(cfg, real); !ok || rec.Digest != digest('e') {
		t.Errorf("the real path does not find the record saved through a link: %v %v", rec, ok)
	}
	if rec, ok, _ := Lookup(cfg, real+"/."); !ok || rec.Digest != digest('e') {
		t.Errorf("an unclean path does not find the record: %v %v", rec, ok)
	}
}

// A store agent-shell did not write is an error for Lookup and Save alike,
// and Save leaves it as it was.
func TestDamagedStore(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"not json":      "{",
		"version 2":     `{"version":2,"repos":{}}`,
		"unknown field": `{"version":1,"repos":{},"extra":1}`,
		"bad digest":    `{"version":1,"repos":{"/r":{"digest":"x","authorized_at":"2026-01-01T00:00:00Z","hosts":[]}}}`,
		"two objects":   `{"version":1,"repos":{}} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			cfg := t.TempDir()
			path := filepath.Join(cfg, FileName)
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, _, err := Lookup(cfg, root); err == nil || !strings.Contains(err.Error(), "fix or remove it") {
				t.Errorf("Lookup: %v", err)
			}
			if err := Save(cfg, root, Record{Digest: digest('a')}); err == nil {
				t.Error("Save over a damaged store: no error")
			}
			if data, _ := os.ReadFile(path); string(data) != text {
				t.Errorf("the store was changed: %s", data)
			}
		})
	}
	// A symbolic link is not followed.
	cfg := t.TempDir()
	other := filepath.Join(t.TempDir(), "elsewhere.json")
	os.WriteFile(other, []byte(`{"version":1,"repos":{}}`), 0o600)
	if err := os.Symlink(other, filepath.Join(cfg, FileName)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Lookup(cfg, root); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Lookup through a link: %v", err)
	}
}

// Concurrent saves of different repositories all land: the lock serializes
// the read-modify-write of the whole store.
func TestConcurrentSaves(t *testing.T) {
	cfg := t.TempDir()
	base := t.TempDir()
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- Save(cfg, filepath.Join(base, fmt.Sprint(i)), Record{Digest: digest('a' + byte(i%6))})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		if rec, ok, err := Lookup(cfg, filepath.Join(base, fmt.Sprint(i))); !ok || err != nil || rec.Digest != digest('a'+byte(i%6)) {
			t.Errorf("repository %d: %v %v %v", i, rec, ok, err)
		}
	}
}

// Save waits for the lock another process (here: another open of the lock
// file) holds, and gives up after lockTimeout.
func TestSaveWaitsForTheLock(t *testing.T) {
	cfg := t.TempDir()
	unlock, err := lock(filepath.Join(cfg, FileName+".lock"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Save(cfg, t.TempDir(), Record{Digest: digest('a')}) }()
	select {
	case err := <-done:
		t.Fatalf("Save did not wait for the lock: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	old := lockTimeout
	lockTimeout = 50 * time.Millisecond
	defer func() { lockTimeout = old }()
	unlock, err = lock(filepath.Join(cfg, FileName+".lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := Save(cfg, t.TempDir(), Record{Digest: digest('a')}); !errors.Is(err, ErrLocked) {
		t.Errorf("Save with the lock held: %v, want ErrLocked", err)
	}
}

// Transact records nothing when its work fails, and runs the cleanup only
// once the record is written.
func TestTransact(t *testing.T) {
	cfg, root := t.TempDir(), t.TempDir()
	boom := errors.New("boom")
	after := false
	if err := Transact(cfg, root, Record{Digest: digest('a')}, func() error { return boom }, func() { after = true }); !errors.Is(err, boom) {
		t.Fatalf("Transact: %v", err)
	}
	if _, ok, _ := Lookup(cfg, root); ok || after {
		t.Errorf("a failed Transact recorded (%v) or cleaned up (%v)", ok, after)
	}
	var order []string
	err := Transact(cfg, root, Record{Digest: digest('a')},
		func() error { order = append(order, "before"); return nil },
		func() {
			_, ok, _ := Lookup(cfg, root)
			order = append(order, fmt.Sprintf("after recorded=%v", ok))
		})
	if err != nil || strings.Join(order, ", ") != "before, after recorded=true" {
		t.Errorf("Transact: %v %v", err, order)
	}
}

// The authorization store is read on every decision: whatever its bytes,
// reading it gives an error or records that validate, never a panic.
func FuzzReadStore(f *testing.F) {
	f.Add([]byte(`{"version":1,"repos":{}}`))
	f.Add([]byte(`{"version":1,"repos":{"/r":{"digest":"` + strings.Repeat("a", 64) + `","authorized_at":"2026-01-01T00:00:00Z"}}}`))
	f.Add([]byte(`{"version":1,"repos":{"/r":{"digest":"x"}}}`))
	f.Add([]byte(`{"version":1} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "authorized.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		sf, err := readStore(path)
		if err != nil {
			return
		}
		for k, r := range sf.Repos {
			if err := r.validate(); err != nil {
				t.Fatalf("repository %q read but invalid: %v", k, err)
			}
		}
	})
}

// Who authorized and the pinned programs are kept; a record that holds
// text that is no name, or pins that are no digests, is refused.
func TestRecordProvenanceAndPins(t *testing.T) {
	cfg, root := t.TempDir(), t.TempDir()
	by := &Provenance{User: "ada", UID: 1000, Actor: "human", Host: "box", Terminal: "/dev/pts/3", Via: []string{"zsh", "tmux: server"}}
	pins := map[string]string{digest('1'): digest('2')}
	if err := Save(cfg, root, Record{Digest: digest('a'), By: by, Programs: pins}); err != nil {
		t.Fatal(err)
	}
	rec, _, err := Lookup(cfg, root)
	if err != nil || rec.By == nil || rec.By.Terminal != "/dev/pts/3" || strings.Join(rec.By.Via, ",") != "zsh,tmux: server" || rec.Programs[digest('1')] != digest('2') {
		t.Fatalf("record %+v %+v, %v", rec, rec.By, err)
	}
	for _, bad := range []Record{
		{Digest: digest('a'), By: &Provenance{User: "a\nb"}},
		{Digest: digest('a'), By: &Provenance{Via: []string{strings.Repeat("x", 300)}}},
		{Digest: digest('a'), Programs: map[string]string{"k": digest('2')}},
		{Digest: digest('a'), Programs: map[string]string{digest('1'): "v"}},
	} {
		if err := Save(cfg, root, bad); err == nil {
			t.Errorf("Save(%+v): no error", bad)
		}
	}
}
