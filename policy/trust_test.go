package policy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/authority"
	"github.com/agent-shell/agent-shell/state"
)

// What an agent can write in the repository (the compile cache, files
// under .agent-shell/state) changes no decision of a configuration a human
// authorized; each test also shows the forged bytes would have worked
// where agent-shell does trust them, so that it can fail.

const denyCurlMatcher = `version = 1

[[script]]
id = "m"
kind = "shell_matcher"
src = "scripts/m.star"

[[rule]]
id = "no-curl"
action = "deny"
match = { script = "m" }
`

const (
	matchCurl = "def on_event(ctx, state):\n    return Match.yes(\"curl\") if ctx.basename == \"curl\" else Match.no(\"not curl\")\n"
	matchNone = "def on_event(ctx, state):\n    return Match.no(\"nothing\")\n"
)

// onlyCacheEntry returns the path and bytes of the one compiled program in
// root's compile cache.
func onlyCacheEntry(t *testing.T, root string) (string, []byte) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, StateSubpath, "cache", "*.bin"))
	if err != nil || len(paths) != 1 {
		t.Fatalf("cache entries %v, %v; want one", paths, err)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	return paths[0], data
}

// A cache entry replaced by another script's program (its header kept, so
// that only its bytes tell) is not used once the configuration is
// authorized: the pins recorded outside the repository say which program
// the source compiles to.
func TestPoisonedCacheEntryNotUsedWhenAuthorized(t *testing.T) {
	root, _ := writeRepo(t, denyCurlMatcher, map[string]string{"scripts/m.star": matchCurl})
	cfg := t.TempDir()
	authorize(t, root, cfg)
	e, au := LoadAuthorized(root, noEnv, cfg)
	if au.State != AuthAuthorized || e.DecideRequest("curl x", Request{}).Action != ActionDeny {
		t.Fatalf("before: %s", au.Summary())
	}
	path, genuine := onlyCacheEntry(t, root)

	// The program an agent would put there: a matcher that matches nothing.
	other, _ := writeRepo(t, denyCurlMatcher, map[string]string{"scripts/m.star": matchNone})
	if e := Load(other, noEnv); e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	_, otherEntry := onlyCacheEntry(t, other)
	header := genuine[:bytes.IndexByte(genuine, '\n')+1]
	poisoned := append(append([]byte{}, header...), otherEntry[bytes.IndexByte(otherEntry, '\n')+1:]...)
	if err := os.WriteFile(path, poisoned, 0o600); err != nil {
		t.Fatal(err)
	}

	// Unpinned (as for a configuration never authorized) the entry is used.
	if d := Load(root, noEnv).DecideRequest("curl x", Request{}); d.Action != ActionAllow {
		t.Fatalf("the poisoned entry was not even used without pins: %s (%s)", d.Action, d.Reason)
	}
	e, au = LoadAuthorized(root, noEnv, cfg)
	if d := e.DecideRequest("curl x", Request{}); d.Action != ActionDeny {
		t.Errorf("authorized, poisoned cache: %s (%s), want deny", d.Action, d.Reason)
	}
	if len(au.CacheRejected) != 1 || au.CacheRejected[0] != path {
		t.Errorf("CacheRejected %v, want %s", au.CacheRejected, path)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, genuine) {
		t.Errorf("the entry was not replaced by the authorized program")
	}

	// The same holds when the last authorized copy decides.
	writeFile(t, filepath.Join(root, ManifestSubpath), changedManifest)
	if err := os.WriteFile(path, poisoned, 0o600); err != nil {
		t.Fatal(err)
	}
	e, au = LoadAuthorized(root, noEnv, cfg)
	if d := e.DecideRequest("curl x", Request{}); au.State != AuthUnauthorized || d.Action != ActionDeny {
		t.Errorf("last authorized copy, poisoned cache: %s: %s (%s), want deny", au.Summary(), d.Action, d.Reason)
	}
}

