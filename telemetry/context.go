package telemetry

import (
	"os"
	"slices"
	"strings"

	"github.com/agent-shell/agent-shell/internal/textcut"
)

// Actor labels that are not agent names.
const (
	ActorHuman = "human"
	ActorCI    = "ci"
)

// AgentEnv is a variable an agent sets in the environment of the shell
// commands it runs, and the actor it names: set to Value, or to anything
// not empty when Value is "". The known agents' list, in priority order,
// is the hosts' own (hostapi.ActorMarkers); telemetry imports nothing of
// agent-shell's, so its callers pass it, and the type is an unnamed
// struct's, as hostapi.ActorMarker's is, so that it passes as it is.
type AgentEnv = struct{ Name, Value, Actor string }

// DetectActor names who is running the command, and what it claims to be
// when that differs. First match wins, and a variable counts as set only
// when non-empty:
//
//  1. AGENTSHELL_ACTOR, verbatim, unless an agent is detected below: a
//     human or a CI job may label its runs, but an agent cannot hide
//     behind a label (it is recorded as the agent, the label as claimed);
//  2. a known agent's marker (agents, first match wins);
//  3. the generic AI_AGENT=<name> or AGENT=<name> conventions, when the
//     value is a plain name rather than a flag such as "1";
//  4. "ci" when GITHUB_ACTIONS is "true" or CI is "true";
//  5. otherwise "human".
//
// Unlike the reference tool, agents are checked before CI: an agent running
// inside a CI job (the Copilot cloud agent runs in GitHub Actions) is
// labelled as that agent, not hidden behind "ci". A nil getenv means
// os.Getenv.
func DetectActor(getenv func(string) string, agents []AgentEnv) (actor, claimed string) {
	if getenv == nil {
		getenv = os.Getenv
	}
	detected := detectActor(getenv, agents)
	return ClaimActor(getenv, detected)
}

// ClaimActor weighs AGENTSHELL_ACTOR against an actor known otherwise: the
// label names the actor of a human's or CI's run, but never replaces an
// agent; it is then returned as the claim.
func ClaimActor(getenv func(string) string, known string) (actor, claimed string) {
	claim := getenv("AGENTSHELL_ACTOR")
	switch {
	case claim == "" || claim == known:
		return known, ""
	case known == ActorHuman || known == ActorCI:
		return claim, ""
	}
	return known, claim
}

func detectActor(getenv func(string) string, agents []AgentEnv) string {
	if _, actor := AgentMarker(getenv, agents); actor != "" {
		return actor
	}
	if getenv("GITHUB_ACTIONS") == "true" || strings.EqualFold(getenv("CI"), "true") {
		return ActorCI
	}
	return ActorHuman
}

// AgentMarker names the first variable, in DetectActor's order, that marks
// an agent's session in the environment getenv reads (a known agent's
// marker among agents, then AI_AGENT or AGENT holding an agent's name), and
// the actor it names; both are "" when none is set.
func AgentMarker(getenv func(string) string, agents []AgentEnv) (name, actor string) {
	for _, m := range agents {
		v := getenv(m.Name)
		if v != "" && (m.Value == "" || v == m.Value) {
			return m.Name, m.Actor
		}
	}
	for _, name := range [...]string{"AI_AGENT", "AGENT"} {
		if a := agentName(getenv(name)); a != "" {
			return name, a
		}
	}
	return "", ""
}

// agentName turns the value of a generic agent variable into an actor label,
// or "" when it is empty, a boolean-like flag (opencode sets AGENT=1) or not
// a plain name. The value is lower-cased so the label set stays small.
func agentName(v string) string {
	if v == "" || len(v) > 64 {
		return ""
	}
	switch strings.ToLower(v) {
	case "1", "0", "true", "false", "yes", "no", "on", "off":
		return ""
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '@') {
			return ""
		}
	}
	return strings.ToLower(v)
}

// Limits on captured values, as in the reference tool.
const (
	maxCapturedValueBytes = 1024
	maxTags               = 50
	truncatedSuffix       = "…[truncated]"
	envTruncatedKey       = "_env_truncated"
	tagsTruncatedKey      = "_tags_truncated"
	tagPrefix             = "AGENTSHELL_TAG_"
)

