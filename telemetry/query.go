package telemetry

import (
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Filter selects events; every set criterion must hold. The zero value
// selects every event.
type Filter struct {
	// Since keeps events at or after it; zero means no bound. Lines without
	// a readable timestamp never pass a time bound.
	Since time.Time
	// Failures keeps failed scripts, denied decisions and shim errors
	// (LineFields.IsFailure).
	Failures bool
	// Actor, Script and Event, when non-nil, must equal the event's actor,
	// script (script_end only) and event type exactly.
	Actor, Script, Event *string
}

// IsZero reports whether the filter selects everything.
func (f *Filter) IsZero() bool {
	return f.Since.IsZero() && !f.Failures && f.Actor == nil && f.Script == nil && f.Event == nil
}

// filter is a Filter prepared for matching many lines.
type filter struct {
	Filter
	sinceKey timeKey
}

func newFilter(f Filter) *filter {
	p := &filter{Filter: f}
	if !f.Since.IsZero() {
		p.sinceKey = keyOf(f.Since)
	}
	return p
}

func (f *filter) match(lf *LineFields) bool {
	if f.Actor != nil && (lf.Actor == nil || string(lf.Actor) != *f.Actor) {
		return false
	}
	if f.Event != nil && (lf.Event == nil || string(lf.Event) != *f.Event) {
		return false
	}
	if f.Script != nil && (string(lf.Event) != EventScriptEnd || lf.Script == nil || string(lf.Script) != *f.Script) {
		return false
	}
	if f.Failures && !lf.IsFailure() {
		return false
	}
	if !f.Since.IsZero() {
		if isCanonicalTime(lf.Timestamp) {
			// Same layout, so byte order is time order.
			return string(lf.Timestamp) >= string(f.sinceKey[:])
		}
		t, ok := lf.Time()
		return ok && !t.Before(f.Since)
	}
	return true
}

// timeKey is a timestamp in TimestampLayout, which orders as bytes; every
// RFC 3339 timestamp (years 0000-9999) fits it.
type timeKey [len(TimestampLayout)]byte

func keyOf(t time.Time) timeKey {
	var k timeKey
	var buf [64]byte // AppendFormat wants room to spare; k alone gets copied away
	copy(k[:], t.UTC().AppendFormat(buf[:0], TimestampLayout))
	return k
}

// lineKey returns the ordering key of a line's timestamp.
func lineKey(lf *LineFields) (timeKey, bool) {
	var k timeKey
	if isCanonicalTime(lf.Timestamp) {
		copy(k[:], lf.Timestamp)
		return k, true
	}
	t, ok := lf.Time()
	if !ok || t.Year() < 0 || t.Year() > 9999 {
		return k, false
	}
	return keyOf(t), true
}

// Damage counts the damaged lines of one file: lines that are not one
// well-formed JSON object, are over MaxLineBytes, or (when shown as a table)
// do not decode as an event.
type Damage struct {
	File      string
	Count     int
	FirstLine int
	FirstErr  string
}

func (d *Damage) add(line int, why string) {
	if d.Count == 0 {
		d.FirstLine, d.FirstErr = line, why
	}
	d.Count++
}

// ListFiles returns the session files (*.jsonl) in dir, sorted by name.
// Entries that are not regular files are returned in skipped. A missing dir
// is an error satisfying errors.Is(err, fs.ErrNotExist).
func ListFiles(dir string) (files []string, skipped []*NotRegularError, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() {
			skipped = append(skipped, &NotRegularError{Path: p, Mode: e.Type()})
			continue
		}
		files = append(files, p)
	}
	return files, skipped, nil // ReadDir sorts by name
}

// NewestFile returns the file with the latest modification time (the most
// recent session); ties go to the later name.
func NewestFile(files []string) (string, error) {
	var best string
	var bestTime time.Time
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return "", err
		}
		if best == "" || fi.ModTime().After(bestTime) || (fi.ModTime().Equal(bestTime) && f > best) {
			best, bestTime = f, fi.ModTime()
		}
	}
	return best, nil
}

// SessionIDOf returns the session id a file holds: its name without .jsonl.
func SessionIDOf(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".jsonl")
}

