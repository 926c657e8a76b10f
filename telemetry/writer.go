package telemetry

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
	"unicode/utf8"
)

// MaxCommandBytes caps the command text kept in an event, so that one
// pathological command cannot make a line too long for readers.
const MaxCommandBytes = 16 << 10

const truncatedMarker = "…[truncated]"

// Writer appends events to one session file. Each Append takes an exclusive
// lock on the file, continues the seq and SHA-256 chain from the file's last
// line, and writes the whole line with one write, so any number of processes
// can append to the same session without tearing, interleaving or losing lines.
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
	size     int64
	seq      int64
	lastHash string
	buf      []byte
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
	e.Seq = w.seq + 1
	e.PrevSHA256 = w.lastHash

	line := w.buf[:0]
	if w.tornTail(size) {
		// The last line was cut short (a crash or a full disk mid-write):
		// start on a fresh line; verify reports the damaged one.
		line = append(line, '\n')
	}
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
	w.seq = e.Seq
	w.lastHash = hex.EncodeToString(sum[:])
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
	e.Reason = Redact(e.Reason)
	e.Error = Redact(e.Error)
	for i := range e.Extensions {
		r := &e.Extensions[i]
		r.Reason = Redact(r.Reason)
		r.Error = truncateUTF8(Redact(r.Error), MaxCommandBytes)
		r.Output = truncateUTF8(Redact(r.Output), MaxCommandBytes)
	}
}

func truncateUTF8(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + truncatedMarker
}

// tailChunk is how much of the file's end is read to find its last line.
const tailChunk = 64 << 10

// tornTail reports whether the file does not end with a newline.
func (w *Writer) tornTail(size int64) bool {
	if size == 0 {
		return false
	}
	var b [1]byte
	if _, err := w.f.ReadAt(b[:], size-1); err != nil {
		return false
	}
	return b[0] != '\n'
}

// loadTail sets the chain state from the file's last line: its seq and the
// hash of its bytes. When the last line carries no seq (damaged, or written
// by an older tool), the whole file is scanned to count lines instead.
func (w *Writer) loadTail(size int64) error {
	w.seq, w.lastHash = 0, ""
	if size == 0 {
		return nil
	}
	last, err := lastLine(w.f, size)
	if err != nil {
		return fmt.Errorf("read tail of %s: %w", w.path, err)
	}
	sum := sha256.Sum256(last)
	w.lastHash = hex.EncodeToString(sum[:])
	if seq, ok := lineSeq(last); ok {
		w.seq = seq
		return nil
	}
	seq, err := countSeq(w.f)
	if err != nil {
		return fmt.Errorf("scan %s: %w", w.path, err)
	}
	w.seq = seq
	return nil
}

// lastLine returns the last line of the file (without its newline), reading
// backwards in chunks until the line's start is found.
func lastLine(f *os.File, size int64) ([]byte, error) {
	end := size
	var b [1]byte
	if _, err := f.ReadAt(b[:], size-1); err != nil {
		return nil, err
	}
	if b[0] == '\n' {
		end--
	}
	var line []byte
	pos := end
	for pos > 0 {
		n := int64(tailChunk)
		if n > pos {
			n = pos
		}
		chunk := make([]byte, n)
		if _, err := f.ReadAt(chunk, pos-n); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return append(chunk[i+1:], line...), nil
		}
		line = append(chunk, line...)
		pos -= n
	}
	return line, nil
}

func lineSeq(line []byte) (int64, bool) {
	var v struct {
		Seq int64 `json:"seq"`
	}
	if json.Unmarshal(line, &v) != nil || v.Seq <= 0 {
		return 0, false
	}
	return v.Seq, true
}

// countSeq returns the seq the file's last line should have: the last good
// seq plus the lines after it, or the number of lines when none has a seq.
func countSeq(f *os.File) (int64, error) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, 1<<62), 64<<10)
	var lines, lastGood, linesAfter int64
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			lines++
			if seq, ok := lineSeq(bytes.TrimSuffix(line, []byte{'\n'})); ok {
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
