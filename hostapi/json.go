package hostapi

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

func kindOf(kinds map[string]Kind, native string) Kind {
	if k, ok := kinds[native]; ok {
		return k
	}
	return KindUnknown
}

// jsonString decodes raw when it is a JSON string (null is not one).
func jsonString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if s, ok := plainJSONString(raw); ok {
		return s, true
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// plainJSONString decodes a JSON string with nothing to unescape (no
// backslash, no control character, valid UTF-8) in one pass: most commands,
// where json.Unmarshal would read a long one twice.
func plainJSONString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, b := range body {
		if b < 0x20 || b == '"' || b == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// stringField is jsonString for optional fields: anything else is "".
func stringField(raw json.RawMessage) string {
	s, _ := jsonString(raw)
	return s
}

// toolName reads a tool name field: a non-empty string of bounded length.
func toolName(raw json.RawMessage) (string, bool) {
	s, ok := jsonString(raw)
	if !ok || s == "" || len(s) > maxToolName {
		return "", false
	}
	return s, true
}

// marshalLine encodes v as one line of JSON. HTML escaping is off so that
// reasons read as written.
func marshalLine(v map[string]any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps of strings and maps always encode
	return b.Bytes()
}
