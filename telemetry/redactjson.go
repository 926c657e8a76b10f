package telemetry

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Limits on the JSON an event carries from a hook payload (a tool's input,
// the payload's other fields): a Write tool's input can hold a whole file.
const (
	maxJSONString = 1 << 10
	maxJSONBytes  = 16 << 10
	maxJSONDepth  = 32
)

// RedactJSON returns v with every string (keys kept) redacted and cut to
// 1 KiB, compact and on one line, ready for an event. A value that is not
// valid JSON is kept as a redacted string; a result over 16 KiB is replaced
// by {"truncated":true,"bytes":N}.
func RedactJSON(v json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(v)) == 0 {
		return nil
	}
	var x any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil || dec.More() {
		x = string(v)
	}
	x = redactValue(x, 0)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
	if len(out) > maxJSONBytes {
		return json.RawMessage(`{"truncated":true,"bytes":` + strconv.Itoa(len(v)) + `}`)
	}
	return out
}

func redactValue(x any, depth int) any {
	if depth > maxJSONDepth {
		return "…[truncated]"
	}
	switch x := x.(type) {
	case string:
		return truncateUTF8(Redact(x), maxJSONString)
	case map[string]any:
		for k, v := range x {
			x[k] = redactValue(v, depth+1)
		}
		return x
	case []any:
		for i, v := range x {
			x[i] = redactValue(v, depth+1)
		}
		return x
	}
	return x
}
