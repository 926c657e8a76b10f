package hostapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzStripObject: removing agent-shell's entries never panics, is
// idempotent, leaves no entry that runs agent-shell, and keeps every string
// that does not name it.
func FuzzStripObject(f *testing.F) {
	for _, s := range []string{
		`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"agent-shell hook --agent=claude"}]},{"matcher":"Bash","hooks":[{"command":"mine"}]}]}}`,
		`{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"agent-shell policy-check"}]}}`,
		`{"amp.permissions":[{"tool":"Bash","action":"delegate","to":"/r/.agent-shell/bin/agent-shell-amp"},{"tool":"x"}]}`,
		`{"a":[[{"command":"agent-shell hook"}]],"b":{"c":{}}}`, `{}`, `{"x":"agent-shell hook"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var doc map[string]any
		if json.Unmarshal([]byte(src), &doc) != nil || doc == nil {
			return
		}
		before := strings.Count(src, `"`) // a cheap bound: nothing is added
		stripObject(doc)
		once, _ := json.Marshal(doc)
		stripObject(doc)
		twice, _ := json.Marshal(doc)
		if string(once) != string(twice) {
			t.Fatalf("not idempotent:\n%s\n%s", once, twice)
		}
		if strings.Count(string(once), `"`) > before {
			t.Fatalf("grew: %s", once)
		}
		var walk func(v any, inList bool)
		walk = func(v any, inList bool) {
			switch v := v.(type) {
			case map[string]any:
				if inList && ours(v) {
					t.Fatalf("an agent-shell entry is left: %v", v)
				}
				for _, e := range v {
					walk(e, false)
				}
			case []any:
				for _, e := range v {
					walk(e, true)
				}
			}
		}
		walk(doc, false)
	})
}

func TestStripObjectKeepsTheUsersOwn(t *testing.T) {
	src := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"agent-shell hook --agent=claude","timeout":10}]},{"matcher":"Bash","hooks":[{"type":"command","command":"my-hook"}]}],"Stop":[{"hooks":[{"type":"command","command":"agent-shell hook --agent=claude"}]}]},"permissions":{"allow":[]}}`
	want := `{"hooks":{"PreToolUse":[{"hooks":[{"command":"my-hook","type":"command"}],"matcher":"Bash"}]},"permissions":{"allow":[]}}`
	var doc, wantDoc map[string]any
	if err := json.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(want), &wantDoc)
	if !stripObject(doc) {
		t.Fatal("nothing removed")
	}
	if !reflect.DeepEqual(doc, wantDoc) {
		got, _ := json.Marshal(doc)
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
