package policy

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/agent-shell/agent-shell/internal/lazy"

	"github.com/agent-shell/agent-shell/internal/atomicfile"
	"github.com/agent-shell/agent-shell/internal/plainfile"
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
	f, err := plainfile.Open(snapshotPath(opts.CacheDir, key), syscall.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	snap, err := readSized(f, fi.Size(), maxSnapshotBytes)
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

const snapshotMagic = "agent-shell manifest snapshot 2\n"

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

type snapWriter struct{ b []byte }

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
// the manifest holds what a snapshot does not. After [policy] and the
// plain tables come the rule index and the rules, each readable alone: the
// offsets of the rules and of the index's keys are fixed-width tables, so
// that a decision reads only the keys it looks up and the rules it may
// match.
func encodeSnapshot(m *Manifest) ([]byte, bool) {
	if !snapshotable(m) {
		return nil, false
	}
	w := &snapWriter{b: []byte(snapshotMagic)}
	w.str(m.Digest)
	w.uint(uint64(m.Version))
	w.str(string(m.Policy.Default))
	w.str(string(m.Policy.Unknown))
	w.str(m.Policy.Unauthorized)
	if m.Policy.SoleGate {
		w.uint(1)
	} else {
		w.uint(0)
	}
	w.slice(m.Guard.AllowAgentEdits)
	w.slice(m.Approvals.Scopes)
	w.uint(uint64(m.Approvals.DurableDays))
	w.str(m.Enforce.Mode)
	w.slice(m.Enforce.Write)
	w.str(m.Enforce.Network)

	ix := newRuleIndex(m.Rules)
	keys := slices.SortedFunc(maps.Keys(ix.byKey), func(a, b indexKey) int {
		return cmp.Or(cmp.Compare(a.space, b.space), strings.Compare(a.word, b.word))
	})
	w.uint(uint64(len(m.Rules)))
	w.uint(uint64(len(keys)))
	w.numbers(ix.always)
	w.uint(uint64(len(ix.prefixes)))
	for _, p := range ix.prefixes {
		w.str(p.prefix)
		w.uint(uint64(p.rule))
	}
	// The two offset tables, filled in below.
	tables := len(w.b)
	w.b = append(w.b, make([]byte, 4*(len(m.Rules)+len(keys)))...)
	at := func(table, i int) []byte { return w.b[tables+4*(table+i):] }
	for i, k := range keys {
		binary.LittleEndian.PutUint32(at(len(m.Rules), i), uint32(len(w.b)))
		w.b = append(w.b, k.space)
		w.str(k.word)
		w.numbers(ix.byKey[k])
	}
	for i, r := range m.Rules {
		binary.LittleEndian.PutUint32(at(0, i), uint32(len(w.b)))
		w.str(r.ID)
		w.str(string(r.Action))
		w.str(r.Reason)
		w.list(r.Examples.Match)
		w.list(r.Examples.NotMatch)
		w.matcher(r.Match)
	}
	w.b = binary.LittleEndian.AppendUint32(w.b, crc32.ChecksumIEEE(w.b))
	if len(w.b) > maxSnapshotBytes {
		return nil, false
	}
	return w.b, true
}

// numbers writes ascending rule numbers as differences.
func (w *snapWriter) numbers(l []int32) {
	w.uint(uint64(len(l)))
	last := int32(0)
	for _, n := range l {
		w.uint(uint64(n - last))
		last = n
	}
}

// snapReader reads a snapshot from i; end bounds what it may read.
type snapReader struct {
	s   string // the whole file, once
	i   int
	end int
	err bool
}

func (r *snapReader) uint() uint64 {
	if r.err {
		return 0
	}
	var n uint64
	var shift uint
	for {
		if r.i >= r.end || shift > 63 {
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

// count reads a number of items that take a byte each at least.
func (r *snapReader) count() int {
	n := r.uint()
	if r.err || n > uint64(r.end-r.i) {
		r.err = true
		return 0
	}
	return int(n)
}

func (r *snapReader) str() string {
	n := r.count()
	if r.err {
		return ""
	}
	s := r.s[r.i : r.i+n]
	r.i += n
	return s
}

func (r *snapReader) list() []string {
	n := r.count()
	if r.err || n == 0 {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = r.str()
	}
	return l
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

// numbers reads what snapWriter.numbers wrote: rule numbers below rules,
// ascending.
func (r *snapReader) numbers(rules int, out []int32) []int32 {
	n := r.count()
	last := uint64(0)
	for k := range n {
		d := r.uint()
		if r.err || d > uint64(rules) || k > 0 && d == 0 || last+d >= uint64(rules) {
			r.err = true
			return out
		}
		last += d
		out = append(out, int32(last))
	}
	return out
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
	if r.err || depth > 64 {
		r.err = true
		return nil
	}
	mt := &Matcher{}
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
		n := r.count()
		for range n {
			sub := r.matcher(depth + 1)
			if sub == nil { // all and any hold matchers, never a hole
				r.err = true
				return nil
			}
			*subs = append(*subs, sub)
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

// lazyRules are the rules of a snapshot, decoded one by one as decisions
// need them.
type lazyRules struct {
	s        string
	rules    []*Rule // decoded so far, by number
	ruleAt   int     // the table of the rules' offsets
	keyAt    int     // the table of the index's keys' offsets
	keys     int
	always   []int32
	prefixes []prefixRule
	// found holds the keys looked up so far: a long line asks for the
	// same few many times.
	found map[indexKey][]int32
}

func (l *lazyRules) offset(table, i int) int {
	b := l.s[table+4*i : table+4*i+4]
	return int(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
}

// lookup appends the rules filed under key (binary search of the sorted
// keys); a damaged entry files every rule under it.
func (l *lazyRules) lookup(key indexKey, out []int32) []int32 {
	nums, ok := l.found[key]
	if !ok {
		nums = l.search(key, nil)
		if l.found == nil {
			l.found = map[indexKey][]int32{}
		}
		l.found[key] = nums
	}
	return append(out, nums...)
}

// search is lookup's binary search.
func (l *lazyRules) search(key indexKey, out []int32) []int32 {
	lo, hi := 0, l.keys
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		at := l.offset(l.keyAt, mid)
		r := snapReader{s: l.s, i: at + 1, end: len(l.s)}
		k := indexKey{space: l.s[at]}
		k.word = r.str()
		switch {
		case r.err:
			return l.every(out)
		case k.less(key):
			lo = mid + 1
		case key.less(k):
			hi = mid
		default:
			n := len(out)
			out = r.numbers(len(l.rules), out)
			if r.err {
				return l.every(out[:n])
			}
			return out
		}
	}
	return out
}

func (l *lazyRules) every(out []int32) []int32 {
	for i := range l.rules {
		out = append(out, int32(i))
	}
	return out
}

// rule decodes rule i. A rule that does not decode denies every command: a
// damaged snapshot must not let through what its manifest would stop.
func (l *lazyRules) rule(i int) *Rule {
	if r := l.rules[i]; r != nil {
		return r
	}
	end := len(l.s)
	if i+1 < len(l.rules) {
		end = l.offset(l.ruleAt, i+1)
	}
	r := &snapReader{s: l.s, i: l.offset(l.ruleAt, i), end: end}
	ru := &Rule{ID: r.str(), Action: Action(r.str()), Reason: r.str()}
	ru.Examples.Match = r.list()
	ru.Examples.NotMatch = r.list()
	ru.Match = r.matcher(0)
	if r.err || r.i != end || ru.Match == nil || !ru.Action.valid() {
		ru = &Rule{ID: fmt.Sprintf("rule[%d]", i+1), Action: ActionDeny, Match: &Matcher{},
			Reason: "the manifest's snapshot in .agent-shell/state/cache is damaged; delete it to have it made again"}
	}
	l.rules[i] = ru
	return ru
}

func (l *lazyRules) rulesFor(s *subject) []*Rule {
	nums := candidates(s, l.lookup, l.prefixes, l.always, nil)
	rules := make([]*Rule, len(nums))
	for i, n := range nums {
		rules[i] = l.rule(int(n))
	}
	return rules
}

func (l *lazyRules) all() []*Rule {
	for i := range l.rules {
		l.rule(i)
	}
	return l.rules
}

// decodeSnapshot rebuilds the manifest a snapshot holds, its rules left to
// decode as they are needed; src is the text it was made from, kept as a
// parsed manifest keeps it.
func decodeSnapshot(path, src string, data []byte) (*Manifest, error) {
	if len(data) < len(snapshotMagic)+4 {
		return nil, errSnapshot
	}
	data, sum := data[:len(data)-4], data[len(data)-4:]
	// The sum checks the snapshot whole as it is read: its rules are
	// decoded later, only those a decision needs. (IEEE: its table needs
	// no building where the CPU multiplies carry-less.)
	if crc32.ChecksumIEEE(data) != binary.LittleEndian.Uint32(sum) {
		return nil, errSnapshot
	}
	s := string(data)
	if s[:len(snapshotMagic)] != snapshotMagic {
		return nil, errSnapshot
	}
	r := &snapReader{s: s, i: len(snapshotMagic), end: len(s)}
	m := &Manifest{Path: path, src: src}
	m.Digest = r.str()
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
	nrules, nkeys := r.count(), r.count()
	l := &lazyRules{s: s, keys: nkeys}
	l.always = r.numbers(nrules, nil)
	for range r.count() {
		p := prefixRule{prefix: r.str(), rule: int32(r.uint())}
		if p.rule < 0 || int(p.rule) >= nrules {
			r.err = true
		}
		l.prefixes = append(l.prefixes, p)
	}
	if r.err || 4*(nrules+nkeys) > len(s)-r.i {
		return nil, errSnapshot
	}
	l.ruleAt, l.keyAt = r.i, r.i+4*nrules
	bodies := l.keyAt + 4*nkeys
	// Every offset must point past the tables, the rules' in order.
	prev := bodies
	for i := range nrules {
		o := l.offset(l.ruleAt, i)
		if o < prev || o >= len(s) {
			return nil, errSnapshot
		}
		prev = o
	}
	for i := range nkeys {
		if o := l.offset(l.keyAt, i); o < bodies || o >= len(s) {
			return nil, errSnapshot
		}
	}
	l.rules = make([]*Rule, nrules)
	m.lazy = l
	return m, nil
}
