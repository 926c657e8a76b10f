package telemetry

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agent-shell/agent-shell/internal/textcut"
)

// MaxCommandBytes caps the command text kept in an event, so that one
// pathological command cannot make a line too long for readers.
const MaxCommandBytes = 16 << 10

const truncatedMarker = "…[truncated]"

// Writer appends events to one session file. Each Append takes an exclusive
// lock on the file, continues the seq and SHA-256 chain from the file's last
// line, and writes the whole line with one write, so any number of processes
// can append to the same session without tearing, interleaving or losing lines.
// A line torn by a write cut short is ended and named by a repair event
// before the next line (see repair.go).
type Writer struct {
	f    *os.File
	path string
	// Now supplies event timestamps; it is read under the lock, so that the
	// lines of a file are in time order.
	Now func() time.Time
	// Filter, when set, is the project's audit filter: it sees each event
	// after redaction and its edits are redacted again (see filter.go).
	Filter AuditFilter

	// The chain state after this Writer's last append, reused while the file
	// has not grown since (no other process appended).
	size int64
	tail chainTail
	buf  []byte
}

// OpenWriter opens (creating as needed) dir/<sessionID>.jsonl for appending.
// A session file that is not a regular file is a *NotRegularError.
func OpenWriter(dir, sessionID string) (*Writer, error) {
	if !ValidSessionID(sessionID) {
		return nil, fmt.Errorf("invalid session id %q", sessionID)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create events directory: %w", err)
	}
	path := filepath.Join(dir, sessionID+".jsonl")
	f, err := openSessionFile(path, syscall.O_RDWR|syscall.O_APPEND|syscall.O_CREAT)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	return &Writer{f: f, path: path, Now: time.Now, size: -1}, nil
}

// Path is the session file this Writer appends to.
func (w *Writer) Path() string { return w.path }

// Close closes the session file.
func (w *Writer) Close() error { return w.f.Close() }

// Prepare reads the chain's tail now, under the lock, so that an Append
// soon after only has to write when no other process has appended since.
func (w *Writer) Prepare() error {
	fd := int(w.f.Fd())
	if err := flock(fd, syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", w.path, err)
	}
	defer flock(fd, syscall.LOCK_UN) //nolint:errcheck // closing the file releases it too
	fi, err := w.f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", w.path, err)
	}
	if err := w.loadTail(fi.Size()); err != nil {
		w.size = -1
		return err
	}
	w.size = fi.Size()
	return nil
}

// Append redacts e, stamps it (timestamp if unset, seq, prev_sha256) and
// appends it as one line.
func (w *Writer) Append(e *Event) error {
	fd := int(w.f.Fd())
	if err := flock(fd, syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", w.path, err)
	}
	defer flock(fd, syscall.LOCK_UN) //nolint:errcheck // closing the file releases it too

	fi, err := w.f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", w.path, err)
	}
	size := fi.Size()
	if size != w.size {
		if err := w.loadTail(size); err != nil {
			return err
		}
	}

	redactEvent(e)
	if e.Timestamp.IsZero() {
		e.Timestamp = w.Now()
	}
	line := w.buf[:0]
	if w.tail.open {
		// The last line was cut short of its newline: end it.
		line = append(line, '\n')
	}
	seq, prev := w.tail.seq, w.tail.lastHash
	if len(w.tail.torn) > 0 {
		// Written as it is: a repair carries nothing to redact, and it is
		// the chain's, not the audit filter's.
		r := repairEvent(e, w.tail.torn)
		r.Seq, r.PrevSHA256 = seq+1, prev
		start := len(line)
		line = r.AppendJSON(line)
		seq, prev = r.Seq, hashHex(line[start:])
		line = append(line, '\n')
	}
	e.Seq = seq + 1
	e.PrevSHA256 = prev
	start := len(line)
	line = e.AppendJSON(line)
	if w.Filter != nil {
		// Under the lock, so the filter sees the event's seq; the chain
		// hash below covers the filtered line.
		line = append(line[:start], w.filter(e, line[start:])...)
	}
	sum := sha256.Sum256(line[start:])
	line = append(line, '\n')
	w.buf = line

	n, err := w.f.Write(line)
	if err != nil {
		w.size = -1
		return fmt.Errorf("append to %s: %w", w.path, err)
	}
	w.size = size + int64(n)
	w.tail = chainTail{seq: e.Seq, lastHash: hex.EncodeToString(sum[:])}
	return nil
}

// flock retries on EINTR, which a forwarded signal can cause.
func flock(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// redactEvent scrubs every free-text field before it reaches the disk.
func redactEvent(e *Event) {
	e.Command = truncateUTF8(Redact(e.Command), MaxCommandBytes)
	e.Prompt = truncateUTF8(Redact(e.Prompt), MaxCommandBytes)
	e.Cwd = truncateUTF8(Redact(e.Cwd), MaxCommandBytes)
	e.Reason = Redact(e.Reason)
	e.Error = Redact(e.Error)
	for i := range e.Extensions {
		r := &e.Extensions[i]
		r.Reason = Redact(r.Reason)
		r.Error = truncateUTF8(Redact(r.Error), MaxCommandBytes)
		r.Output = truncateUTF8(Redact(r.Output), MaxCommandBytes)
	}
}

// truncateUTF8 cuts s to max bytes, marked.
func truncateUTF8(s string, max int) string {
	if t, cut := textcut.Cut(s, max); cut {
		return t + truncatedMarker
	}
	return s
}

// loadTail sets the chain state from the end of the file (see readTail).
func (w *Writer) loadTail(size int64) error {
	t, err := readTail(w.f, size)
	if err != nil {
		return fmt.Errorf("read tail of %s: %w", w.path, err)
	}
	w.tail = t
	return nil
}

// lineSeq returns the seq of a well-formed line that has a positive one.
func lineSeq(sc *Scanner, line []byte) (int64, bool) {
	var lf LineFields
	if sc.Scan(line, &lf) != nil || !lf.HasSeq || !lf.SeqInt || lf.Seq <= 0 {
		return 0, false
	}
	return lf.Seq, true
}

// countSeq returns the seq the line ending at end should have: the last
// good seq plus the lines after it, or the number of lines when none has a
// seq.
func countSeq(f *os.File, end int64) (int64, error) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, end), 64<<10)
	var sc Scanner
	var lines, lastGood, linesAfter int64
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			lines++
			if seq, ok := lineSeq(&sc, bytes.TrimSuffix(line, []byte{'\n'})); ok {
				lastGood, linesAfter = seq, 0
			} else {
				linesAfter++
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if lastGood == 0 {
		return lines, nil
	}
	return lastGood + linesAfter, nil
}
