package telemetry

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"time"
	"unicode/utf8"
)

// maxNestingDepth is encoding/json's limit, kept so both agree on every line.
const maxNestingDepth = 10000

// LineFields are the top-level fields of one event line that queries and
// verification use. String fields are nil when the key is absent or its
// value is not a string (null included); they alias the line's bytes unless
// the value held escapes, in which case they are freshly decoded.
type LineFields struct {
	Timestamp  []byte
	Actor      []byte
	Event      []byte
	Script     []byte
	SessionID  []byte
	Decision   []byte
	Signal     []byte
	PrevSHA256 []byte

	// ExitCode is set when HasExitCode: the key is present with a number.
	ExitCode    float64
	HasExitCode bool

	// Seq is set when HasSeq: the key is present with a number. SeqInt
	// says whether that number is a plain integer that fits an int64.
	Seq    int64
	HasSeq bool
	SeqInt bool
}

// IsFailure reports whether the event counts for `log --failures`: a script
// that exited non-zero or was killed by a signal, a denied policy decision,
// a guard's denial, a decision under an unauthorized configuration, any
// shim error, or a repair of torn lines.
func (f *LineFields) IsFailure() bool {
	switch string(f.Event) {
	case EventScriptEnd, EventCommandEnd:
		return (f.HasExitCode && f.ExitCode != 0) || len(f.Signal) > 0
	case EventPolicyDecision:
		return string(f.Decision) == "deny"
	case EventShimError, EventGuard, EventConfigUnauthorized, EventExtensionError, EventRepair:
		return true
	}
	return false
}

