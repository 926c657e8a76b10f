package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func ptime(t time.Time) *time.Time { return &t }

func testGrant(scope, session string, argv ...string) *Grant {
	parts := []string{"manifest", "shell", "name:" + argv[0], "/w", ""}
	g := &Grant{
		Scope: scope, SessionID: session, Argv: argv, Reviewer: "rv",
		ScopeHash: GrantHash(parts...), Hash: GrantHash(append(parts, argv...)...),
	}
	if scope == ScopeDurableExact {
		g.ExpiresAt = ptime(t0.Add(24 * time.Hour))
	}
	return g
}

func query(argv ...string) GrantQuery {
	parts := []string{"manifest", "shell", "name:" + argv[0], "/w", ""}
	return GrantQuery{ScopeHash: GrantHash(parts...), Hash: GrantHash(append(parts, argv...)...), Argv: argv}
}

func TestGrantHash(t *testing.T) {
	// The length prefix makes the encoding unambiguous.
	if GrantHash("ab", "c") == GrantHash("a", "bc") {
		t.Fatal("H(ab, c) == H(a, bc)")
	}
	if GrantHash("") == GrantHash() {
		t.Fatal("H('') == H()")
	}
	// H(["a","bc"]) is SHA-256 of "1:a2:bc".
	if got, want := GrantHash("a", "bc"), digest("1:a2:bc"); got != want {
		t.Fatalf("GrantHash = %s, want %s", got, want)
	}
}

func TestGrantsRoundTrip(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	exact := testGrant(ScopeExactSession, "s1", "curl", "https://x")
	durable := testGrant(ScopeDurableExact, "", "make", "deploy")
	if err := s.AddGrants(ctx, []*Grant{exact, durable}, t0); err != nil {
		t.Fatal(err)
	}
	if exact.ID == "" || !exact.CreatedAt.Equal(t0) {
		t.Fatalf("AddGrants did not set id and created_at: %+v", exact)
	}
	for _, p := range []string{"grants.json", "sessions/s1/grants.json"} {
		fi, err := os.Stat(filepath.Join(s.Dir(), p))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, fi.Mode().Perm())
		}
	}
	all, err := s.ListGrants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Fatalf("ListGrants = %d grants, want 2", len(all))
	}
	byID := map[string]Grant{}
	for _, g := range all {
		byID[g.ID] = g
	}
	for _, want := range []*Grant{exact, durable} {
		got := byID[want.ID]
		if !reflect.DeepEqual(got.Argv, want.Argv) || got.Scope != want.Scope || got.SessionID != want.SessionID ||
			got.Hash != want.Hash || !got.CreatedAt.Equal(want.CreatedAt) {
			t.Errorf("grant %s came back as %+v, want %+v", want.ID, got, *want)
		}
	}
	if !byID[durable.ID].ExpiresAt.Equal(*durable.ExpiresAt) {
		t.Errorf("expiry lost: %v", byID[durable.ID].ExpiresAt)
	}
}

func TestGrantsRefused(t *testing.T) {
	s := newStore(t)
	for name, g := range map[string]*Grant{
		"once":                testGrant(ScopeOnce, "", "ls"),
		"unknown scope":       testGrant("forever", "", "ls"),
		"session, no session": testGrant(ScopeExactSession, "", "ls"),
		"durable, session":    func() *Grant { g := testGrant(ScopeDurableExact, "s1", "ls"); return g }(),
		"durable, no expiry":  func() *Grant { g := testGrant(ScopeDurableExact, "", "ls"); g.ExpiresAt = nil; return g }(),
		"bad hash":            func() *Grant { g := testGrant(ScopeExactSession, "s1", "ls"); g.Hash = "x"; return g }(),
	} {
		if err := s.AddGrants(context.Background(), []*Grant{g}, t0); err == nil {
			t.Errorf("%s: stored", name)
		}
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused grant created the store: %v", err)
	}
}

