package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/authority"
	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/internal/jsonstr"
)

// The values of [policy] unauthorized.
const (
	// UnauthorizedLastAuthorized decides with the last authorized copy.
	UnauthorizedLastAuthorized = "last-authorized"
	// UnauthorizedDeny denies every call.
	UnauthorizedDeny = "deny"
	// UnauthorizedWarn decides with the current configuration, saying so.
	UnauthorizedWarn = "warn"
)

func validUnauthorized(s string) bool {
	return s == UnauthorizedLastAuthorized || s == UnauthorizedDeny || s == UnauthorizedWarn
}

// The notes added to decisions taken while the configuration is not the
// authorized one.
const (
	NoteLastAuthorized = " (decided by the last authorized configuration; the current one changed since `agent-shell authorize`)"
	NoteWarn           = " (the current configuration is not authorized: it changed since `agent-shell authorize`)"
)

// ErrUnauthorized is the LoadErr of an engine that denies everything
// because no authorized configuration can decide.
var ErrUnauthorized = errors.New("the agent-shell configuration is not authorized")

// ErrNotAuthorizable is returned for a configuration that does not load:
// authorizing it would bless a policy that denies everything, or worse.
var ErrNotAuthorizable = errors.New("the configuration does not load, so it cannot be authorized")

// ConfigDigest is the digest of a whole configuration: the SHA-256 of
// policy.json's lists (in a canonical form: only what they say counts, not
// how the file is spaced) and of the manifest's digest, which covers its
// text and every script and module it runs. A missing file counts as
// "none".
func ConfigDigest(pf *PolicyFile, m *Manifest) string {
	h := sha256.New()
	io.WriteString(h, "agent-shell configuration 1\n")
	if pf == nil {
		io.WriteString(h, "policy.json none\n")
	} else {
		sum := sha256.Sum256(policyFileCanon(pf))
		fmt.Fprintf(h, "policy.json %x\n", sum)
	}
	if m == nil {
		io.WriteString(h, "manifest none\n")
	} else {
		fmt.Fprintf(h, "manifest %s\n", m.Digest)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// policyFileCanon is policy.json's lists as encoding/json marshals
// {"allow": [...], "has_allow": ..., "deny": [...]}, byte for byte (the
// digests of configurations authorized before depend on it), written by
// hand: json.Marshal builds its encoder for the type by reflection on first
// use, 1.5% of a hook call.
func policyFileCanon(pf *PolicyFile) []byte {
	b := append(make([]byte, 0, 256), `{"allow":`...)
	b = appendJSONStrings(b, pf.Allow)
	b = append(b, `,"has_allow":`...)
	b = strconv.AppendBool(b, pf.HasAllow)
	b = append(b, `,"deny":`...)
	b = appendJSONStrings(b, pf.Deny)
	return append(b, '}')
}

// appendJSONStrings appends list as encoding/json encodes a []string: null
// when nil, each string as jsonstr.AppendMarshal writes it.
func appendJSONStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonstr.AppendMarshal(b, s)
	}
	return append(b, ']')
}

// LoadFrom reads the policy under root, as Load does, but keeps script
// state and compiled programs under stateRoot: an authorized copy is
// loaded with the repository's own state.
func LoadFrom(root, stateRoot string, getenv func(string) string) *Engine {
	return loadFrom(root, stateRoot, getenv, nil)
}

// LoadFromSource is Load with every script compiled from its source: no
// program is read from the compile cache, whoever wrote it, and none is
// written. It is how a configuration is checked before a human authorizes
// it.
func LoadFromSource(root string, getenv func(string) string) *Engine {
	return loadFrom(root, root, getenv, map[string]string{})
}

// authNote is what LoadAuthorized adds to an engine's decisions.
type authNote struct {
	deny   string // when set, every call is denied with this reason
	suffix string // added to the end of every decision's reason
}

// withNote adds the authorization's note to the end of the reason.
func (d Decision) withNote(note string) Decision {
	if note != "" && !strings.HasSuffix(d.Reason, note) {
		d.Reason += note
	}
	return d
}