// Record is one event that matched a query.
type Record struct {
	File string // the session file's path
	Line int    // 1-based line number in File
	// Raw is the line's bytes, without the newline. It is only valid during
	// the callback that receives it.
	Raw []byte
	// Event is the decoded line when Query.Decode is set, else nil.
	Event *Event
}

// Query streams the events of some session files that match a filter, in
// time order across files.
type Query struct {
	Files  []string
	Filter Filter
	// Decode decodes each matching line into Record.Event (the table view);
	// a line that does not decode as an event counts as damaged.
	Decode bool
	// Validate checks each matching line with json.Valid before it is
	// returned (lines printed verbatim by `log --json`); a line that fails
	// counts as damaged.
	Validate bool
}

// Tuning of the merge: how much each file may read ahead of the consumer.
const (
	batchBytes   = 32 << 10
	batchRecords = 256
	// decodedRecords caps batches of decoded events, which weigh about a
	// kilobyte each (maps included), far more than their line.
	decodedRecords   = 16
	batchesPerStream = 3
	// streamsAhead is how many files are read ahead of the merge's
	// frontier, so sessions that do not overlap in time still use every
	// core.
	streamsAhead = 4
)

type batchRec struct {
	key        timeKey
	line       int
	start, end int
	ev         *Event
}

// batch carries matching lines from a file's reader to the merge; batches
// circulate between the two so memory per file stays fixed.
type batch struct {
	arena []byte
	recs  []batchRec
}

type stream struct {
	idx   int // position in name order: the tie-break
	path  string
	first timeKey

	data   chan *batch
	free   chan *batch
	nbatch int

	cur *batch
	pos int

	// Written by the producer, read after data is closed.
	damage Damage
	err    error
}

func (st *stream) head() *batchRec { return &st.cur.recs[st.pos] }

