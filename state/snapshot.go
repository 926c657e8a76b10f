package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/agent-shell/agent-shell/internal/jsonstr"
)

const (
	// SnapshotVersion is the "version" of the snapshot files this package
	// writes; a file with any other version is an error.
	SnapshotVersion = 1
	// MaxFileBytes caps a snapshot file, identity included: a bigger next
	// state is not committed, a bigger file is not read.
	MaxFileBytes = 256 << 10
	// MaxDepth caps the nesting of a state: the state map itself is level
	// 1, and each list or map inside adds one.
	MaxDepth = 32
)

// A snapshot file is one JSON object:
//
//	{"version":1,"script_id":…,"kind":…,"source_sha256":…,"manifest_sha256":…,"state":{…}}
//
// with exactly these keys. State values are JSON-like: nil, bool, int64,
// float64, string, []any and map[string]any. Integers are written as JSON
// integers and floats always with a '.' or an exponent, so that each comes
// back as the type it was.
type snapshot struct {
	Identity
	State json.RawMessage
}

// Built without fmt: package initialisation runs on every hook call.
var errTooLarge = errors.New("state over the " + strconv.Itoa(MaxFileBytes) + "-byte limit")

// encodeSnapshot writes the snapshot file of st (nil meaning empty) under id.
func encodeSnapshot(id Identity, st map[string]any) ([]byte, error) {
	b := make([]byte, 0, 256)
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, SnapshotVersion, 10)
	var err error
	for _, f := range [...]struct{ key, val string }{
		{"script_id", id.ScriptID},
		{"kind", id.Kind},
		{"source_sha256", id.SourceSHA256},
		{"manifest_sha256", id.ManifestSHA256},
	} {
		b = append(b, ',', '"')
		b = append(b, f.key...)
		b = append(b, '"', ':')
		if b, err = appendString(b, f.val); err != nil {
			return nil, fmt.Errorf("%s: %w", f.key, err)
		}
	}
	b = append(b, `,"state":`...)
	if st == nil {
		st = map[string]any{}
	}
	if b, err = appendValue(b, st, 1); err != nil {
		return nil, err
	}
	b = append(b, '}', '\n')
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("state snapshot is %d bytes, over the %d-byte limit", len(b), MaxFileBytes)
	}
	return b, nil
}

// Validate reports whether st is a state Transact can commit: JSON-like
// values only (nil, bool, int64 or int, float64 other than NaN and
// infinities, valid UTF-8 strings, []any, map[string]any), nested at most
// MaxDepth levels. The size cap is checked when committing.
func Validate(st map[string]any) error {
	return validate(st, 1)
}

func validate(v any, depth int) error {
	switch v := v.(type) {
	case nil, bool, int64, int:
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("state holds %v, which JSON cannot represent", v)
		}
	case string:
		if !utf8.ValidString(v) {
			return errors.New("state holds a string that is not valid UTF-8")
		}
	case []any:
		if depth > MaxDepth {
			return errTooDeep
		}
		for _, e := range v {
			if err := validate(e, depth+1); err != nil {
				return err
			}
		}
	case map[string]any:
		if depth > MaxDepth {
			return errTooDeep
		}
		for k, e := range v {
			if !utf8.ValidString(k) {
				return errors.New("state holds a key that is not valid UTF-8")
			}
			if err := validate(e, depth+1); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("state holds a %T, not JSON-like data", v)
	}
	return nil
}

var errTooDeep = errors.New("state nested more than " + strconv.Itoa(MaxDepth) + " levels")

// appendValue appends v as JSON; depth is the level v would have if it
// is a list or map.
func appendValue(b []byte, v any, depth int) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case float64:
		return appendFloat(b, v)
	case string:
		return appendString(b, v)
	case []any:
		if depth > MaxDepth {
			return nil, errTooDeep
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e, depth+1); err != nil {
				return nil, err
			}
			if len(b) > MaxFileBytes {
				return nil, errTooLarge
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		if depth > MaxDepth {
			return nil, errTooDeep
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendString(b, k); err != nil {
				return nil, err
			}
			b = append(b, ':')
			if b, err = appendValue(b, v[k], depth+1); err != nil {
				return nil, err
			}
			if len(b) > MaxFileBytes {
				return nil, errTooLarge
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("state holds a %T, not JSON-like data", v)
}

// appendFloat writes f as encoding/json does, plus ".0" when that would
// look like an integer (encoding/json writes 2.0 as 2), so that it decodes
// back as a float.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("state holds %v, which JSON cannot represent", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if bytes.IndexAny(b[start:], ".e") < 0 {
		b = append(b, '.', '0')
	}
	return b, nil
}

// appendString writes s as a JSON string. Invalid UTF-8 is an error: it
// could only be written by replacing bytes, and state must come back as it
// was committed.
func appendString(b []byte, s string) ([]byte, error) {
	b, err := jsonstr.AppendExact(b, s)
	if err != nil {
		return nil, errors.New("state holds a string that is not valid UTF-8")
	}
	return b, nil
}

// decodeEnvelope parses a snapshot file's envelope strictly: one JSON
// object with exactly the snapshot's keys (each once, spelled exactly),
// version SnapshotVersion, nothing after it. The state is left undecoded,
// to be decoded only when the identity matches.
func decodeEnvelope(data []byte) (*snapshot, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	snap := &snapshot{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // the decoder only yields strings as keys
		if seen[key] {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		var dst *string
		switch key {
		case "version":
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("version: %w", err)
			}
			if string(v) != strconv.Itoa(SnapshotVersion) {
				return nil, fmt.Errorf("unsupported snapshot version %.20s (want %d)", v, SnapshotVersion)
			}
			continue
		case "state":
			if err := dec.Decode(&snap.State); err != nil {
				return nil, fmt.Errorf("state: %w", err)
			}
			continue
		case "script_id":
			dst = &snap.ScriptID
		case "kind":
			dst = &snap.Kind
		case "source_sha256":
			dst = &snap.SourceSHA256
		case "manifest_sha256":
			dst = &snap.ManifestSHA256
		default:
			return nil, fmt.Errorf("unknown key %q", key)
		}
		if err := dec.Decode(dst); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	for _, k := range [...]string{"version", "script_id", "kind", "source_sha256", "manifest_sha256", "state"} {
		if !seen[k] {
			return nil, fmt.Errorf("missing key %q", k)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the snapshot object")
	}
	return snap, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q, found %v", want, tok)
	}
	return nil
}

// decodeState decodes a snapshot's state: a JSON object whose numbers come
// back as int64 when they are integers in range, else as float64.
func decodeState(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("state is %s, not an object", jsonKind(v))
	}
	if err := normalize(m, 1); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	return m, nil
}

// normalize turns json.Numbers into int64 or float64 in place and checks
// the depth.
func normalize(v any, depth int) error {
	switch v := v.(type) {
	case []any:
		if depth > MaxDepth {
			return errTooDeep
		}
		for i, e := range v {
			n, err := normalizeLeaf(e, depth+1)
			if err != nil {
				return err
			}
			v[i] = n
		}
	case map[string]any:
		if depth > MaxDepth {
			return errTooDeep
		}
		for k, e := range v {
			n, err := normalizeLeaf(e, depth+1)
			if err != nil {
				return err
			}
			v[k] = n
		}
	}
	return nil
}

func normalizeLeaf(v any, depth int) (any, error) {
	switch v := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s out of range", v)
		}
		return f, nil
	case []any, map[string]any:
		return v, normalize(v, depth)
	}
	return v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}