// An authorization records who confirmed it and pins its programs, which
// were compiled from source (not read from the cache it is meant to check).
func TestAuthorizationRecordsWhoAndPins(t *testing.T) {
	root, _ := writeRepo(t, denyCurlMatcher, map[string]string{"scripts/m.star": matchCurl})
	Load(root, noEnv) // fills the cache
	path, genuine := onlyCacheEntry(t, root)
	header := genuine[:bytes.IndexByte(genuine, '\n')+1]
	if err := os.WriteFile(path, append(bytes.Clone(header), "garbage"...), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := t.TempDir()
	p, err := ProposeAuthorization(root, noEnv, cfg)
	if err != nil {
		t.Fatal(err)
	}
	by := &authority.Provenance{User: "ada", UID: 1000, Actor: "human", Terminal: "/dev/pts/1"}
	if err := p.Accept(nil, by, time.Now()); err != nil {
		t.Fatal(err)
	}
	rec, _, err := authority.Lookup(cfg, root)
	if err != nil || rec.By == nil || rec.By.User != "ada" || len(rec.Programs) != 1 {
		t.Fatalf("record %+v, %v", rec, err)
	}
	sum := sha256.Sum256(genuine[len(header):])
	for _, v := range rec.Programs {
		if v != hex.EncodeToString(sum[:]) {
			t.Errorf("pinned %s, want the program compiled from source", v)
		}
	}
	if _, au := LoadAuthorized(root, noEnv, cfg); au.By == nil || au.By.Terminal != "/dev/pts/1" {
		t.Errorf("Authorization.By %+v", au.By)
	}
}

// trustReviewer approves for good (a durable grant) only what its state
// trusts; otherwise it defers, and curl stays an ask.
const trustReviewer = `version = 1

[policy]
default = "allow"

[[rule]]
id = "curl-asks"
action = "ask"
match = { basename = "curl" }

[[script]]
id = "rv"
kind = "shell_reviewer"
lifecycle = "runtime"
src = "rv.star"

[[reviewer]]
script = "rv"

[approvals]
scopes = ["once", "durable_exact"]
`

const trustReviewerSrc = "def on_event(ctx, state):\n    if state.get(\"trusted\"):\n        return Review.approve_for(\"durable_exact\")\n    return Review.defer()\n"

// writeTrusted writes the reviewer's runtime state {"trusted": true} into
// the store at dir, as the reviewer itself would have.
func writeTrusted(t *testing.T, e *Engine, dir string) {
	t.Helper()
	sum := sha256.Sum256([]byte(trustReviewerSrc))
	id := state.Identity{ScriptID: "rv", Kind: "shell_reviewer", SourceSHA256: hex.EncodeToString(sum[:]), ManifestSHA256: e.Manifest.Digest}
	err := state.Open(dir).Transact(context.Background(), state.Runtime, "", id, func(map[string]any) (map[string]any, bool, error) {
		return map[string]any{"trusted": true}, true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func curlDecision(t *testing.T, root string, getenv func(string) string) Decision {
	t.Helper()
	e := Load(root, getenv)
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	return e.DecideRequest("curl https://example.com", Request{Cwd: root, SessionID: "s1"})
}

// Grants and script state live outside the repository (StateDir): a
// snapshot or a grant written under .agent-shell/state, where the files
// used to be and where an agent can write, approves nothing.
func TestForgedSnapshotAndGrantApproveNothing(t *testing.T) {
	root, _ := writeRepo(t, trustReviewer, map[string]string{"rv.star": trustReviewerSrc})
	getenv := configEnv(t)
	stateDir, err := StateDir(root, getenv)
	if err != nil {
		t.Fatal(err)
	}
	inRepo := filepath.Join(root, StateSubpath)
	e := Load(root, getenv)
	if d := curlDecision(t, root, getenv); d.Action != ActionAsk {
		t.Fatalf("no state: %s (%s), want ask", d.Action, d.Reason)
	}

	// A forged snapshot in the repository is not read.
	writeTrusted(t, e, inRepo)
	if d := curlDecision(t, root, getenv); d.Action != ActionAsk {
		t.Errorf("snapshot forged in the repository: %s (%s), want ask", d.Action, d.Reason)
	}
	// The same snapshot in StateDir is the reviewer's: it approves, and
	// leaves a durable grant there.
	writeTrusted(t, e, stateDir)
	if d := curlDecision(t, root, getenv); d.Action != ActionAllow || d.Review.Outcome != ReviewApproved {
		t.Fatalf("snapshot in the state folder: %s (%s), want approved", d.Action, d.Reason)
	}
	grants := filepath.Join(stateDir, "grants.json")
	if _, err := os.Stat(grants); err != nil {
		t.Fatal(err)
	}

	// The genuine grant moved into the repository, the reviewer's state
	// gone: the grant is not used there.
	if err := os.RemoveAll(filepath.Join(stateDir, "runtime")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(grants, filepath.Join(inRepo, "grants.json")); err != nil {
		t.Fatal(err)
	}
	if d := curlDecision(t, root, getenv); d.Action != ActionAsk {
		t.Errorf("grant in the repository: %s (%s), want ask", d.Action, d.Reason)
	}
	// Back in StateDir, it is.
	if err := os.Rename(filepath.Join(inRepo, "grants.json"), grants); err != nil {
		t.Fatal(err)
	}
	if d := curlDecision(t, root, getenv); d.Action != ActionAllow || d.Review.Outcome != ReviewGranted {
		t.Errorf("grant in the state folder: %s (%s), want granted", d.Action, d.Reason)
	}
}

// StateDir is under the configuration directory, one folder per
// repository, the same for two paths to one repository.
func TestStateDir(t *testing.T) {
	getenv := configEnv(t)
	root := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	a, err := StateDir(root, getenv)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := StateDir(link, getenv)
	c, _ := StateDir(t.TempDir(), getenv)
	cfg, _ := authority.ConfigDir(getenv)
	if a != b || a == c || filepath.Dir(filepath.Dir(a)) != cfg {
		t.Errorf("StateDir: %s, %s, %s (config %s)", a, b, c, cfg)
	}
	if _, err := StateDir(root, noEnv); err == nil {
		t.Error("StateDir without a configuration directory: no error")
	}
}

// A record whose pins do not cover the programs (another agent-shell
// version compiled them, or an older record has none): nothing is read
// from the cache, decisions stay the authorized ones, the count says so,
// and authorize offers to pin them again.
func TestUnpinnedProgramsCompileFromSource(t *testing.T) {
	root, _ := writeRepo(t, denyCurlMatcher, map[string]string{"scripts/m.star": matchCurl})
	cfg := t.TempDir()
	authorize(t, root, cfg)
	rec, _, err := authority.Lookup(cfg, root)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := ProposeAuthorization(root, noEnv, cfg); err != nil || !p.Unchanged || p.ProgramsChanged {
		t.Fatalf("proposal right after authorizing: %+v, %v", p, err)
	} else {
		p.Discard()
	}
	rec.Programs = map[string]string{hex.EncodeToString(make([]byte, 32)): hex.EncodeToString(make([]byte, 32))}
	if err := authority.Save(cfg, root, rec); err != nil {
		t.Fatal(err)
	}
	e, au := LoadAuthorized(root, noEnv, cfg)
	if d := e.DecideRequest("curl x", Request{}); au.State != AuthAuthorized || au.CacheUnpinned != 1 || len(au.CacheRejected) != 0 || d.Action != ActionDeny {
		t.Errorf("unpinned: %s, unpinned %d, rejected %v, curl %s", au.Summary(), au.CacheUnpinned, au.CacheRejected, d.Action)
	}
	p, err := ProposeAuthorization(root, noEnv, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Discard()
	if !p.Unchanged || !p.ProgramsChanged {
		t.Errorf("proposal: unchanged %v, programs changed %v; want both", p.Unchanged, p.ProgramsChanged)
	}
}