// Time returns the event's timestamp. Lines in TimestampLayout are parsed
// by hand (it is the common case and time.Parse is comparatively slow);
// anything else must be RFC 3339.
func (f *LineFields) Time() (time.Time, bool) {
	if t, ok := parseCanonicalTime(f.Timestamp); ok {
		return t, true
	}
	if f.Timestamp == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(f.Timestamp))
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// isCanonicalTime reports whether b is in TimestampLayout, which sorts and
// compares correctly as bytes.
func isCanonicalTime(b []byte) bool {
	if len(b) != len(TimestampLayout) {
		return false
	}
	for i, c := range b {
		switch i {
		case 4, 7:
			if c != '-' {
				return false
			}
		case 10:
			if c != 'T' {
				return false
			}
		case 13, 16:
			if c != ':' {
				return false
			}
		case 19:
			if c != '.' {
				return false
			}
		case 23:
			if c != 'Z' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

func parseCanonicalTime(b []byte) (time.Time, bool) {
	if !isCanonicalTime(b) {
		return time.Time{}, false
	}
	num := func(i, j int) int {
		n := 0
		for _, c := range b[i:j] {
			n = n*10 + int(c-'0')
		}
		return n
	}
	mon, day, hour, min, sec := num(5, 7), num(8, 10), num(11, 13), num(14, 16), num(17, 19)
	if mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(num(0, 4), time.Month(mon), day, hour, min, sec, num(20, 23)*int(time.Millisecond), time.UTC)
	if t.Day() != day { // 31 February and the like
		return time.Time{}, false
	}
	return t, true
}

// LineError says why a line is not a well-formed JSON object.
type LineError struct {
	Offset int    // byte offset in the line where the problem was found
	Msg    string // what is wrong
	// NotObject is set when the line is not even the start of an object
	// (empty, or another kind of value).
	NotObject bool
}

func (e *LineError) Error() string {
	if e.NotObject {
		return e.Msg
	}
	return fmt.Sprintf("%s at byte %d", e.Msg, e.Offset+1)
}

// Scanner checks event lines and extracts their LineFields. The zero value
// is ready to use; reuse one Scanner for many lines to reuse its memory.
// A Scanner is not safe for concurrent use.
type Scanner struct {
	stack []byte
}

// fieldID names the top-level keys the scanner keeps.
type fieldID uint8

const (
	fieldNone fieldID = iota
	fieldTimestamp
	fieldActor
	fieldEvent
	fieldScript
	fieldSessionID
	fieldDecision
	fieldSignal
	fieldPrevSHA256
	fieldExitCode
	fieldSeq
)

func lookupField(key []byte) fieldID {
	// switch on string(key) compiles to comparisons without allocating.
	switch string(key) {
	case "timestamp":
		return fieldTimestamp
	case "actor":
		return fieldActor
	case "event":
		return fieldEvent
	case "script":
		return fieldScript
	case "session_id":
		return fieldSessionID
	case "decision":
		return fieldDecision
	case "signal":
		return fieldSignal
	case "prev_sha256":
		return fieldPrevSHA256
	case "exit_code":
		return fieldExitCode
	case "seq":
		return fieldSeq
	}
	return fieldNone
}

// Scan checks that line is exactly one JSON object (surrounding JSON
// whitespace allowed) and fills f with its top-level fields. Duplicate keys
// keep the last value, as encoding/json does.
func (s *Scanner) Scan(line []byte, f *LineFields) error {
	*f = LineFields{}
	i := skipWS(line, 0)
	if i >= len(line) {
		return &LineError{Offset: i, Msg: "empty line, not a JSON object", NotObject: true}
	}
	if line[i] != '{' {
		if c := line[i]; c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n' {
			return &LineError{Offset: i, Msg: "not a JSON object", NotObject: true}
		}
		return &LineError{Offset: i, Msg: fmt.Sprintf("not a JSON object (starts with %s)", quoteByte(line[i])), NotObject: true}
	}
	i = skipWS(line, i+1)
	if i < len(line) && line[i] == '}' {
		return s.end(line, i+1)
	}
	for {
		if i >= len(line) {
			return errEOL(i)
		}
		if line[i] != '"' {
			return errChar(line, i, "object key")
		}
		j, esc, err := scanString(line, i)
		if err != nil {
			return err
		}
		key := line[i+1 : j-1]
		if esc {
			key = unescape(line[i:j])
		}
		id := lookupField(key)
		i = skipWS(line, j)
		if i >= len(line) {
			return errEOL(i)
		}
		if line[i] != ':' {
			return errChar(line, i, "':' after object key")
		}
		i = skipWS(line, i+1)
		if i >= len(line) {
			return errEOL(i)
		}
		switch c := line[i]; {
		case c == '"':
			j, esc, err = scanString(line, i)
			if err != nil {
				return err
			}
			if id != fieldNone {
				v := line[i+1 : j-1]
				// Decode like encoding/json would: escapes, and invalid
				// UTF-8 becoming U+FFFD (only kept fields pay for the check).
				if esc || !utf8.Valid(v) {
					v = unescape(line[i:j])
				}
				f.setString(id, v)
			}
		case c == '-' || (c >= '0' && c <= '9'):
			j, err = scanNumber(line, i)
			if err != nil {
				return err
			}
			if id != fieldNone {
				f.setNumber(id, line[i:j])
			}
		default:
			j, err = s.skipValue(line, i)
			if err != nil {
				return err
			}
			if id != fieldNone {
				f.setString(id, nil) // null, or a value of the wrong kind
			}
		}
		i = skipWS(line, j)
		if i >= len(line) {
			return errEOL(i)
		}
		switch line[i] {
		case ',':
			i = skipWS(line, i+1)
		case '}':
			return s.end(line, i+1)
		default:
			return errChar(line, i, "',' or '}' after object value")
		}
	}
}

func (s *Scanner) end(line []byte, i int) error {
	i = skipWS(line, i)
	if i != len(line) {
		return &LineError{Offset: i, Msg: "trailing data after the object"}
	}
	return nil
}

func (f *LineFields) setString(id fieldID, v []byte) {
	switch id {
	case fieldTimestamp:
		f.Timestamp = v
	case fieldActor:
		f.Actor = v
	case fieldEvent:
		f.Event = v
	case fieldScript:
		f.Script = v
	case fieldSessionID:
		f.SessionID = v
	case fieldDecision:
		f.Decision = v
	case fieldSignal:
		f.Signal = v
	case fieldPrevSHA256:
		f.PrevSHA256 = v
	case fieldExitCode:
		f.HasExitCode, f.ExitCode = false, 0
	case fieldSeq:
		f.HasSeq, f.SeqInt, f.Seq = false, false, 0
	}
}

func (f *LineFields) setNumber(id fieldID, num []byte) {
	switch id {
	case fieldExitCode:
		f.HasExitCode = true
		if n, ok := smallInt(num); ok {
			f.ExitCode = float64(n)
		} else {
			// Valid JSON numbers always parse; huge ones become ±Inf,
			// which is still "not zero".
			f.ExitCode, _ = strconv.ParseFloat(string(num), 64)
		}
	case fieldSeq:
		f.HasSeq = true
		f.Seq, f.SeqInt = smallInt(num)
	default:
		f.setString(id, nil)
	}
}

// smallInt parses a JSON number that is a plain integer fitting an int64.
func smallInt(num []byte) (int64, bool) {
	if len(num) == 0 || len(num) > 18 {
		// 18 digits cannot overflow; longer ones are rare enough for
		// strconv (which allocates).
		n, err := strconv.ParseInt(string(num), 10, 64)
		return n, err == nil
	}
	neg := num[0] == '-'
	digits := num
	if neg {
		digits = num[1:]
	}
	if len(digits) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// unescape decodes a quoted JSON string (quotes included) that contains
// escapes. It is the rare path, so encoding/json does the work and gets the
// surrogate and replacement rules right.
func unescape(quoted []byte) []byte {
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return nil // cannot happen: scanString checked it
	}
	return []byte(s)
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

func errEOL(i int) error {
	return &LineError{Offset: i, Msg: "line ends inside the object (unbalanced brackets or a cut-off line)"}
}

func errChar(b []byte, i int, want string) error {
	return &LineError{Offset: i, Msg: fmt.Sprintf("invalid character %s where %s was expected", quoteByte(b[i]), want)}
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// SWAR constants: 8 bytes at a time, looking for a quote, a backslash or a
// control character, which are the only bytes a string scan must stop at.
const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

func hasZeroByte(x uint64) uint64 { return (x - swarLo) & ^x & swarHi }

// scanString scans the JSON string starting at b[i] == '"' and returns the
// index just past its closing quote and whether it contains escapes.
func scanString(b []byte, i int) (end int, escaped bool, err error) {
	start := i
	i++
	for {
	words:
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			// A byte < 0x20 has its top three bits clear: (x & 0xe0..)
			// has a zero byte there. Bytes >= 0x80 never match.
			special := hasZeroByte(x^(swarLo*'"')) | hasZeroByte(x^(swarLo*'\\')) | hasZeroByte(x&(swarLo*0xe0))
			if special != 0 {
				// The lowest flagged byte is exact (false positives
				// only appear above a true one).
				i += bits.TrailingZeros64(special) >> 3
				break words
			}
			i += 8
		}
		if i+8 > len(b) {
			for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
				i++
			}
		}
		if i >= len(b) {
			return 0, false, &LineError{Offset: start, Msg: "unterminated string"}
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return 0, false, &LineError{Offset: start, Msg: "unterminated string"}
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return 0, false, &LineError{Offset: i, Msg: "invalid \\u escape in string"}
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return 0, false, &LineError{Offset: i, Msg: "invalid \\u escape in string"}
					}
				}
				i += 6
			default:
				return 0, false, &LineError{Offset: i, Msg: "invalid escape in string"}
			}
		case c < 0x20:
			return 0, false, &LineError{Offset: i, Msg: fmt.Sprintf("control character 0x%02x in string", c)}
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// scanNumber scans a JSON number starting at b[i] and returns its end.
func scanNumber(b []byte, i int) (int, error) {
	start := i
	bad := func() (int, error) {
		return 0, &LineError{Offset: start, Msg: "invalid number"}
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return bad()
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return bad()
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return bad()
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i, nil
}

func scanLiteral(b []byte, i int) (int, error) {
	for _, lit := range [...]string{"true", "false", "null"} {
		if b[i] == lit[0] {
			if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
				return i + len(lit), nil
			}
			return 0, &LineError{Offset: i, Msg: "invalid literal (want true, false or null)"}
		}
	}
	return 0, errChar(b, i, "a value")
}

// skipValue scans one JSON value of any kind starting at b[i] (not past the
// line's end) and returns its end. Containers are followed with an explicit
// stack, so a deeply nested line cannot exhaust the goroutine stack.
func (s *Scanner) skipValue(b []byte, i int) (int, error) {
	stack := s.stack[:0]
	defer func() { s.stack = stack[:0] }()
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return 0, errEOL(i)
		}
		var err error
		switch c := b[i]; {
		case c == '"':
			i, _, err = scanString(b, i)
		case c == '-' || (c >= '0' && c <= '9'):
			i, err = scanNumber(b, i)
		case c == '{' || c == '[':
			// +1: the top-level object counts towards the depth too.
			if len(stack)+2 > maxNestingDepth {
				return 0, &LineError{Offset: i, Msg: "nested too deeply"}
			}
			stack = append(stack, c)
			i = skipWS(b, i+1)
			if i >= len(b) {
				return 0, errEOL(i)
			}
			if (c == '{' && b[i] == '}') || (c == '[' && b[i] == ']') {
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				if i, err = objectKey(b, i); err != nil {
					return 0, err
				}
			}
			continue // the first member's value starts at i
		default:
			i, err = scanLiteral(b, i)
		}
		if err != nil {
			return 0, err
		}
		// After a value: close containers or move to the next member.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return 0, errEOL(i)
			}
			top := stack[len(stack)-1]
			c := b[i]
			if c == ',' {
				i = skipWS(b, i+1)
				if top == '{' {
					if i, err = objectKey(b, i); err != nil {
						return 0, err
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if top == '{' {
				return 0, errChar(b, i, "',' or '}' in object")
			}
			return 0, errChar(b, i, "',' or ']' in array")
		}
	}
}

// objectKey scans `"key" :` starting at b[i] and returns the index where the
// member's value starts (after whitespace).
func objectKey(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errEOL(i)
	}
	if b[i] != '"' {
		return 0, errChar(b, i, "object key")
	}
	j, _, err := scanString(b, i)
	if err != nil {
		return 0, err
	}
	i = skipWS(b, j)
	if i >= len(b) {
		return 0, errEOL(i)
	}
	if b[i] != ':' {
		return 0, errChar(b, i, "':' after object key")
	}
	return skipWS(b, i+1), nil
}

