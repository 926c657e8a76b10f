package hostapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-shell/agent-shell/internal/atomicfile"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// registrationJSON are the JSON files Install merges hook entries into,
// with the top-level scalar keys Install writes besides them: a file left
// with no other key was Install's alone.
var registrationJSON = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		ClaudeSettingsFile: nil, CodexHooksFile: nil, CopilotHooksFile: {"version"},
		CursorHooksFile: {"version"}, GeminiSettingsFile: nil, AmpSettingsFile: nil,
	}
}}

// Uninstall removes every agent's registration that Install wrote under
// root, and only that: each hook entry that runs agent-shell (and the lists
// and objects it leaves empty), a registration file left with nothing else,
// and agent-shell's own files (opencode's plugin unless edited, amp's
// delegate). It returns the files changed or removed.
func Uninstall(root string) (changed []string, err error) {
	// Folders Install made and the removals leave empty go too.
	defer func() {
		for _, f := range changed {
			removeEmptyParents(root, f)
		}
	}()
	for _, sub := range slices.Sorted(maps.Keys(registrationJSON.Get())) {
		path := filepath.Join(root, sub)
		did, err := stripJSONFile(path, registrationJSON.Get()[sub])
		if err != nil {
			return changed, err
		}
		if did {
			changed = append(changed, path)
		}
	}
	plugin := filepath.Join(root, OpencodePluginFile)
	if data, err := os.ReadFile(plugin); err == nil {
		if !bytes.Equal(data, opencodePluginFile()) && !opencodeUnedited(data) {
			return changed, fmt.Errorf("%s was edited; it was left in place: remove it yourself", plugin)
		}
		if err := os.Remove(plugin); err != nil {
			return changed, err
		}
		changed = append(changed, plugin)
	}
	delegate := filepath.Join(root, AmpDelegate)
	if err := os.Remove(delegate); err == nil {
		changed = append(changed, delegate)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return changed, err
	}
	return changed, nil
}

// stripJSONFile removes agent-shell's entries from one registration file;
// a file left with nothing but installKeys is removed.
func stripJSONFile(path string, installKeys []string) (bool, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case len(data) > maxConfigBytes:
		return false, fmt.Errorf("%s: larger than %d bytes", path, maxConfigBytes)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil || doc == nil {
		return false, fmt.Errorf("%s is not a JSON object; it was left unchanged", path)
	}
	if !stripObject(doc) {
		return false, nil
	}
	for k := range doc {
		if !slices.Contains(installKeys, k) {
			out, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				return false, err
			}
			return true, atomicfile.Write(path, append(out, '\n'), 0)
		}
	}
	return true, os.Remove(path)
}

// runsAgentShell reports whether a string value is a command Install
// registers: agent-shell's hook entries, the older Copilot entries, or
// amp's delegate.
func runsAgentShell(s string) bool {
	s = strings.TrimSpace(s)
	for _, p := range []string{"agent-shell hook", "agent-shell policy-check", "agent-shell record"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return strings.HasSuffix(s, "/"+AmpDelegate)
}

// ours reports whether an object is one of Install's entries: it holds a
// command that runs agent-shell directly.
func ours(m map[string]any) bool {
	for _, v := range m {
		if s, ok := v.(string); ok && runsAgentShell(s) {
			return true
		}
	}
	return false
}

// stripObject removes agent-shell's entries below m, and the keys whose
// lists or objects that leaves empty. It reports whether it removed any.
func stripObject(m map[string]any) bool {
	removed := false
	for k, v := range m {
		switch v := v.(type) {
		case map[string]any:
			if spent(v, &removed) {
				delete(m, k)
			}
		case []any:
			if kept := keepAll(v, &removed); len(kept) != len(v) {
				if len(kept) == 0 {
					delete(m, k)
				} else {
					m[k] = kept
				}
			}
		}
	}
	return removed
}

// spent strips m, and reports whether it lost entries and holds nothing but
// scalars now (a matcher group whose hooks were agent-shell's).
func spent(m map[string]any, removed *bool) bool {
	if !stripObject(m) {
		return false
	}
	*removed = true
	return onlyScalars(m)
}

// keepAll is a list without agent-shell's entries and the objects they
// leave spent.
func keepAll(a []any, removed *bool) []any {
	var out []any
	for _, e := range a {
		switch v := e.(type) {
		case map[string]any:
			if ours(v) {
				*removed = true
				continue
			}
			if spent(v, removed) {
				continue
			}
		case []any:
			kept := keepAll(v, removed)
			if len(kept) == 0 && len(v) > 0 {
				continue
			}
			e = kept
			if len(v) == 0 {
				e = v
			}
		}
		out = append(out, e)
	}
	return out
}

// onlyScalars reports whether m holds no list or object.
func onlyScalars(m map[string]any) bool {
	for _, v := range m {
		switch v.(type) {
		case map[string]any, []any:
			return false
		}
	}
	return true
}

// removeEmptyParents removes the empty folders above path, up to root.
func removeEmptyParents(root, path string) {
	for dir := filepath.Dir(path); dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil { // not empty (or gone): stop
			return
		}
	}
}
