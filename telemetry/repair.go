package telemetry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// maxTornLines bounds the damaged lines one repair names. More than that at
// the end of a file is not a torn write; it is left for verify to report.
const maxTornLines = 16

// TornLine names one torn line in a repair event.
type TornLine struct {
	Offset int64  `json:"offset"` // where the line starts in the file
	Length int64  `json:"length"` // its bytes, without the newline that ended it
	SHA256 string `json:"sha256"` // of those bytes, hex
}

func tornLine(offset int64, line []byte) TornLine {
	return TornLine{Offset: offset, Length: int64(len(line)), SHA256: hashHex(line)}
}

func hashHex(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:])
}

// chainTail is where the next event continues a session file's chain.
type chainTail struct {
	seq      int64  // the seq of the line the chain continues from
	lastHash string // that line's SHA-256, hex; "" at the start
	// open is set when the file does not end in a newline.
	open bool
	// torn are the damaged lines at the end of the file, after the line
	// the chain continues from: the next append names them in a repair.
	torn []TornLine
}

// readTail finds where the chain continues in a file of size bytes: after
// its last line, or, when the file ends in damaged lines, after the last
// intact line before them, with the damaged ones to be repaired. More than
// maxTornLines damaged lines, or one too long for verify to hash, are not
// repaired: the chain then continues from the last line, as it is.
func readTail(f *os.File, size int64) (chainTail, error) {
	var t chainTail
	if size == 0 {
		return t, nil
	}
	r := &backReader{f: f, pos: size}
	if err := r.grow(); err != nil {
		return t, err
	}
	end := size
	if r.buf[len(r.buf)-1] == '\n' {
		end--
	} else {
		t.open = true
	}
	var sc Scanner
	var lf LineFields
	var last []byte
	lastEnd := end
	for {
		start, line, err := r.line(end)
		if err != nil {
			return t, err
		}
		if last == nil {
			last = line
		}
		if sc.Scan(line, &lf) == nil {
			slices.Reverse(t.torn)
			return t, t.continueFrom(f, &sc, line, end)
		}
		if len(t.torn) == maxTornLines || len(line) > MaxLineBytes {
			t.torn = nil
			return t, t.continueFrom(f, &sc, last, lastEnd)
		}
		t.torn = append(t.torn, tornLine(start, line))
		if start == 0 {
			slices.Reverse(t.torn)
			return t, nil // every line is torn: the chain starts afresh
		}
		end = start - 1
	}
}

// continueFrom sets the chain to continue from line, which ends at end:
// its hash, and its seq, or when it has none (damaged, or written by an
// older tool) the seq counted from the lines before it.
func (t *chainTail) continueFrom(f *os.File, sc *Scanner, line []byte, end int64) error {
	t.lastHash = hashHex(line)
	if seq, ok := lineSeq(sc, line); ok {
		t.seq = seq
		return nil
	}
	seq, err := countSeq(f, end)
	t.seq = seq
	return err
}

// firstTailChunk is the first read from a file's end: one read for the
// usual last line of a few hundred bytes.
const firstTailChunk = 4 << 10

// backReader reads a file's lines from its end backwards, in chunks that
// double, so that a long line costs few reads.
type backReader struct {
	f   *os.File
	pos int64  // the file offset of buf[0]
	buf []byte // the file's bytes from pos up to where reading started
}

// line returns the line that ends at file offset end (the byte there is
// its newline, or end is where reading started) and where it starts.
func (r *backReader) line(end int64) (int64, []byte, error) {
	for {
		i := int(end - r.pos)
		if j := bytes.LastIndexByte(r.buf[:i], '\n'); j >= 0 {
			return r.pos + int64(j) + 1, r.buf[j+1 : i], nil
		}
		if r.pos == 0 {
			return 0, r.buf[:i], nil
		}
		if err := r.grow(); err != nil {
			return 0, nil, err
		}
	}
}

// grow reads the chunk before buf, as long as buf and at least
// firstTailChunk. Lines returned earlier keep their bytes.
func (r *backReader) grow() error {
	n := min(max(int64(len(r.buf)), firstTailChunk), r.pos)
	buf := make([]byte, n+int64(len(r.buf)))
	if _, err := r.f.ReadAt(buf[:n], r.pos-n); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	copy(buf[n:], r.buf)
	r.buf, r.pos = buf, r.pos-n
	return nil
}

// repairEvent is the event that ends torn lines, written by the process
// that found them (e is the event it is about to append).
func repairEvent(e *Event, torn []TornLine) *Event {
	return &Event{
		SessionID: e.SessionID, Event: EventRepair, Actor: e.Actor, Agent: e.Agent, Timestamp: e.Timestamp,
		Reason: fmt.Sprintf("%d torn %s at the end of the file (a write cut short by a crash or a full disk); the chain continues from the last intact line before %s",
			len(torn), plural(len(torn), "line", "lines"), plural(len(torn), "it", "them")),
		Torn: torn,
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Repair is a run of torn lines that verify skipped because the repair
// event after them names each: what they held is lost, the chain is not.
type Repair struct {
	Line      int   // the repair event's line; the torn lines end just before it
	FirstTorn int   // the first torn line
	Bytes     int64 // the torn lines' bytes, newlines not counted
}

func (r Repair) String() string {
	n := r.Line - r.FirstTorn
	return fmt.Sprintf("%d torn %s (%d bytes, a write cut short) ended and named by the repair at line %d",
		n, plural(n, "line", "lines"), r.Bytes, r.Line)
}

// damagedLine is a line verify could not read, held until the line after
// the run it is in shows whether a repair names it.
type damagedLine struct {
	num     int
	problem string
	torn    TornLine
}

// repairOf is the Repair of the damaged lines that the repair at line num
// names.
func repairOf(num int, damaged []damagedLine) Repair {
	r := Repair{Line: num, FirstTorn: damaged[0].num}
	for _, d := range damaged {
		r.Bytes += d.torn.Length
	}
	return r
}

// namesExactly reports whether a repair line names exactly the damaged
// lines before it, in order.
func namesExactly(repair []byte, damaged []damagedLine) bool {
	var v struct {
		Torn []TornLine `json:"torn"`
	}
	if json.Unmarshal(repair, &v) != nil || len(v.Torn) != len(damaged) {
		return false
	}
	for i, d := range damaged {
		if v.Torn[i] != d.torn {
			return false
		}
	}
	return true
}
