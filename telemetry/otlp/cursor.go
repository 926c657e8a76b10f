// Package otlp exports the flight recorder's events to an OpenTelemetry
// Collector as OTLP/HTTP JSON log records, from a persisted cursor, so that
// every event is sent at least once and in order per session.
//
// This package reads, maps and keeps the cursor; it does not touch the
// network (otlphttp sends). It is linked into the agent-shell binary for
// status's backlog line and the export command only, so it must stay free of
// package initialisation and of heavy imports (net/http, crypto/tls): the
// hook and the shim load every package the binary links.
package otlp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/agent-shell/agent-shell/internal/atomicfile"
	"github.com/agent-shell/agent-shell/telemetry"
)

// FileCursor is how far one session file has been exported: the byte offset
// just past the last line a Collector acknowledged, that line's seq (0 for a
// damaged line), where it starts and the SHA-256 of its bytes (without the
// newline). The line's hash tells a file that was replaced by another one
// at least as long (rotation) from the same file grown.
type FileCursor struct {
	Offset     int64  `json:"offset"`
	LineStart  int64  `json:"line_start"`
	Seq        int64  `json:"seq"`
	LineSHA256 string `json:"line_sha256"`
}

// Cursor is the export position of every session file, keyed by file name.
type Cursor struct {
	Endpoint string                `json:"endpoint"`
	Files    map[string]FileCursor `json:"files"`
}

// CursorPath is the cursor file for endpoint in stateDir (the repository's
// state folder): one per endpoint, so pointing the export elsewhere sends
// everything again rather than nothing.
func CursorPath(stateDir, endpoint string) string {
	sum := sha256.Sum256([]byte(endpoint))
	return filepath.Join(stateDir, "otlp", "cursor-"+hex.EncodeToString(sum[:8])+".json")
}

// LoadCursor reads the cursor at path; a missing file is an empty cursor.
func LoadCursor(path string) (*Cursor, error) {
	c := &Cursor{Files: map[string]FileCursor{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("export cursor: %w", err)
	}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("export cursor %s is damaged (%v); remove it to export everything again", path, err)
	}
	if c.Files == nil {
		c.Files = map[string]FileCursor{}
	}
	return c, nil
}

// Save writes the cursor atomically.
func (c *Cursor) Save(path string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}

// Line is one complete line of a session file past the cursor.
type Line struct {
	File   string // the file's name (the session id + .jsonl)
	Start  int64  // byte offset of the line
	End    int64  // byte offset just past its newline
	Raw    []byte // the line without its newline
	Fields telemetry.LineFields
	Event  *telemetry.Event // nil when the line is damaged
	Damage string           // why the line is damaged, "" when it is not
}

// Seq is the line's seq, 0 when it has none.
func (l *Line) Seq() int64 {
	if l.Event != nil {
		return l.Event.Seq
	}
	return 0
}

// advance returns the cursor after l.
func (l *Line) advance() FileCursor {
	sum := sha256.Sum256(l.Raw)
	return FileCursor{Offset: l.End, LineStart: l.Start, Seq: l.Seq(), LineSHA256: hex.EncodeToString(sum[:])}
}

// maxRead bounds what one pass reads of one file; the rest waits for the
// next pass.
const maxRead = 8 << 20

// valid reports whether fc still describes f: the file is at least as long
// and the line before the offset is the one the cursor hashed. A file
// shorter than the cursor was truncated; one whose line differs was
// replaced (rotated). Either way it is read again from its start.
func (fc FileCursor) valid(f *os.File, size int64) (bool, string) {
	if fc.Offset == 0 {
		return true, ""
	}
	if size < fc.Offset {
		return false, fmt.Sprintf("is shorter (%d bytes) than the export cursor (%d): truncated or replaced", size, fc.Offset)
	}
	n := fc.Offset - 1 - fc.LineStart
	if n < 0 || n > telemetry.MaxLineBytes {
		return false, "has an export cursor that does not describe a line"
	}
	buf := make([]byte, n+1)
	if _, err := f.ReadAt(buf, fc.LineStart); err != nil {
		return false, "cannot be read at the export cursor: " + err.Error()
	}
	sum := sha256.Sum256(buf[:n])
	if buf[n] != '\n' || hex.EncodeToString(sum[:]) != fc.LineSHA256 {
		return false, "no longer holds the line the export cursor ends on: replaced (rotated)"
	}
	return true, ""
}