// MaxLineBytes is the longest line the reader accepts. The writer caps the
// command text well below it, so a longer line is damage (or not ours); it is
// reported as such instead of being held in memory.
const MaxLineBytes = 1 << 20

// readBufferSize is the buffered reader's size: large enough that almost
// every line is returned straight from the buffer without copying.
const readBufferSize = 64 << 10

// LineReader reads an events file line by line without a per-line
// allocation. Lines longer than MaxLineBytes are skipped to their end and
// reported as too long rather than truncated or dropped.
type LineReader struct {
	r    *bufio.Reader
	long []byte
	n    int
	err  error
}

// NewLineReader returns a LineReader over r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, readBufferSize)}
}

// newLineReaderSize is NewLineReader with a smaller buffer for small files,
// so many open session files stay cheap.
func newLineReaderSize(r io.Reader, size int64) *LineReader {
	n := readBufferSize
	if size >= 0 && size+1 < int64(n) {
		n = int(size) + 1
	}
	return &LineReader{r: bufio.NewReaderSize(r, n)}
}

// Next returns the next line without its newline, and its 1-based number.
// The bytes are valid until the next call. tooLong reports a line over
// MaxLineBytes, whose bytes are not returned. At the end of the input err is
// io.EOF; a last line without a newline is still returned first.
func (lr *LineReader) Next() (line []byte, num int, tooLong bool, err error) {
	if lr.err != nil {
		return nil, lr.n, false, lr.err
	}
	line, err = lr.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = lr.r.ReadSlice('\n')
			if !tooLong {
				lr.long = append(lr.long, line...)
				if len(lr.long) > MaxLineBytes+1 {
					tooLong = true
					lr.long = lr.long[:0]
				}
			}
		}
		if tooLong {
			line = nil
		} else {
			line = lr.long
		}
		if cap(lr.long) > 4*readBufferSize {
			// Do not keep a megabyte alive for the rest of the file.
			lr.long = nil
		}
	}
	if err != nil {
		if err != io.EOF {
			lr.err = err
			return nil, lr.n, false, err
		}
		lr.err = io.EOF
		if len(line) == 0 && !tooLong {
			return nil, lr.n, false, io.EOF
		}
	}
	lr.n++
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if len(line) > MaxLineBytes {
		return nil, lr.n, true, nil
	}
	return line, lr.n, tooLong, nil
}
