package state

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/agent-shell/agent-shell/internal/atomicfile"
)

// Approval grants.
//
// A reviewer that approves a command for a scope leaves a grant, and a later
// request with the same identity is approved by it without asking again.
// Session grants (exact_session, prefix_session) live with their session,
// in sessions/<session>/grants.json; durable grants (durable_exact) in
// grants.json at the top of the Store, each with an expiry. Each file is
// one JSON object,
//
//	{"version":1,"grants":[{"id":…,"scope":…,…},…]}
//
// read and replaced as a whole, under the exclusive lock of the lock file
// beside it (grants.lock), like script state. A file that cannot be
// decoded is an error wrapping ErrCorrupt, never read as "no grants" (a
// caller fails closed). The scope `once` is never stored.
//
// What a grant's identity hashes is the caller's business (package policy):
// the Store compares the hashes (GrantHash) and, for prefix_session, the
// argv prefix.

// The approval scopes.
const (
	ScopeOnce          = "once"           // this request only; never stored
	ScopeExactSession  = "exact_session"  // the same request, in the same session
	ScopePrefixSession = "prefix_session" // a request whose argv starts with the approved one, in the same session
	ScopeDurableExact  = "durable_exact"  // the same request, in any session, until it expires
)

// Scopes lists the approval scopes, narrowest first.
var Scopes = []string{ScopeOnce, ScopeExactSession, ScopePrefixSession, ScopeDurableExact}

// ValidScope reports whether s is one of Scopes.
func ValidScope(s string) bool { return slices.Contains(Scopes, s) }

// SessionScope reports whether grants of scope s live with a session.
func SessionScope(s string) bool { return s == ScopeExactSession || s == ScopePrefixSession }

// GrantsVersion is the "version" of the grants files this package writes; a
// file with another version is an error.
const GrantsVersion = 1

// MaxGrantsFileBytes caps a grants file: a bigger one is not read, and a
// grant that would make it bigger is not stored.
const MaxGrantsFileBytes = 1 << 20

// PruneAfter is how long a revoked or expired grant stays listed: older
// ones are dropped when their file is next written.
const PruneAfter = 30 * 24 * time.Hour

const (
	grantsFile = "grants.json"
	grantsLock = "grants.lock"
	grantsTemp = "grants.json.tmp"
)

// ErrNoGrant is returned for a grant id that no grants file holds.
var ErrNoGrant = errors.New("no such grant")

// Grant is one stored approval.
type Grant struct {
	ID    string `json:"id"`
	Scope string `json:"scope"`
	// SessionID is the session of a session grant, "" for a durable one.
	SessionID string `json:"session_id,omitempty"`
	// Hash is the request's identity (GrantHash of the scope parts and the
	// argv); ScopeHash is the identity without the argv, which a
	// prefix_session grant matches together with its Argv prefix.
	Hash      string `json:"hash"`
	ScopeHash string `json:"scope_hash"`
	// What the hashes were computed from, for people: the approved argv
	// (the prefix of a prefix_session grant), its program and cwd, and the
	// manifest digest.
	Argv           []string `json:"argv"`
	Program        string   `json:"program,omitempty"`
	Cwd            string   `json:"cwd,omitempty"`
	ManifestSHA256 string   `json:"manifest_sha256,omitempty"`
	// Reviewer is the reviewer script that granted it.
	Reviewer string `json:"reviewer"`

	CreatedAt        time.Time  `json:"created_at"`
	ExpiresAt        *time.Time `json:"expires_at,omitempty"` // valid while now <= ExpiresAt
	LastUsedAt       *time.Time `json:"last_used_at,omitempty"`
	RevokedAt        *time.Time `json:"revoked_at,omitempty"`
	RevocationReason string     `json:"revocation_reason,omitempty"`
}

// Live reports whether the grant is in force at now: not revoked and not
// expired.
func (g *Grant) Live(now time.Time) bool {
	return g.RevokedAt == nil && (g.ExpiresAt == nil || !now.After(*g.ExpiresAt))
}

