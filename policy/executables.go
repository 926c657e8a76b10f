package policy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/runtime"
)

// compileExecutables turns every [[script]] that names an executable into
// a pinned runtime.Executable, resolved inside the manifest's folder. The
// pin is checked before every run, not here: a missing or changed file
// fails the call with the script's declared outcome, and policy check
// reports it.
func (m *Manifest) compileExecutables() {
	dir := filepath.Dir(m.Path)
	for _, s := range m.Scripts {
		if s.Executable == "" {
			continue
		}
		if m.executables == nil {
			m.executables = map[string]*runtime.Executable{}
		}
		abs, _ := filepath.Abs(filepath.Join(dir, filepath.FromSlash(s.Executable)))
		absDir, _ := filepath.Abs(dir)
		m.executables[s.ID] = &runtime.Executable{ID: s.ID, Kind: builtins.Kind(s.Kind), Path: abs,
			SHA256: strings.ToLower(s.SHA256), Dir: absDir, Timeout: s.timeout}
	}
}

// ErrExecutableNotRun is the failure of an executable extension that a
// replay does not run (LoadReplay): it takes its declared failure outcome.
var ErrExecutableNotRun = errors.New("executable extension not run: replay runs executables only when told to")

// VerifyExecutables checks every executable extension against its pin
// without running it: what policy check adds for them.
func (m *Manifest) VerifyExecutables() error {
	for _, s := range m.Scripts {
		if x := m.executables[s.ID]; x != nil {
			if err := x.Verify(); err != nil {
				return fmt.Errorf("script %q: %w", s.ID, err)
			}
		}
	}
	return nil
}

// kindOf is a declared script's kind.
func (m *Manifest) kindOf(id string) builtins.Kind {
	if s := m.script(id); s != nil {
		return builtins.Kind(s.Kind)
	}
	return ""
}

// invoke runs one extension, Starlark or executable: input builds the
// Starlark value, payload the shell-hook-json-v1 payload; only the one the
// script needs is built.
func (m *Manifest) invoke(ctx context.Context, id, session string, input func() (starlark.Value, error), payload func() map[string]any) runtime.Result {
	if x := m.executables[id]; x != nil {
		if m.skipExecutables {
			return runtime.Result{Failure: runtime.FailSkipped, Err: ErrExecutableNotRun}
		}
		var b [8]byte
		rand.Read(b[:]) //nolint:errcheck // never fails on Linux
		return x.Run(ctx, "shell-hook-"+hex.EncodeToString(b[:]), payload()).Result
	}
	v, err := input()
	if err != nil {
		return runtime.Result{Failure: runtime.FailInput, Err: err}
	}
	return m.runtime.Invoke(ctx, id, v, session)
}

// hookContext is the context payload of shell-hook-json-v1 (reference
// §10.3) for one simple command: what agent-shell knows of it. Fields the
// reference has and agent-shell does not model (capabilities, stdin) are
// given their empty values; environment values are never sent.
func hookContext(event, requestID, session, manifestDigest, cwd, program string, argv, effects []string, policy any) map[string]any {
	args := make([]any, 0, len(argv))
	for _, a := range argv[1:] {
		args = append(args, a)
	}
	effs := make([]any, len(effects))
	for i, e := range effects {
		effs[i] = e
	}
	var sess any
	if session != "" {
		sess = session
	}
	return map[string]any{
		"event":            event,
		"request_id":       requestID,
		"runtime_id":       "agent-shell",
		"manifest_sha256":  manifestDigest,
		"session_id":       sess,
		"origin":           "tool",
		"request_kind":     "raw_shell",
		"command":          map[string]any{"program": argv[0], "arguments": args},
		"executable":       map[string]any{"requested": argv[0], "path": program},
		"cwd":              cwd,
		"effects":          effs,
		"environment_keys": []any{},
		"policy":           policy,
		"stdin_kind":       "empty",
		"stdin_bytes":      int64(0),
		"stdin_sha256":     nil,
	}
}

// auditPayload is the audit-filter payload of shell-hook-json-v1: the
// event's fields as name/value strings (non-string values as their JSON).
func auditPayload(requestID, manifestDigest, session, event string, seq int64, timestamp float64, fields map[string]any) map[string]any {
	strs := make(map[string]any, len(fields))
	for k, v := range fields {
		if s, ok := v.(string); ok {
			strs[k] = s
			continue
		}
		b, _ := json.Marshal(v)
		strs[k] = string(b)
	}
	var sess any
	if session != "" {
		sess = session
	}
	return map[string]any{
		"event": "audit_event", "event_type": event, "fields": strs, "manifest_sha256": manifestDigest,
		"plan_id": nil, "request_id": requestID, "runtime_id": "agent-shell", "sequence": seq,
		"session_id": sess, "timestamp": timestamp,
	}
}
