package telemetry

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"golang.org/x/sys/unix"
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
	return newUUID(), warn
}

// newUUID is a random (version 4) UUID. Its bytes come from getrandom(2)
// itself: crypto/rand's first read in a process also starts a watchdog
// timer and sets up the vDSO's random state, which took longer than the
// read in a shim that lives a few milliseconds. crypto/rand stays the
// fallback should the call fail (before the kernel's pool is ready).
func newUUID() string {
	var b [16]byte
	if n, err := unix.Getrandom(b[:], 0); err != nil || n != len(b) {
		rand.Read(b[:])
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // the RFC 9562 variant
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}