// Run calls emit for every matching event, in timestamp order across files
// (ties by file name, then line order), and returns the damage found in
// files that had any, in name order. Each file is read by its own goroutine
// into a few fixed-size batches, and a k-way merge orders them, so memory
// does not grow with the number of events. Files are assumed to be in time
// order each, which the writer guarantees; a file that is not still has all
// its matching events returned, just not perfectly ordered.
//
// An error from emit stops the query and is returned as is.
func (q *Query) Run(emit func(*Record) error) ([]Damage, error) {
	files := append([]string(nil), q.Files...)
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	streams := make([]*stream, len(files))
	for i, p := range files {
		streams[i] = &stream{idx: i, path: p}
	}
	// Start files in the order of their first event, so that a file is
	// read only once the merge can need it.
	if len(streams) > 1 {
		for _, st := range streams {
			st.first = firstKey(st.path)
		}
		sort.SliceStable(streams, func(i, j int) bool { return string(streams[i].first[:]) < string(streams[j].first[:]) })
	}

	flt := newFilter(q.Filter)
	done := make(chan struct{})
	var wg sync.WaitGroup
	start := func(st *stream) {
		st.data = make(chan *batch, batchesPerStream)
		st.free = make(chan *batch, batchesPerStream)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(st.data)
			q.produce(st, flt, done)
		}()
	}
	stop := func() {
		close(done)
		wg.Wait()
	}

	var h mergeHeap
	var damage []Damage
	var firstErr error
	finish := func(st *stream) {
		if st.damage.Count > 0 {
			st.damage.File = st.path
			damage = append(damage, st.damage)
		}
		if st.err != nil && firstErr == nil {
			firstErr = st.err
		}
	}
	// advance moves st to its next record; false when it is exhausted.
	advance := func(st *stream) bool {
		if st.cur != nil {
			st.pos++
			if st.pos < len(st.cur.recs) {
				return true
			}
			st.free <- st.cur // never blocks: free holds every batch
			st.cur = nil
		}
		b, ok := <-st.data
		if !ok {
			finish(st)
			return false
		}
		st.cur, st.pos = b, 0
		return true
	}

	next, started := 0, 0
	rec := &Record{}
	for {
		for next < len(streams) && (h.Len() == 0 || string(streams[next].first[:]) <= string(h[0].head().key[:])) {
			st := streams[next]
			next++
			// Start this file and the next few before waiting on it, so
			// they are read in parallel while the merge waits.
			for ; started < len(streams) && started < next+streamsAhead; started++ {
				start(streams[started])
			}
			if advance(st) {
				heap.Push(&h, st)
			}
		}
		if h.Len() == 0 {
			break
		}
		st := h[0]
		r := st.head()
		rec.File, rec.Line, rec.Raw, rec.Event = st.path, r.line, st.cur.arena[r.start:r.end], r.ev
		if err := emit(rec); err != nil {
			stop()
			return nil, err
		}
		if advance(st) {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	stop()
	sort.Slice(damage, func(i, j int) bool { return filepath.Base(damage[i].File) < filepath.Base(damage[j].File) })
	return damage, firstErr
}

// firstKey returns the key of a file's first timestamped line within its
// first block, or the zero key (start it at once) when there is none.
func firstKey(path string) timeKey {
	var zero timeKey
	f, err := openSessionFile(path, syscall.O_RDONLY)
	if err != nil {
		return zero // the producer reports the error
	}
	defer f.Close()
	// A small buffer: the first line is usually all that is needed, and
	// this runs once per file before anything is shown.
	lr := newLineReaderSize(io.LimitReader(f, readBufferSize), 4<<10-1)
	var sc Scanner
	var lf LineFields
	for {
		line, _, tooLong, err := lr.Next()
		if err != nil {
			return zero
		}
		if tooLong || sc.Scan(line, &lf) != nil {
			continue
		}
		if k, ok := lineKey(&lf); ok {
			return k
		}
	}
}

// produce reads one file and sends its matching lines to the merge.
func (q *Query) produce(st *stream, flt *filter, done <-chan struct{}) {
	f, err := openSessionFile(st.path, syscall.O_RDONLY)
	if err != nil {
		st.err = fmt.Errorf("read events: %w", err)
		return
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	lr := newLineReaderSize(f, size)
	var sc Scanner
	var lf LineFields
	var key timeKey
	maxRecs := batchRecords
	if q.Decode {
		maxRecs = decodedRecords
	}
	b := st.getBatch(done)
	if b == nil {
		return
	}
	for {
		line, num, tooLong, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			st.err = fmt.Errorf("read %s: %w", st.path, err)
			break
		}
		if tooLong {
			st.damage.add(num, fmt.Sprintf("line longer than %d bytes", MaxLineBytes))
			continue
		}
		if err := sc.Scan(line, &lf); err != nil {
			st.damage.add(num, err.Error())
			continue
		}
		// A line without a readable timestamp keeps its file's order by
		// taking the key of the line before it.
		if k, ok := lineKey(&lf); ok {
			key = k
		}
		if !flt.match(&lf) {
			continue
		}
		if q.Validate && !json.Valid(line) {
			st.damage.add(num, "not valid JSON")
			continue
		}
		var ev *Event
		if q.Decode {
			ev = new(Event)
			if err := json.Unmarshal(line, ev); err != nil {
				st.damage.add(num, "not an event: "+err.Error())
				continue
			}
		}
		start := len(b.arena)
		b.arena = append(b.arena, line...)
		b.recs = append(b.recs, batchRec{key: key, line: num, start: start, end: len(b.arena), ev: ev})
		if len(b.arena) >= batchBytes || len(b.recs) >= maxRecs {
			st.data <- b // never blocks: data has room for every batch
			if b = st.getBatch(done); b == nil {
				return
			}
		}
	}
	if len(b.recs) > 0 {
		st.data <- b
	}
}

// getBatch returns an empty batch, waiting for the merge to hand one back
// when all of this stream's batches are in flight; nil when the query stops.
func (st *stream) getBatch(done <-chan struct{}) *batch {
	var b *batch
	select {
	case b = <-st.free:
	default:
		if st.nbatch < batchesPerStream {
			st.nbatch++
			return &batch{}
		}
		select {
		case b = <-st.free:
		case <-done:
			return nil
		}
	}
	if cap(b.arena) > 4*batchBytes {
		b.arena = nil // one huge line should not pin its memory
	}
	b.arena, b.recs = b.arena[:0], b.recs[:0]
	return b
}

// mergeHeap orders streams by their current record: time, then file name.
type mergeHeap []*stream

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	a, b := h[i].head(), h[j].head()
	if a.key != b.key {
		return string(a.key[:]) < string(b.key[:])
	}
	return h[i].idx < h[j].idx
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(*stream)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Session summarizes one session file for `log --list-sessions`.
type Session struct {
	ID          string
	File        string
	First, Last time.Time // zero when no matching event had a timestamp
	Events      int
	Actors      []string // distinct, sorted
}

// maxSessionActors bounds the distinct actors kept per session, so a
// damaged or hostile file cannot grow memory without limit.
const maxSessionActors = 64

// ListSessions summarizes the events of each file that match filter,
// newest session (latest event) first. Files with no matching event are
// left out.
func ListSessions(files []string, f Filter) ([]Session, []Damage, error) {
	flt := newFilter(f)
	out := make([]Session, len(files))
	dmg := make([]Damage, len(files))
	errs := make([]error, len(files))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(len(files), 2*runtime.GOMAXPROCS(0)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				out[i], dmg[i], errs[i] = summarize(files[i], flt)
			}
		}()
	}
	for i := range files {
		work <- i
	}
	close(work)
	wg.Wait()
	var sessions []Session
	var damage []Damage
	for i := range files {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		if dmg[i].Count > 0 {
			damage = append(damage, dmg[i])
		}
		if out[i].Events > 0 {
			sessions = append(sessions, out[i])
		}
	}
	sort.SliceStable(sessions, func(i, j int) bool {
		if !sessions[i].Last.Equal(sessions[j].Last) {
			return sessions[i].Last.After(sessions[j].Last)
		}
		return sessions[i].ID < sessions[j].ID
	})
	return sessions, damage, nil
}