// AuthState says whether the configuration is authorized.
type AuthState string

const (
	// AuthNever: the repository has no authorization yet; its
	// configuration is used as it is.
	AuthNever AuthState = "never"
	// AuthAuthorized: the configuration is the one last authorized.
	AuthAuthorized AuthState = "authorized"
	// AuthUnauthorized: the configuration changed since it was last
	// authorized (or the authorization cannot be checked).
	AuthUnauthorized AuthState = "unauthorized"
)

// Authorization is what LoadAuthorized found.
type Authorization struct {
	State AuthState
	// Mode is, when State is unauthorized, what decides: the authorized
	// copy's [policy] unauthorized, or deny when Problem is set.
	Mode string
	// Digest is the current configuration's digest, "" when it does not
	// load (LoadErr says why).
	Digest  string
	LoadErr error
	// The record, when there is one.
	AuthorizedDigest string
	AuthorizedAt     time.Time
	Hosts            []string
	// Problem says why nothing authorized can decide, so everything is
	// denied: the authorization store cannot be read, or the authorized
	// copy is missing or was changed.
	Problem string
	// By is who confirmed the authorization, nil when the record does not
	// say (it was written before agent-shell kept it).
	By *authority.Provenance
	// CacheRejected lists the compile-cache entries that were not the
	// programs the authorization pinned: they were not used.
	CacheRejected []string
	// CacheUnpinned counts the programs the authorization does not pin
	// (a record from before pins, or another agent-shell version compiles
	// them): they are compiled from source on every call.
	CacheUnpinned int
}

// EventDue reports whether a decision taken under this authorization must
// be recorded as a config_unauthorized event.
func (a Authorization) EventDue() bool { return a.State == AuthUnauthorized }

// Summary says in one line what the authorization is and what decides,
// for the config_unauthorized event and for status.
func (a Authorization) Summary() string {
	switch a.State {
	case AuthNever:
		return "the configuration was never authorized: it decides as it is until `agent-shell authorize`"
	case AuthAuthorized:
		return fmt.Sprintf("the configuration %s is authorized (%s)", short(a.Digest), a.AuthorizedAt.UTC().Format(time.RFC3339))
	}
	now := "does not load"
	if a.Digest != "" {
		now = short(a.Digest)
	}
	if a.Problem != "" {
		return fmt.Sprintf("the configuration is not authorized (current %s) and %s: every call is denied", now, a.Problem)
	}
	what := map[string]string{
		UnauthorizedLastAuthorized: "the last authorized configuration decides",
		UnauthorizedDeny:           "every call is denied ([policy] unauthorized = \"deny\")",
		UnauthorizedWarn:           "the current configuration decides ([policy] unauthorized = \"warn\")",
	}[a.Mode]
	return fmt.Sprintf("the configuration changed since it was authorized (current %s, authorized %s on %s): %s",
		now, short(a.AuthorizedDigest), a.AuthorizedAt.UTC().Format(time.RFC3339), what)
}

func short(d string) string {
	if len(d) > 16 {
		return d[:16]
	}
	return d
}