// GrantQuery is the identity of one request, as a grant lookup sees it.
type GrantQuery struct {
	Hash      string   // GrantHash(scope parts ++ argv)
	ScopeHash string   // GrantHash(scope parts)
	Argv      []string // for prefix_session grants
}

// Covers reports whether a grant (live or not) covers the request q made
// in session: exact grants by Hash, prefix_session by ScopeHash and an
// argv that starts with the grant's; session grants only in their own
// session.
func (g *Grant) Covers(session string, q GrantQuery) bool {
	switch g.Scope {
	case ScopeExactSession:
		return g.SessionID == session && session != "" && g.Hash == q.Hash
	case ScopePrefixSession:
		return g.SessionID == session && session != "" && g.ScopeHash == q.ScopeHash &&
			len(g.Argv) > 0 && len(q.Argv) >= len(g.Argv) && slices.Equal(q.Argv[:len(g.Argv)], g.Argv)
	case ScopeDurableExact:
		return g.Hash == q.Hash
	}
	return false
}

// GrantHash is the grant identity hash H(parts): the lowercase hex SHA-256
// of the concatenation, over the parts, of "<byte length>:<part>". The
// length prefix makes it unambiguous: ["ab", "c"] and ["a", "bc"] differ.
func GrantHash(parts ...string) string {
	h := sha256.New()
	var n [20]byte
	for _, p := range parts {
		h.Write(strconv.AppendInt(n[:0], int64(len(p)), 10))
		h.Write([]byte{':'})
		io.WriteString(h, p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// NewGrantID returns a fresh grant id: "g-" and 16 random hex digits.
func NewGrantID() string {
	var b [8]byte
	rand.Read(b[:]) //nolint:errcheck // never fails on Linux
	return "g-" + hex.EncodeToString(b[:])
}

// grantsPath is the grants file of a session, or the durable one when
// session is "".
func (s *Store) grantsPath(session string) (string, error) {
	if session == "" {
		return filepath.Join(s.dir, grantsFile), nil
	}
	d, err := s.SessionDir(session)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, grantsFile), nil
}

// AddGrants stores grants, each in its file (a session grant with its
// session, a durable one at the top), setting the ID and CreatedAt of those
// that have none. A grant of scope once, of an unknown scope, a session
// grant without a session or a durable one without an expiry is refused
// before anything is written.
func (s *Store) AddGrants(ctx context.Context, grants []*Grant, now time.Time) error {
	byFile := map[string][]*Grant{}
	var order []string
	for _, g := range grants {
		if g.ID == "" {
			g.ID = NewGrantID()
		}
		if g.CreatedAt.IsZero() {
			g.CreatedAt = now
		}
		if err := g.check(); err != nil {
			return fmt.Errorf("grant not stored: %w", err)
		}
		path, err := s.grantsPath(g.SessionID)
		if err != nil {
			return fmt.Errorf("grant not stored: %w", err)
		}
		if byFile[path] == nil {
			order = append(order, path)
		}
		byFile[path] = append(byFile[path], g)
	}
	for _, path := range order {
		add := byFile[path]
		err := s.grantsTx(ctx, path, true, now, func(cur []Grant) ([]Grant, bool, error) {
			for _, g := range add {
				cur = append(cur, *g)
			}
			return cur, true, nil
		})
		if err != nil {
			return fmt.Errorf("grant not stored: %w", err)
		}
	}
	return nil
}

// UseGrants finds, for each query, a live grant that covers it: first the
// grants of session (when it is not ""), then the durable ones. Each grant
// found has its LastUsedAt set to now. The result has one entry per query,
// nil where no grant covers it. An error (a corrupt file, a lock not taken
// in time) means nothing can be said: the caller must not approve.
func (s *Store) UseGrants(ctx context.Context, session string, queries []GrantQuery, now time.Time) ([]*Grant, error) {
	found := make([]*Grant, len(queries))
	var files []string
	if session != "" {
		p, err := s.grantsPath(session)
		if err != nil {
			return nil, err
		}
		files = append(files, p)
	}
	files = append(files, filepath.Join(s.dir, grantsFile))
	for _, path := range files {
		if !slices.Contains(found, nil) {
			break
		}
		err := s.grantsTx(ctx, path, false, now, func(cur []Grant) ([]Grant, bool, error) {
			used := false
			for qi, q := range queries {
				if found[qi] != nil {
					continue
				}
				for gi := range cur {
					g := &cur[gi]
					if g.Live(now) && g.Covers(session, q) {
						t := now
						g.LastUsedAt = &t
						c := *g
						found[qi] = &c
						used = true
						break
					}
				}
			}
			return cur, used, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return found, nil
}

// ListGrants returns every grant of the Store, durable and of every
// session, revoked and expired ones included, oldest first.
func (s *Store) ListGrants(ctx context.Context) ([]Grant, error) {
	files, err := s.grantsFiles()
	if err != nil {
		return nil, err
	}
	var all []Grant
	for _, path := range files {
		err := s.grantsTx(ctx, path, false, time.Time{}, func(cur []Grant) ([]Grant, bool, error) {
			all = append(all, cur...)
			return nil, false, nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(all, func(a, b Grant) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return all, nil
}

// RevokeGrant marks the grant id revoked at now, for reason, and returns
// it. A grant already revoked is returned as it is. An unknown id gives an
// error wrapping ErrNoGrant.
func (s *Store) RevokeGrant(ctx context.Context, id, reason string, now time.Time) (Grant, error) {
	files, err := s.grantsFiles()
	if err != nil {
		return Grant{}, err
	}
	var out *Grant
	for _, path := range files {
		err := s.grantsTx(ctx, path, false, now, func(cur []Grant) ([]Grant, bool, error) {
			for i := range cur {
				if cur[i].ID != id {
					continue
				}
				changed := false
				if cur[i].RevokedAt == nil {
					t := now
					cur[i].RevokedAt, cur[i].RevocationReason = &t, reason
					changed = true
				}
				g := cur[i]
				out = &g
				return cur, changed, nil
			}
			return nil, false, nil
		})
		if err != nil {
			return Grant{}, err
		}
		if out != nil {
			return *out, nil
		}
	}
	return Grant{}, fmt.Errorf("%w: %s", ErrNoGrant, id)
}

// grantsFiles lists the durable grants file and every session's that
// exists.
func (s *Store) grantsFiles() ([]string, error) {
	files := []string{filepath.Join(s.dir, grantsFile)}
	sessions, err := filepath.Glob(filepath.Join(s.dir, "sessions", "*", grantsFile))
	if err != nil {
		return nil, err
	}
	slices.Sort(sessions)
	return append(files, sessions...), nil
}

// grantsTx runs fn on the grants of one file under its lock, and replaces
// the file with what fn returns when commit is true, dropping grants
// revoked or expired more than PruneAfter before now. Without create, a
// missing folder means no grants, and fn must not commit.
func (s *Store) grantsTx(ctx context.Context, path string, create bool, now time.Time, fn func(cur []Grant) (next []Grant, commit bool, err error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	lock, err := openLockFile(filepath.Join(dir, grantsLock), create)
	if err != nil {
		return err
	}
	if lock == nil {
		_, _, err := fn(nil)
		return err
	}
	defer lock.Close()
	if err := waitLock(ctx, lock, path); err != nil {
		return err
	}
	data, err := readGrantsFile(path)
	if err != nil {
		return err
	}
	cur, err := decodeGrants(data)
	if err != nil {
		return fmt.Errorf("%w %s: %v", ErrCorrupt, path, err)
	}
	next, commit, err := fn(cur)
	if err != nil || !commit {
		return err
	}
	next = slices.DeleteFunc(next, func(g Grant) bool {
		return g.RevokedAt != nil && now.Sub(*g.RevokedAt) > PruneAfter ||
			g.ExpiresAt != nil && now.Sub(*g.ExpiresAt) > PruneAfter
	})
	out, err := encodeGrants(next)
	if err != nil {
		return err
	}
	if len(out) > MaxGrantsFileBytes {
		return fmt.Errorf("%s: grants over the %d-byte limit (revoke some with `agent-shell grants revoke`)", path, MaxGrantsFileBytes)
	}
	return atomicfile.WriteLocked(path, filepath.Join(filepath.Dir(path), grantsTemp), out, 0o600)
}

// grantsFileJSON is the layout of a grants file.
type grantsFileJSON struct {
	Version int     `json:"version"`
	Grants  []Grant `json:"grants"`
}

func encodeGrants(gs []Grant) ([]byte, error) {
	if gs == nil {
		gs = []Grant{}
	}
	b, err := json.MarshalIndent(grantsFileJSON{Version: GrantsVersion, Grants: gs}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// decodeGrants decodes a grants file strictly: unknown fields, trailing
// data, another version or an invalid grant are errors. nil data is no
// grants.
func decodeGrants(data []byte) ([]Grant, error) {
	if data == nil {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f struct {
		Version *int     `json:"version"`
		Grants  *[]Grant `json:"grants"`
	}
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the grants object")
	}
	if f.Version == nil || *f.Version != GrantsVersion {
		return nil, fmt.Errorf("want version %d", GrantsVersion)
	}
	if f.Grants == nil {
		return nil, errors.New("missing grants")
	}
	ids := map[string]bool{}
	for i := range *f.Grants {
		g := &(*f.Grants)[i]
		if err := g.check(); err != nil {
			return nil, fmt.Errorf("grant %d: %w", i+1, err)
		}
		if ids[g.ID] {
			return nil, fmt.Errorf("grant %d: duplicate id %q", i+1, g.ID)
		}
		ids[g.ID] = true
	}
	return *f.Grants, nil
}

// check validates a grant as it is stored.
func (g *Grant) check() error {
	switch {
	case !safeName(g.ID):
		return fmt.Errorf("invalid grant id %q", g.ID)
	case !ValidScope(g.Scope) || g.Scope == ScopeOnce:
		return fmt.Errorf("grant %s: scope %q is not stored", g.ID, g.Scope)
	case SessionScope(g.Scope) && g.SessionID == "":
		return fmt.Errorf("grant %s: a %s grant needs a session", g.ID, g.Scope)
	case !SessionScope(g.Scope) && g.SessionID != "":
		return fmt.Errorf("grant %s: a %s grant has no session", g.ID, g.Scope)
	case g.Scope == ScopeDurableExact && g.ExpiresAt == nil:
		return fmt.Errorf("grant %s: a durable grant needs an expiry", g.ID)
	case !isSHA256Hex(g.Hash) || !isSHA256Hex(g.ScopeHash):
		return fmt.Errorf("grant %s: invalid hash", g.ID)
	case len(g.Argv) == 0:
		return fmt.Errorf("grant %s: empty argv", g.ID)
	case g.CreatedAt.IsZero():
		return fmt.Errorf("grant %s: missing created_at", g.ID)
	}
	return nil
}

// readGrantsFile returns a grants file's bytes, or nil when there is none.
func readGrantsFile(path string) ([]byte, error) {
	fd, err := openNoPoll(path, syscall.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return nil, nil
		}
		return nil, fmt.Errorf("read grants: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read grants: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w %s: not a regular file", ErrCorrupt, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxGrantsFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read grants: %w", err)
	}
	if len(data) > MaxGrantsFileBytes {
		return nil, fmt.Errorf("%w %s: over the %d-byte limit", ErrCorrupt, path, MaxGrantsFileBytes)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%w %s: empty file", ErrCorrupt, path)
	}
	return data, nil
}