func summarize(path string, flt *filter) (Session, Damage, error) {
	s := Session{ID: SessionIDOf(path), File: path}
	d := Damage{File: path}
	fh, err := openSessionFile(path, syscall.O_RDONLY)
	if err != nil {
		return s, d, fmt.Errorf("read events: %w", err)
	}
	defer fh.Close()
	lr := NewLineReader(fh)
	var sc Scanner
	var lf LineFields
	var first, last timeKey
	actors := map[string]bool{}
	for {
		line, num, tooLong, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, d, fmt.Errorf("read %s: %w", path, err)
		}
		if tooLong {
			d.add(num, fmt.Sprintf("line longer than %d bytes", MaxLineBytes))
			continue
		}
		if err := sc.Scan(line, &lf); err != nil {
			d.add(num, err.Error())
			continue
		}
		if !flt.match(&lf) {
			continue
		}
		s.Events++
		if k, ok := lineKey(&lf); ok {
			if first == (timeKey{}) || string(k[:]) < string(first[:]) {
				first = k
			}
			if string(k[:]) > string(last[:]) {
				last = k
			}
		}
		if lf.Actor != nil && !actors[string(lf.Actor)] && len(actors) < maxSessionActors {
			actors[string(lf.Actor)] = true
		}
	}
	for a := range actors {
		s.Actors = append(s.Actors, a)
	}
	sort.Strings(s.Actors)
	if first != (timeKey{}) {
		s.First, _ = time.Parse(TimestampLayout, string(first[:]))
		s.Last, _ = time.Parse(TimestampLayout, string(last[:]))
	}
	return s, d, nil
}

// ErrNoSession is returned by SessionFile for a session without a file.
var ErrNoSession = errors.New("no such session")

// SessionFile returns the file of session id in dir.
func SessionFile(dir, id string) (string, error) {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, "/\\\x00") {
		return "", fmt.Errorf("invalid session id %q", id)
	}
	p := filepath.Join(dir, id+".jsonl")
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("session %q: %w in %s", id, ErrNoSession, dir)
	}
	if err != nil {
		return "", fmt.Errorf("session %q: %w", id, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("session %q: %w", id, &NotRegularError{Path: p, Mode: fi.Mode().Type()})
	}
	return p, nil
}
