package telemetry

import (
	"regexp"
	"testing"
)

func TestSessionIDIsARandomUUID(t *testing.T) {
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	unset := func(string) string { return "" }
	seen := map[string]bool{}
	for range 100 {
		id, warn := SessionID(unset)
		if warn != nil || !v4.MatchString(id) || !ValidSessionID(id) {
			t.Fatalf("SessionID() = %q, %v; want a version 4 UUID", id, warn)
		}
		if seen[id] {
			t.Fatalf("SessionID() gave %q twice", id)
		}
		seen[id] = true
	}
	id, warn := SessionID(func(string) string { return "../x" })
	if warn == nil || !v4.MatchString(id) {
		t.Errorf("SessionID with an invalid AGENTSHELL_SESSION_ID = %q, %v; want a fresh UUID and a warning", id, warn)
	}
	if id, warn := SessionID(func(string) string { return "mine_1" }); id != "mine_1" || warn != nil {
		t.Errorf("SessionID with AGENTSHELL_SESSION_ID=mine_1 = %q, %v", id, warn)
	}
}
