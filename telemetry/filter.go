package telemetry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// AuditFilter is the project's audit filter: it sees one event, already
// redacted, and its top-level fields decoded, and says which fields to
// drop and which to set to a string.
type AuditFilter func(e *Event, fields map[string]any) (FilterEdit, error)

// FilterEdit is what an audit filter changes in an event line.
type FilterEdit struct {
	Drop []string
	Set  map[string]string
}

// ProtectedFields are what no audit filter may touch: the chain, what
// identifies the event, and the verdict it records. A filter is for
// content (commands, inputs, environment), not for rewriting the record.
// Names are compared ignoring case, because JSON decoders match them so.
var ProtectedFields = []string{"v", "session_id", "event", "timestamp", "seq", "prev_sha256",
	"decision", "matched_rule", "rule", "filter_error"}

// maxFilterGrowth bounds how much longer a filter may make a line, so that
// a filtered event stays readable.
const maxFilterGrowth = 64 << 10

func protected(name string) bool {
	return slices.ContainsFunc(ProtectedFields, func(p string) bool { return strings.EqualFold(p, name) })
}

// filter applies w.Filter to one encoded event. Whatever goes wrong (the
// filter fails, touches a protected field, or the edit does not apply), the
// event is still written: unfiltered, as the core redaction left it, with a
// filter_error saying why. An event is never lost to its filter.
func (w *Writer) filter(e *Event, line []byte) []byte {
	fields, order, err := decodeObject(line)
	if err == nil {
		var edit FilterEdit
		edit, err = w.Filter(e, fields)
		if err == nil {
			var out []byte
			out, err = applyEdit(line, order, edit)
			if err == nil {
				return out
			}
		}
	}
	e.FilterError = truncateUTF8(Redact(err.Error()), MaxCommandBytes)
	return e.AppendJSON(nil)
}

// applyEdit rewrites a line's top-level members in their order: dropped
// ones left out, set ones replaced by their (redacted) string, new ones
// added before the chain fields.
func applyEdit(line []byte, order []member, edit FilterEdit) ([]byte, error) {
	for _, name := range edit.Drop {
		if protected(name) {
			return nil, fmt.Errorf("the audit filter may not drop %q", name)
		}
	}
	names := make([]string, 0, len(edit.Set))
	for name := range edit.Set {
		if protected(name) {
			return nil, fmt.Errorf("the audit filter may not set %q", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	out := []byte{'{'}
	added := false
	addNew := func() {
		for _, name := range names {
			if !slices.ContainsFunc(order, func(m member) bool { return m.name == name }) {
				out = appendMember(out, name, appendString(nil, truncateUTF8(Redact(edit.Set[name]), MaxCommandBytes)))
			}
		}
		added = true
	}
	for _, m := range order {
		if !added && (m.name == "seq" || m.name == "prev_sha256") {
			addNew()
		}
		switch {
		case slices.Contains(edit.Drop, m.name):
		case edit.Set != nil && hasKey(edit.Set, m.name):
			out = appendMember(out, m.name, appendString(nil, truncateUTF8(Redact(edit.Set[m.name]), MaxCommandBytes)))
		default:
			out = appendMember(out, m.name, line[m.start:m.end])
		}
	}
	if !added {
		addNew()
	}
	if len(out) > len(line)+maxFilterGrowth {
		return nil, fmt.Errorf("the audit filter's edit adds %d bytes; at most %d may be added", len(out)-len(line), maxFilterGrowth)
	}
	return append(out, '}'), nil
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

func appendMember(b []byte, name string, value []byte) []byte {
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = appendString(b, name)
	b = append(b, ':')
	return append(b, value...)
}

// member is one top-level member of an encoded event: its name and where
// its value's bytes are.
type member struct {
	name       string
	start, end int
}

// decodeObject decodes an encoded event's top-level members: their values
// as JSON-like data (integers as int64, other numbers as float64) and their
// order and byte ranges.
func decodeObject(line []byte) (map[string]any, []member, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("event is not a JSON object")
	}
	fields := map[string]any{}
	var order []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		end := int(dec.InputOffset())
		order = append(order, member{name: name, start: end - len(raw), end: end})
		v, err := plainJSON(raw)
		if err != nil {
			return nil, nil, err
		}
		fields[name] = v
	}
	if _, err := dec.Token(); err != nil && err != io.EOF {
		return nil, nil, err
	}
	return fields, order, nil
}

// plainJSON decodes a value with integers as int64 and other numbers as
// float64, the types script bridges accept.
func plainJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return numbers(v), nil
}

func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = numbers(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = numbers(v[k])
		}
	}
	return v
}
