package telemetry

import (
	"fmt"

	"github.com/google/uuid"
)

// SessionID returns AGENTSHELL_SESSION_ID when it is set and valid, else a
// fresh random UUID; warn says why a set value was not used.
func SessionID(getenv func(string) string) (id string, warn error) {
	v := getenv("AGENTSHELL_SESSION_ID")
	if ValidSessionID(v) {
		return v, nil
	}
	if v != "" {
		warn = fmt.Errorf("invalid AGENTSHELL_SESSION_ID %q (want 1-128 of A-Z a-z 0-9 _ -), using a new id", v)
	}
	return uuid.NewString(), warn
}