// LoadAuthorized loads the policy under root as the authorization recorded
// in cfgDir (see authority.ConfigDir; "" for none) says:
//
//   - no record: the current configuration, as it is (a new repository is
//     not locked out before its first `agent-shell authorize`);
//   - the current configuration's digest is the authorized one: it decides,
//     and the engine is marked Authorized;
//   - otherwise the authorized copy's [policy] unauthorized (never the
//     current manifest's: that is what is under suspicion) says what
//     decides: the authorized copy (last-authorized, the default; its
//     reasons say so), nothing (deny), or the current one (warn, saying
//     so). A copy that is missing or whose digest is not the recorded one
//     was tampered with: everything is denied, as it is when the store
//     cannot be read.
func LoadAuthorized(root string, getenv func(string) string, cfgDir string) (*Engine, Authorization) {
	if cfgDir == "" {
		cur := Load(root, getenv)
		return cur, Authorization{State: AuthNever, Digest: cur.ConfigDigest, LoadErr: cur.LoadErr}
	}
	rec, ok, err := authority.Lookup(cfgDir, root)
	var pins map[string]string
	if ok || err != nil {
		// What a human authorized is checked: a cached program is used
		// only when the record pins it (a record that cannot be read pins
		// nothing).
		pins = maps.Clone(rec.Programs)
		if pins == nil {
			pins = map[string]string{}
		}
	}
	cur := loadFrom(root, root, getenv, pins)
	au := Authorization{State: AuthNever, Digest: cur.ConfigDigest, LoadErr: cur.LoadErr}
	au.CacheRejected, au.CacheUnpinned = cur.cacheChecks()
	if err != nil {
		au.State, au.Mode, au.Problem = AuthUnauthorized, UnauthorizedDeny, "the authorization cannot be checked: "+err.Error()
		return denyAll(au), au
	}
	if !ok {
		// Copies without a record: the record was lost or deleted, which
		// must not make a changed configuration look never authorized.
		if entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(AuthorizedSubpath))); err == nil && len(entries) > 0 {
			au.State, au.Mode = AuthUnauthorized, UnauthorizedDeny
			au.Problem = fmt.Sprintf("this repository was authorized (copies in %s), but the record of it in %s is missing; a human runs 'agent-shell authorize'",
				AuthorizedSubpath, cfgDir)
			return denyAll(au), au
		}
		return cur, au
	}
	au.AuthorizedDigest, au.AuthorizedAt, au.Hosts, au.By = rec.Digest, rec.AuthorizedAt, rec.Hosts, rec.By
	if cur.LoadErr == nil && cur.ConfigDigest == rec.Digest {
		au.State = AuthAuthorized
		cur.Authorized = true
		return cur, au
	}
	au.State = AuthUnauthorized
	snap, err := loadAuthorizedCopy(root, rec.Digest, getenv, pins)
	if err != nil {
		au.Mode, au.Problem = UnauthorizedDeny, err.Error()
		return denyAll(au), au
	}
	rejected, unpinned := snap.cacheChecks()
	au.CacheRejected, au.CacheUnpinned = append(au.CacheRejected, rejected...), au.CacheUnpinned+unpinned
	au.Mode = UnauthorizedLastAuthorized
	if snap.Manifest != nil {
		au.Mode = snap.Manifest.Policy.Unauthorized
	}
	switch au.Mode {
	case UnauthorizedDeny:
		return denyAll(au), au
	case UnauthorizedWarn:
		cur.auth.suffix = NoteWarn
		return cur, au
	}
	snap.Authorized = true
	snap.auth.suffix = NoteLastAuthorized
	return snap, au
}

// cacheChecks says which compile-cache entries the engine's scripts did
// not use because they were not the programs pinned, and how many of its
// programs no pin covered.
func (e *Engine) cacheChecks() (rejected []string, unpinned int) {
	if e.Manifest == nil || e.Manifest.Runtime() == nil {
		return nil, 0
	}
	rt := e.Manifest.Runtime()
	return rt.CacheRejected(), rt.CacheUnpinned()
}

// programSums are the compiled programs of the engine's scripts, for an
// authorization to pin.
func (e *Engine) programSums() map[string]string {
	sums := map[string]string{}
	if e.Manifest == nil {
		return sums
	}
	if rt := e.Manifest.Runtime(); rt != nil && rt.ProgramSums() != nil {
		sums = rt.ProgramSums()
	}
	if sn := e.Manifest.snap; sn.sum != "" {
		sums[sn.key] = sn.sum // the manifest's snapshot (snapshot.go)
	}
	return sums
}

// denyAll is an engine that denies every call, saying why and what to do.
func denyAll(au Authorization) *Engine {
	var reason string
	if au.Problem != "" {
		reason = fmt.Sprintf("agent-shell configuration not authorized, and no authorized copy can decide (%s): every call is denied until a human reviews the configuration with `agent-shell authorize`", au.Problem)
	} else {
		reason = "agent-shell configuration not authorized: it changed since `agent-shell authorize`, and the authorized one says to deny every call until a human reviews the change with `agent-shell authorize`"
	}
	return &Engine{LoadErr: fmt.Errorf("%w: %s", ErrUnauthorized, reason), auth: authNote{deny: reason}}
}

