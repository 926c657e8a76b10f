package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// maxNameBytes bounds a script id or session id used as a path element.
const maxNameBytes = 128

// hashedPrefix starts the stored form of a session id that is not a safe
// path element; safe ids with this prefix are hashed too, so that no two
// session ids share a folder.
const hashedPrefix = "h-"

// safeName reports whether s can be a path element as it is: 1 to 128
// bytes of [A-Za-z0-9._-], and not "." or "..".
func safeName(s string) bool {
	if s == "" || len(s) > maxNameBytes || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// safeScriptID reports whether a script id can name a snapshot file: a safe
// name, or a pack's script PACK/ID, stored in the pack's own folder.
func safeScriptID(s string) bool {
	pack, id, namespaced := strings.Cut(s, "/")
	if namespaced {
		return safeName(pack) && safeName(id)
	}
	return safeName(s)
}

// SessionKey is the folder name of a session: the session id itself when it
// is a safe path element (1 to 128 bytes of [A-Za-z0-9._-], not "." or "..",
// not starting with "h-"), else "h-" and the first 32 hex digits of its
// SHA-256. Session ids come from agents' payloads and can be anything; an
// empty one is an error.
func SessionKey(sessionID string) (string, error) {
	if sessionID == "" {
		return "", errors.New("session state needs a session id")
	}
	if safeName(sessionID) && !strings.HasPrefix(sessionID, hashedPrefix) {
		return sessionID, nil
	}
	sum := sha256.Sum256([]byte(sessionID))
	return hashedPrefix + hex.EncodeToString(sum[:16]), nil
}

// isSHA256Hex reports whether s is 64 lowercase hex digits.
func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// check validates an identity that names a snapshot: the script id is a
// safe path element, the kind is set, and both digests are SHA-256 in
// lowercase hex.
func (id Identity) check() error {
	if !safeScriptID(id.ScriptID) {
		return fmt.Errorf("invalid script id %q: want 1 to %d characters of [A-Za-z0-9._-], or PACK/ID of two such", id.ScriptID, maxNameBytes)
	}
	if id.Kind == "" {
		return fmt.Errorf("script %q: missing kind", id.ScriptID)
	}
	if !isSHA256Hex(id.SourceSHA256) {
		return fmt.Errorf("script %q: invalid source digest %q: want 64 lowercase hex digits", id.ScriptID, id.SourceSHA256)
	}
	if !isSHA256Hex(id.ManifestSHA256) {
		return fmt.Errorf("script %q: invalid manifest digest %q: want 64 lowercase hex digits", id.ScriptID, id.ManifestSHA256)
	}
	return nil
}