// CaptureEnv picks the environment variables worth recording from environ
// (os.Environ form, "K=V"). A name is kept when its lower-cased form is
// npm_package_name, npm_package_version, node_env or ci, or starts with
// npm_lifecycle_, github_ or agentshell_; and it does not contain secret,
// token, key, password, credential or auth (so GITHUB_TOKEN is dropped);
// and it is not an AGENTSHELL_TAG_ variable (those become tags). Names keep
// their case. Values are redacted, then cut to 1024 bytes on a code-point
// boundary with "…[truncated]" appended, which also sets
// "_env_truncated": "true". The result is never nil.
func CaptureEnv(environ []string) map[string]string {
	out := make(map[string]string)
	truncated := false
	// Walk backwards so that, as with exec, the last duplicate wins.
	for i := len(environ) - 1; i >= 0; i-- {
		name, val, ok := strings.Cut(environ[i], "=")
		if !ok || name == "" || strings.HasPrefix(name, tagPrefix) || !envNameAllowed(name) {
			continue
		}
		if _, seen := out[name]; seen {
			continue
		}
		v, cut := truncateValue(Redact(val))
		out[name] = v
		truncated = truncated || cut
	}
	if truncated {
		out[envTruncatedKey] = "true"
	}
	return out
}

func envNameAllowed(name string) bool {
	allowed := false
	for _, exact := range [...]string{"npm_package_name", "npm_package_version", "node_env", "ci"} {
		if rdEqualFold(name, exact) {
			allowed = true
			break
		}
	}
	if !allowed {
		for _, prefix := range [...]string{"npm_lifecycle_", "github_", "agentshell_"} {
			if len(name) >= len(prefix) && rdEqualFold(name[:len(prefix)], prefix) {
				allowed = true
				break
			}
		}
	}
	if !allowed {
		return false
	}
	for _, bad := range [...]string{"secret", "token", "key", "password", "credential", "auth"} {
		if rdIndexFold(name, bad, 0) >= 0 {
			return false
		}
	}
	return true
}

// CaptureTags collects AGENTSHELL_TAG_<KEY>=value variables (the prefix is
// case-sensitive) as tags keyed by the lower-cased KEY. Empty keys, the
// prototype-pollution keys __proto__, constructor and prototype, and the
// marker key _tags_truncated are dropped. Values are redacted and cut like
// CaptureEnv's; at most 50 keys are kept, the first 50 in byte order. A cut
// value, or keys beyond the 50th, set "_tags_truncated": "true". The result
// is never nil.
func CaptureTags(environ []string) map[string]string {
	var raw map[string]string
	for _, kv := range environ {
		if !strings.HasPrefix(kv, tagPrefix) {
			continue
		}
		name, val, ok := strings.Cut(kv[len(tagPrefix):], "=")
		if !ok {
			continue
		}
		key := strings.ToLower(name)
		switch key {
		case "", "__proto__", "constructor", "prototype", tagsTruncatedKey:
			continue
		}
		if raw == nil {
			raw = make(map[string]string)
		}
		raw[key] = val // later duplicates win, as with exec
	}
	if len(raw) == 0 {
		return map[string]string{}
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	truncated := false
	if len(keys) > maxTags {
		keys, truncated = keys[:maxTags], true
	}
	out := make(map[string]string, len(keys)+1)
	for _, k := range keys {
		v, cut := truncateValue(Redact(raw[k]))
		out[k] = v
		truncated = truncated || cut
	}
	if truncated {
		out[tagsTruncatedKey] = "true"
	}
	return out
}

// truncateValue cuts v to maxCapturedValueBytes without splitting a UTF-8
// sequence and appends truncatedSuffix. It reports whether it cut.
func truncateValue(v string) (string, bool) {
	if t, cut := textcut.Cut(v, maxCapturedValueBytes); cut {
		return t + truncatedSuffix, true
	}
	return v, false
}

// maxSessionIDBytes bounds a session id: it becomes a file name.
const maxSessionIDBytes = 128

// ValidSessionID reports whether id can name a session file: 1 to 128 bytes
// of [A-Za-z0-9_-], so "..", "/" and "\" can never reach a path.
func ValidSessionID(id string) bool {
	if id == "" || len(id) > maxSessionIDBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