func TestUseGrants(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	exact := testGrant(ScopeExactSession, "s1", "curl", "https://x")
	prefix := testGrant(ScopePrefixSession, "s1", "git", "push")
	durable := testGrant(ScopeDurableExact, "", "make", "deploy")
	expired := testGrant(ScopeDurableExact, "", "make", "old")
	expired.ExpiresAt = ptime(t0.Add(-time.Second))
	revoked := testGrant(ScopeDurableExact, "", "make", "revoked")
	if err := s.AddGrants(ctx, []*Grant{exact, prefix, durable, expired, revoked}, t0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RevokeGrant(ctx, revoked.ID, "no", t0.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		session string
		q       GrantQuery
		want    string
	}{
		{"s1", query("curl", "https://x"), exact.ID},
		{"s2", query("curl", "https://x"), ""},  // another session
		{"", query("curl", "https://x"), ""},    // no session
		{"s1", query("curl", "https://y"), ""},  // another argv
		{"s1", query("git", "push"), prefix.ID}, // the prefix itself
		{"s1", query("git", "push", "origin", "main"), prefix.ID},
		{"s1", query("git", "pull"), ""},
		{"s1", query("git"), ""}, // shorter than the prefix
		{"s2", query("git", "push", "origin"), ""},
		{"s1", query("make", "deploy"), durable.ID},
		{"s9", query("make", "deploy"), durable.ID},
		{"", query("make", "deploy"), durable.ID},
		{"s1", query("make", "deploy", "now"), ""}, // durable is exact
		{"s1", query("make", "old"), ""},           // expired
		{"s1", query("make", "revoked"), ""},       // revoked
	}
	for _, tt := range tests {
		got, err := s.UseGrants(ctx, tt.session, []GrantQuery{tt.q}, t0)
		if err != nil {
			t.Fatal(err)
		}
		id := ""
		if got[0] != nil {
			id = got[0].ID
		}
		if id != tt.want {
			t.Errorf("UseGrants(%q, %v) = %q, want %q", tt.session, tt.q.Argv, id, tt.want)
		}
	}
	// A prefix grant needs the same scope hash: another cwd is another scope.
	q := query("git", "push", "x")
	q.ScopeHash = GrantHash("manifest", "shell", "name:git", "/elsewhere", "")
	if got, _ := s.UseGrants(ctx, "s1", []GrantQuery{q}, t0); got[0] != nil {
		t.Errorf("prefix grant used in another scope")
	}
	// Several queries at once, and last_used_at recorded.
	got, err := s.UseGrants(ctx, "s1", []GrantQuery{query("curl", "https://x"), query("nope"), query("make", "deploy")}, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if got[0] == nil || got[1] != nil || got[2] == nil {
		t.Fatalf("UseGrants = %v", got)
	}
	all, _ := s.ListGrants(ctx)
	for _, g := range all {
		if g.ID == exact.ID && (g.LastUsedAt == nil || !g.LastUsedAt.Equal(t0.Add(time.Minute))) {
			t.Errorf("last_used_at = %v", g.LastUsedAt)
		}
	}
	// An expiry is inclusive.
	if got, _ := s.UseGrants(ctx, "", []GrantQuery{query("make", "deploy")}, *durable.ExpiresAt); got[0] == nil {
		t.Errorf("grant not valid at its expiry")
	}
	if got, _ := s.UseGrants(ctx, "", []GrantQuery{query("make", "deploy")}, durable.ExpiresAt.Add(time.Nanosecond)); got[0] != nil {
		t.Errorf("grant valid after its expiry")
	}
}

func TestUseGrantsNoStore(t *testing.T) {
	s := newStore(t)
	got, err := s.UseGrants(context.Background(), "s1", []GrantQuery{query("ls")}, t0)
	if err != nil || got[0] != nil {
		t.Fatalf("UseGrants on an empty store = %v, %v", got, err)
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a lookup created the store: %v", err)
	}
}

func TestGrantsCorrupt(t *testing.T) {
	for name, content := range map[string]string{
		"not json":       "{",
		"empty":          "",
		"wrong version":  `{"version":2,"grants":[]}`,
		"no version":     `{"grants":[]}`,
		"unknown field":  `{"version":1,"grants":[],"extra":1}`,
		"trailing data":  `{"version":1,"grants":[]} {}`,
		"invalid grant":  `{"version":1,"grants":[{"id":"g-1","scope":"once"}]}`,
		"missing grants": `{"version":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(s.Dir(), "grants.json"), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := s.UseGrants(context.Background(), "s1", []GrantQuery{query("ls")}, t0); !errors.Is(err, ErrCorrupt) {
				t.Errorf("UseGrants: %v, want ErrCorrupt", err)
			}
			if _, err := s.ListGrants(context.Background()); !errors.Is(err, ErrCorrupt) {
				t.Errorf("ListGrants: %v, want ErrCorrupt", err)
			}
			if err := s.AddGrants(context.Background(), []*Grant{testGrant(ScopeDurableExact, "", "ls")}, t0); !errors.Is(err, ErrCorrupt) {
				t.Errorf("AddGrants: %v, want ErrCorrupt", err)
			}
			data, _ := os.ReadFile(filepath.Join(s.Dir(), "grants.json"))
			if string(data) != content {
				t.Errorf("a corrupt file was rewritten")
			}
		})
	}
}

func TestRevokeGrant(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	g := testGrant(ScopeExactSession, "s1", "ls")
	if err := s.AddGrants(ctx, []*Grant{g}, t0); err != nil {
		t.Fatal(err)
	}
	got, err := s.RevokeGrant(ctx, g.ID, "by hand", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got.RevokedAt == nil || got.RevocationReason != "by hand" {
		t.Fatalf("RevokeGrant = %+v", got)
	}
	if found, _ := s.UseGrants(ctx, "s1", []GrantQuery{query("ls")}, t0.Add(2*time.Hour)); found[0] != nil {
		t.Errorf("a revoked grant was used")
	}
	// Revoking again changes nothing.
	again, err := s.RevokeGrant(ctx, g.ID, "again", t0.Add(3*time.Hour))
	if err != nil || !again.RevokedAt.Equal(*got.RevokedAt) || again.RevocationReason != "by hand" {
		t.Errorf("second revoke = %+v, %v", again, err)
	}
	if _, err := s.RevokeGrant(ctx, "g-unknown", "", t0); !errors.Is(err, ErrNoGrant) {
		t.Errorf("unknown id: %v, want ErrNoGrant", err)
	}
	// A revoked grant stays listed, and is pruned PruneAfter later, when
	// its file is next written.
	if all, _ := s.ListGrants(ctx); len(all) != 1 {
		t.Fatalf("revoked grant not listed")
	}
	if err := s.AddGrants(ctx, []*Grant{testGrant(ScopeExactSession, "s1", "pwd")}, t0.Add(PruneAfter+2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	all, _ := s.ListGrants(ctx)
	if len(all) != 1 || all[0].Argv[0] != "pwd" {
		t.Errorf("after pruning: %+v", all)
	}
}

func TestGrantsConcurrent(t *testing.T) {
	s := newStore(t)
	const workers, each = 2, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				g := testGrant(ScopeDurableExact, "", "cmd", fmt.Sprintf("%d-%d", w, i))
				errs <- s.AddGrants(context.Background(), []*Grant{g}, t0)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.ListGrants(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != workers*each {
		t.Fatalf("%d grants stored, want %d", len(all), workers*each)
	}
	seen := map[string]bool{}
	for _, g := range all {
		seen[strings.Join(g.Argv, " ")] = true
	}
	if len(seen) != workers*each {
		t.Fatalf("%d distinct grants, want %d", len(seen), workers*each)
	}
}

func TestGrantsLockTimeout(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if err := s.AddGrants(ctx, []*Grant{testGrant(ScopeDurableExact, "", "ls")}, t0); err != nil {
		t.Fatal(err)
	}
	lock, err := openLockFile(filepath.Join(s.Dir(), grantsLock), false)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := waitLock(ctx, lock, "grants"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.UseGrants(short, "", []GrantQuery{query("ls")}, t0); !errors.Is(err, ErrLocked) {
		t.Fatalf("UseGrants under a held lock: %v, want ErrLocked", err)
	}
}

// A grants file is read from disk on every ask: whatever its bytes, decoding
// gives an error or grants that survive being written and read again.
func FuzzDecodeGrants(f *testing.F) {
	f.Add([]byte(`{"version":1,"grants":[]}`))
	f.Add([]byte(`{"version":1,"grants":[{"id":"g-0123456789abcdef","scope":"exact_session","session_id":"s","hash":"` + strings.Repeat("a", 64) + `","scope_hash":"` + strings.Repeat("b", 64) + `","argv":["ls"],"reviewer":"rv","created_at":"2026-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		gs, err := decodeGrants(data)
		if err != nil || gs == nil {
			return
		}
		out, err := encodeGrants(gs)
		if err != nil {
			t.Fatalf("decoded grants do not encode: %v", err)
		}
		again, err := decodeGrants(out)
		if err != nil || len(again) != len(gs) {
			t.Fatalf("round trip: %d grants, then %d, %v", len(gs), len(again), err)
		}
	})
}