// withoutPolicyOverride hides AGENTSHELL_POLICY_PATH: an authorized copy
// holds the policy file that was in force at its place.
func withoutPolicyOverride(getenv func(string) string) func(string) string {
	return func(k string) string {
		if k == "AGENTSHELL_POLICY_PATH" {
			return ""
		}
		return getenv(k)
	}
}

// AuthorizedCopy is the folder of the authorized copy of a configuration.
func AuthorizedCopy(root, digest string) string {
	return filepath.Join(root, filepath.FromSlash(AuthorizedSubpath), digest)
}

// CheckAuthorizedCopy reports why the authorized copy of the configuration
// with digest cannot decide (missing, not loading, or changed), nil when it
// can. While the configuration in force is the authorized one the copy is
// not used, so this is how a damaged copy is found before it matters.
func CheckAuthorizedCopy(root, digest string, getenv func(string) string) error {
	_, err := loadAuthorizedCopy(root, digest, getenv, map[string]string{})
	return err
}

// loadAuthorizedCopy loads the authorized copy of the configuration with
// digest, trusting the compile cache as pins say, and checks that it still
// is that configuration.
func loadAuthorizedCopy(root, digest string, getenv func(string) string, pins map[string]string) (*Engine, error) {
	dir := AuthorizedCopy(root, digest)
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("the authorized copy %s is missing", relTo(root, dir))
	case err != nil:
		return nil, fmt.Errorf("the authorized copy: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("the authorized copy %s is not a folder", relTo(root, dir))
	}
	e := loadFrom(dir, root, withoutPolicyOverride(getenv), pins)
	if e.LoadErr != nil {
		return nil, fmt.Errorf("the authorized copy %s does not load: %v", relTo(root, dir), e.LoadErr)
	}
	if e.ConfigDigest != digest {
		return nil, fmt.Errorf("the authorized copy %s was changed: its digest is %s, not the authorized %s", relTo(root, dir), short(e.ConfigDigest), short(digest))
	}
	return e, nil
}

func relTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

// ConfigTree reads the configuration's files: every regular file under
// ConfigFolder but Copilot's hook registration (hooks.json, which is not
// policy), keyed by root-relative path. When AGENTSHELL_POLICY_PATH points
// elsewhere, the file it names stands in for policy.json. skipped lists the
// entries left out because they are not regular files (symbolic links).
func ConfigTree(root string, getenv func(string) string) (t authority.Tree, skipped []string, err error) {
	t, skipped, err = authority.ReadTree(root, ConfigFolder, func(rel string) bool { return rel == hostapi.CopilotHooksFile })
	if err != nil {
		return nil, nil, fmt.Errorf("read the configuration: %w", err)
	}
	if override := getenv("AGENTSHELL_POLICY_PATH"); override != "" {
		path := override
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		data, err := readConfined(root, path, maxPolicyFileBytes)
		if err != nil {
			return nil, nil, fmt.Errorf("policy %s: %w", path, err)
		}
		t[PolicyFileSubpath] = data
	}
	return t, skipped, nil
}

// Proposal is a configuration put up for authorization: its files staged
// as the authorized copy would hold them, loaded from there, and compared
// with the last authorized copy. Accept records it; Discard drops it.
type Proposal struct {
	Root   string
	Digest string
	// Engine is the configuration as loaded from the staged copy.
	Engine *Engine
	// Files lists the configuration's files, root-relative; Skipped the
	// entries left out (symbolic links).
	Files, Skipped []string
	// Previous is the record of the last authorization, nil when there is
	// none.
	Previous *authority.Record
	// PreviousProblem says why the last authorized copy cannot be
	// compared with (missing or changed): Diff then shows every file as
	// new.
	PreviousProblem string
	// Diff shows how the files differ from the last authorized copy.
	Diff string
	// Unchanged: the digest is the one authorized and its copy is intact.
	Unchanged bool
	// ProgramsChanged: the scripts compile to other programs (or the
	// manifest to another snapshot) than the authorization pinned (another
	// agent-shell version, or a record without pins), so that the cache
	// would go unused until authorized.
	ProgramsChanged bool

	cfgDir   string
	staged   string
	programs map[string]string // the staged scripts' programs, compiled from source, to pin
}

