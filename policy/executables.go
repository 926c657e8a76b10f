package policy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
func (m *Manifest) invoke(ctx context.Context, id, session string, input func() (starlark.Value, error), payload func() runtime.HookPayload) runtime.Result {
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
