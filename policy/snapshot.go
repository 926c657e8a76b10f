package policy

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/agent-shell/agent-shell/internal/lazy"

	"github.com/agent-shell/agent-shell/internal/atomicfile"
)

// snapshotState is what a manifest knows of its snapshot.
type snapshotState struct {
	key  string // the cache key, "" when there is no cache
	sum  string // SHA-256 of the snapshot: read as pinned, or written
	used bool   // the manifest was read from its snapshot: already checked
}

// maxSnapshotBytes bounds a snapshot read: several times the largest
// manifest's text.
const maxSnapshotBytes = 8 * maxManifestBytes

// buildIdentity names this build for the snapshot key: another build may
// check manifests otherwise.
var buildIdentity = lazy.Value[string]{New: func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var b strings.Builder
	b.WriteString(bi.GoVersion + " " + bi.Main.Path + " " + bi.Main.Version + " " + bi.Main.Sum)
	for _, s := range bi.Settings {
		if strings.HasPrefix(s.Key, "vcs.") {
			b.WriteString(" " + s.Key + "=" + s.Value)
		}
	}
	return b.String()
}}

func snapshotKey(data []byte) string {
	h := sha256.New()
	io.WriteString(h, snapshotMagic)
	io.WriteString(h, buildIdentity.Get())
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func snapshotPath(cacheDir, key string) string {
	return filepath.Join(cacheDir, "manifest-"+key[:40]+".snap")
}

// loadManifestCached is LoadManifest from the manifest's snapshot when one
// may be used (see above).
func loadManifestCached(root string, opts RuntimeOptions) (*Manifest, error) {
	path := filepath.Join(root, ManifestSubpath)
	data, err := readConfined(root, path, maxManifestBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoManifest
		}
		return nil, &ManifestError{Path: path, Msg: err.Error()}
	}
	if opts.CacheDir == "" {
		return ParseManifest(path, data)
	}
	key := snapshotKey(data)
	if m := readSnapshot(opts, key, path, data); m != nil {
		return m, nil
	}
	m, err := ParseManifest(path, data)
	if err == nil {
		m.snap.key = key
	}
	return m, err
}

