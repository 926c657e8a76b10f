package telemetry

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedactJSON(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3d", 9)
	tests := []struct {
		name, in, want string
	}{
		{"empty", ``, ``},
		{"secret in a nested string", `{"command":"curl -H 'Authorization: Bearer ` + token + `' x","n":{"k":["` + token + `"]}}`,
			`{"command":"curl -H 'Authorization: Bearer [REDACTED]' x","n":{"k":["[REDACTED]"]}}`},
		{"numbers kept exactly", `{"big":12345678901234567890,"f":1.50}`, `{"big":12345678901234567890,"f":1.50}`},
		{"not json", `{"a":`, `"{\"a\":"`},
		{"newlines escaped", "{\"a\":\"x\\ny\"}", `{"a":"x\ny"}`},
		{"html kept", `{"a":"<b>&"}`, `{"a":"<b>&"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(RedactJSON(json.RawMessage(tt.in))); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	long := `{"content":"` + strings.Repeat("é", 5000) + `"}`
	got := RedactJSON(json.RawMessage(long))
	var m map[string]string
	if err := json.Unmarshal(got, &m); err != nil || len(m["content"]) > maxJSONString+len(truncatedMarker) {
		t.Errorf("long string: %v, %d bytes", err, len(m["content"]))
	}
	var many []string
	for i := 0; i < 100; i++ {
		many = append(many, strings.Repeat("x", 1000))
	}
	big, _ := json.Marshal(many)
	if got := string(RedactJSON(big)); !strings.HasPrefix(got, `{"truncated":true`) {
		t.Errorf("large value kept: %d bytes", len(got))
	}
}

func FuzzRedactJSON(f *testing.F) {
	f.Add([]byte(`{"a":["b",1,{"c":null}]}`))
	f.Add([]byte(`"x"`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out := RedactJSON(in)
		if len(out) == 0 {
			return
		}
		if !json.Valid(out) || strings.ContainsAny(string(out), "\n\r") {
			t.Fatalf("RedactJSON(%q) = %q", in, out)
		}
	})
}