// ProposeAuthorization stages the configuration under root for
// authorization. A configuration that does not load is refused
// (ErrNotAuthorizable). The digest recorded by Accept is the staged copy's,
// so what is authorized is exactly what was shown, whatever changes in the
// repository meanwhile.
func ProposeAuthorization(root string, getenv func(string) string, cfgDir string) (*Proposal, error) {
	if cfgDir == "" {
		return nil, authority.ErrNoConfigDir
	}
	rec, ok, err := authority.Lookup(cfgDir, root)
	if err != nil {
		return nil, err
	}
	if cur := LoadFromSource(root, getenv); cur.LoadErr != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotAuthorizable, cur.LoadErr)
	}
	tree, skipped, err := ConfigTree(root, getenv)
	if err != nil {
		return nil, err
	}
	staged, err := authority.Stage(filepath.Join(root, filepath.FromSlash(AuthorizedSubpath)), tree)
	if err != nil {
		return nil, fmt.Errorf("stage the authorized copy: %w", err)
	}
	p := &Proposal{Root: root, Files: tree.Paths(), Skipped: skipped, cfgDir: cfgDir, staged: staged}
	// Compiled from source: what is pinned must be the programs of what is
	// shown, not whatever the cache holds.
	e := loadFrom(staged, root, withoutPolicyOverride(getenv), map[string]string{})
	if e.LoadErr != nil {
		p.Discard()
		msg := strings.ReplaceAll(e.LoadErr.Error(), staged+string(filepath.Separator), "")
		return nil, fmt.Errorf("%w: %s", ErrNotAuthorizable, msg)
	}
	p.Engine, p.Digest, p.programs = e, e.ConfigDigest, e.programSums()
	var prev authority.Tree
	if ok {
		p.Previous = &rec
		if _, err := loadAuthorizedCopy(root, rec.Digest, getenv, map[string]string{}); err != nil {
			p.PreviousProblem = err.Error()
		} else if prev, _, err = authority.ReadTree(AuthorizedCopy(root, rec.Digest), ConfigFolder, nil); err != nil {
			p.PreviousProblem = "the authorized copy cannot be read: " + err.Error()
			prev = nil
		}
		p.Unchanged = p.PreviousProblem == "" && rec.Digest == p.Digest
		p.ProgramsChanged = !maps.Equal(rec.Programs, p.programs)
	}
	p.Diff = authority.Diff(prev, tree)
	return p, nil
}

// Accept records the proposal as authorized, by whom, with the hosts whose
// hook registration runs agent-shell and the programs its scripts compile
// to, and puts its copy in place (removing the older ones).
func (p *Proposal) Accept(hosts []string, by *authority.Provenance, now time.Time) error {
	if p.staged == "" {
		return errors.New("the proposal was already accepted or discarded")
	}
	parent := filepath.Join(p.Root, filepath.FromSlash(AuthorizedSubpath))
	final := AuthorizedCopy(p.Root, p.Digest)
	hosts = slices.Clone(hosts)
	slices.Sort(hosts)
	err := authority.Transact(p.cfgDir, p.Root, authority.Record{Digest: p.Digest, AuthorizedAt: now, Hosts: hosts, By: by, Programs: p.programs},
		func() error { return authority.Commit(p.staged, final) },
		func() { _ = authority.Prune(parent, p.Digest) })
	if err != nil {
		p.Discard()
		return fmt.Errorf("authorize: %w", err)
	}
	p.staged = ""
	return nil
}

// Discard removes the staged copy.
func (p *Proposal) Discard() {
	if p.staged != "" {
		os.RemoveAll(p.staged)
		p.staged = ""
	}
}