// Restart is a file read again from its start, and why.
type Restart struct {
	File string `json:"file"`
	Why  string `json:"why"`
}

// readFile returns the complete lines of dir/name past fc (at most maxRead
// bytes of them), and a Restart when fc no longer fits the file. A last
// line without its newline is not returned: the writer may still be
// writing it, and it will end it (with a repair event) on the next append.
func readFile(dir, name string, fc FileCursor) ([]Line, *Restart, error) {
	path := filepath.Join(dir, name)
	f, err := telemetry.OpenSessionRead(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	var restart *Restart
	if ok, why := fc.valid(f, fi.Size()); !ok {
		restart = &Restart{File: name, Why: why}
		fc = FileCursor{}
	}
	if fi.Size() == fc.Offset {
		return nil, restart, nil
	}
	data := make([]byte, min(fi.Size()-fc.Offset, maxRead))
	n, err := f.ReadAt(data, fc.Offset)
	if err != nil && err != io.EOF {
		return nil, restart, fmt.Errorf("read %s: %w", path, err)
	}
	data = data[:n]
	last := bytes.LastIndexByte(data, '\n')
	if last < 0 {
		if len(data) == maxRead {
			return nil, restart, fmt.Errorf("%s: a line over %d bytes at offset %d", path, maxRead, fc.Offset)
		}
		return nil, restart, nil
	}
	var lines []Line
	var sc telemetry.Scanner
	off := fc.Offset
	for _, raw := range bytes.SplitAfter(data[:last+1], []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		l := Line{File: name, Start: off, End: off + int64(len(raw)), Raw: raw[:len(raw)-1]}
		off = l.End
		if err := sc.Scan(l.Raw, &l.Fields); err != nil {
			l.Damage = err.Error()
			l.Fields = telemetry.LineFields{}
		} else {
			ev := new(telemetry.Event)
			if err := json.Unmarshal(l.Raw, ev); err != nil {
				l.Damage = "not an event: " + err.Error()
			} else {
				l.Event = ev
			}
		}
		lines = append(lines, l)
	}
	return lines, restart, nil
}

// sessionFiles lists the session files of dir by name.
func sessionFiles(dir string) ([]string, error) {
	files, _, err := telemetry.ListFiles(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, len(files))
	for i, p := range files {
		names[i] = filepath.Base(p)
	}
	sort.Strings(names)
	return names, nil
}

// Backlog counts the complete lines of the session files in dir that the
// cursor at cursorPath has not passed yet: the events not yet exported.
func Backlog(dir, cursorPath string) (events, files int, err error) {
	c, err := LoadCursor(cursorPath)
	if err != nil {
		return 0, 0, err
	}
	names, err := sessionFiles(dir)
	if err != nil {
		return 0, 0, err
	}
	for _, name := range names {
		n, err := countPending(filepath.Join(dir, name), c.Files[name])
		if err != nil {
			return events, files, err
		}
		if n > 0 {
			events += n
			files++
		}
	}
	return events, files, nil
}

func countPending(path string, fc FileCursor) (int, error) {
	f, err := telemetry.OpenSessionRead(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if ok, _ := fc.valid(f, fi.Size()); !ok {
		fc = FileCursor{}
	}
	if _, err := f.Seek(fc.Offset, io.SeekStart); err != nil {
		return 0, err
	}
	n := 0
	buf := make([]byte, 64<<10)
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte("\n"))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