// readSnapshot returns the manifest of the snapshot for key when there is
// one that may be used, else nil.
func readSnapshot(opts RuntimeOptions, key, path string, data []byte) *Manifest {
	want, pinned := opts.CachePins[key]
	if opts.CachePins != nil && !pinned {
		return nil // nothing authorized to compare it with
	}
	f, err := os.OpenFile(snapshotPath(opts.CacheDir, key), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	snap, err := io.ReadAll(io.LimitReader(f, maxSnapshotBytes+1))
	if err != nil || len(snap) > maxSnapshotBytes {
		return nil
	}
	var sum string
	if pinned {
		s := sha256.Sum256(snap)
		if sum = hex.EncodeToString(s[:]); sum != want {
			return nil
		}
	}
	m, err := decodeSnapshot(path, string(data), snap)
	if err != nil {
		return nil
	}
	m.snap = snapshotState{key: key, sum: sum, used: true}
	return m
}

// saveSnapshot writes the snapshot of a manifest checked in full, when it
// may be used later: always while nothing is pinned, else only when it is
// the one pinned.
func (m *Manifest) saveSnapshot(opts RuntimeOptions) {
	if m.snap.key == "" || opts.CacheDir == "" {
		return
	}
	snap, ok := encodeSnapshot(m)
	if !ok {
		return
	}
	s := sha256.Sum256(snap)
	m.snap.sum = hex.EncodeToString(s[:])
	if want, pinned := opts.CachePins[m.snap.key]; opts.CachePins == nil || pinned && want == m.snap.sum {
		_ = atomicfile.WriteCache(snapshotPath(opts.CacheDir, m.snap.key), snap) // not written: the next load is in full
	}
}

const snapshotMagic = "agent-shell manifest snapshot 1\n"

var errSnapshot = errors.New("bad manifest snapshot")

// snapshotable reports whether m is made only of what a snapshot holds:
// [policy] and rules without scripts, packs or when.
func snapshotable(m *Manifest) bool {
	if len(m.Scripts)+len(m.Analyzers)+len(m.Reviewers)+len(m.Interceptors)+len(m.Packs) > 0 || m.Audit.Filter != "" {
		return false
	}
	var ok func(mt *Matcher) bool
	ok = func(mt *Matcher) bool {
		if mt == nil {
			return true
		}
		if mt.Script != "" {
			return false
		}
		for _, s := range append(append([]*Matcher{}, mt.All...), mt.Any...) {
			if !ok(s) {
				return false
			}
		}
		return ok(mt.Not)
	}
	for _, r := range m.Rules {
		if r.When != nil || r.pack != "" || !ok(r.Match) {
			return false
		}
	}
	return true
}

type snapWriter struct {
	b                 []byte
	strings, matchers int
}

func (w *snapWriter) uint(n uint64) { w.b = binary.AppendUvarint(w.b, n) }
func (w *snapWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}
func (w *snapWriter) list(l []string) {
	w.uint(uint64(len(l)))
	for _, s := range l {
		w.str(s)
	}
	w.strings += len(l)
}

// slice writes a list whose nil and empty differ (set defaults).
func (w *snapWriter) slice(l []string) {
	if l == nil {
		w.uint(0)
		return
	}
	w.uint(1)
	w.list(l)
}

func (w *snapWriter) matcher(mt *Matcher) {
	if mt == nil {
		w.uint(0)
		return
	}
	w.uint(1)
	w.matchers++
	for _, l := range [][]string{mt.Program, mt.Basename, mt.CommandName, mt.ArgvPrefix, mt.canonPrefix, mt.Argument, mt.ArgumentContains, mt.GitSubcommand, mt.Effect} {
		w.list(l)
	}
	w.str(mt.ProgramRegex)
	switch {
	case mt.NoUnknownEffects == nil:
		w.uint(0)
	case *mt.NoUnknownEffects:
		w.uint(2)
	default:
		w.uint(1)
	}
	for _, subs := range [][]*Matcher{mt.All, mt.Any} {
		w.uint(uint64(len(subs)))
		for _, s := range subs {
			w.matcher(s)
		}
	}
	w.matcher(mt.Not)
}

// encodeSnapshot returns the snapshot of a validated manifest, false when
// the manifest holds what a snapshot does not.
func encodeSnapshot(m *Manifest) ([]byte, bool) {
	if !snapshotable(m) {
		return nil, false
	}
	body := &snapWriter{}
	body.uint(uint64(m.Version))
	body.str(string(m.Policy.Default))
	body.str(string(m.Policy.Unknown))
	body.str(m.Policy.Unauthorized)
	if m.Policy.SoleGate {
		body.uint(1)
	} else {
		body.uint(0)
	}
	body.slice(m.Guard.AllowAgentEdits)
	body.slice(m.Approvals.Scopes)
	body.uint(uint64(m.Approvals.DurableDays))
	body.str(m.Enforce.Mode)
	body.slice(m.Enforce.Write)
	body.str(m.Enforce.Network)
	body.uint(uint64(len(m.Rules)))
	for _, r := range m.Rules {
		body.str(r.ID)
		body.str(string(r.Action))
		body.str(r.Reason)
		body.list(r.Examples.Match)
		body.list(r.Examples.NotMatch)
		body.matcher(r.Match)
	}
	w := &snapWriter{b: []byte(snapshotMagic)}
	w.uint(uint64(body.strings))
	w.uint(uint64(body.matchers))
	return append(w.b, body.b...), true
}

type snapReader struct {
	s        string // the whole file, once
	i        int
	err      bool
	strs     []string
	matchers []Matcher
}

func (r *snapReader) uint() uint64 {
	if r.err {
		return 0
	}
	var n uint64
	var shift uint
	for {
		if r.i >= len(r.s) || shift > 63 {
			r.err = true
			return 0
		}
		c := r.s[r.i]
		r.i++
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
		shift += 7
	}
}

func (r *snapReader) str() string {
	n := r.uint()
	if r.err || n > uint64(len(r.s)-r.i) {
		r.err = true
		return ""
	}
	s := r.s[r.i : r.i+int(n)]
	r.i += int(n)
	return s
}

func (r *snapReader) list() []string {
	n := r.uint()
	if r.err || n > uint64(cap(r.strs)-len(r.strs)) {
		r.err = true
		return nil
	}
	if n == 0 {
		return nil
	}
	start := len(r.strs)
	for range n {
		r.strs = append(r.strs, r.str())
	}
	return r.strs[start:len(r.strs):len(r.strs)]
}

func (r *snapReader) slice() []string {
	if r.uint() == 0 {
		return nil
	}
	l := r.list()
	if l == nil {
		l = []string{}
	}
	return l
}

var (
	snapFalse = false
	snapTrue  = true
)

func (r *snapReader) matcher(depth int) *Matcher {
	switch r.uint() {
	case 0:
		return nil
	case 1:
	default:
		r.err = true
		return nil
	}
	if r.err || depth > 64 || len(r.matchers) == cap(r.matchers) {
		r.err = true
		return nil
	}
	r.matchers = r.matchers[:len(r.matchers)+1]
	mt := &r.matchers[len(r.matchers)-1]
	mt.Program, mt.Basename, mt.CommandName = r.list(), r.list(), r.list()
	mt.ArgvPrefix, mt.canonPrefix = r.list(), r.list() // canonPrefix as compile made it
	mt.Argument, mt.ArgumentContains, mt.GitSubcommand, mt.Effect = r.list(), r.list(), r.list(), r.list()
	mt.ProgramRegex = r.str()
	switch r.uint() {
	case 1:
		mt.NoUnknownEffects = &snapFalse
	case 2:
		mt.NoUnknownEffects = &snapTrue
	}
	for _, subs := range []*[]*Matcher{&mt.All, &mt.Any} {
		n := r.uint()
		if r.err || n > uint64(cap(r.matchers)) {
			r.err = true
			return nil
		}
		for range n {
			*subs = append(*subs, r.matcher(depth+1))
		}
	}
	mt.Not = r.matcher(depth + 1)
	if r.err {
		return nil
	}
	if mt.ProgramRegex != "" {
		re, err := compileRegexp(mt.ProgramRegex)
		if err != nil {
			r.err = true
			return nil
		}
		mt.programRE = re
	}
	return mt
}

// decodeSnapshot rebuilds the manifest a snapshot holds; src is the text
// it was made from, kept as a parsed manifest keeps it.
func decodeSnapshot(path, src string, data []byte) (*Manifest, error) {
	r := &snapReader{s: string(data)}
	if len(r.s) < len(snapshotMagic) || r.s[:len(snapshotMagic)] != snapshotMagic {
		return nil, errSnapshot
	}
	r.i = len(snapshotMagic)
	nstr, nmatch := r.uint(), r.uint()
	if r.err || nstr > uint64(len(r.s)) || nmatch > uint64(len(r.s)) {
		return nil, errSnapshot
	}
	r.strs = make([]string, 0, nstr)
	r.matchers = make([]Matcher, 0, nmatch)
	m := &Manifest{Path: path, src: src}
	m.Version = int(r.uint())
	m.Policy.Default = Action(r.str())
	m.Policy.Unknown = Action(r.str())
	m.Policy.Unauthorized = r.str()
	m.Policy.SoleGate = r.uint() == 1
	m.Guard.AllowAgentEdits = r.slice()
	m.Approvals.Scopes = r.slice()
	m.Approvals.DurableDays = int(r.uint())
	m.Enforce.Mode = r.str()
	m.Enforce.Write = r.slice()
	m.Enforce.Network = r.str()
	n := r.uint()
	if r.err || n > uint64(len(r.s)) {
		return nil, errSnapshot
	}
	rules := make([]Rule, n)
	m.Rules = make([]*Rule, n)
	for i := range rules {
		ru := &rules[i]
		ru.ID = r.str()
		ru.Action = Action(r.str())
		ru.Reason = r.str()
		ru.Examples.Match = r.list()
		ru.Examples.NotMatch = r.list()
		ru.Match = r.matcher(0)
		m.Rules[i] = ru
	}
	if r.err || r.i != len(r.s) {
		return nil, errSnapshot
	}
	return m, nil
}
