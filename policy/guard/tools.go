package guard

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-shell/agent-shell/hostapi"
)

// Agents' edit and write tools: which tool calls write, the paths their
// input names and the text they write (their patches: patches.go).

// pathKeys are the input fields that name the file an edit tool writes.
var pathKeys = []string{"file_path", "path", "filePath", "absolute_path", "notebook_path", "target_file",
	"targetFile", "file", "filename", "fileName", "destination", "dest", "new_path", "newPath", "old_path",
	"oldPath", "source", "target"}

// patchKeys are the input fields that may hold patch text.
var patchKeys = []string{"command", "patch", "patchText", "patch_text", "input", "diff"}

// writeVerbs name tools that change files, by a word of their name.
var writeVerbs = map[string]bool{
	"write": true, "edit": true, "create": true, "delete": true, "remove": true, "rm": true, "move": true,
	"rename": true, "patch": true, "replace": true, "multiedit": true, "insert": true, "append": true,
	"copy": true, "mkdir": true, "save": true, "overwrite": true, "modify": true, "apply": true, "update": true,
	"unlink": true, "truncate": true,
}

// tool checks an edit or write tool's call.
func (g *guarder) tool(ev *hostapi.Event) *Denial {
	switch ev.Tool {
	case hostapi.ToolRead, hostapi.ToolWebFetch, hostapi.ToolBash:
		return nil
	}
	native := ev.NativeTool
	if native == "" {
		native = ev.Tool
	}
	words := nameWords(native)
	writes := ev.Tool == hostapi.ToolEdit || ev.Tool == hostapi.ToolWrite
	for _, w := range words {
		if writeVerbs[w] {
			writes = true
		}
	}
	if !writes {
		return nil
	}
	g.subject = "this " + native + " call"
	var in map[string]any
	var text string
	if len(ev.Input) > 0 {
		if err := json.Unmarshal(ev.Input, &in); err != nil {
			_ = json.Unmarshal(ev.Input, &text)
		}
	}
	if c, ok := in["command"].(string); ok && (c == "view" || c == "read") {
		return nil // a text editor tool's read
	}
	removal := false
	for _, w := range words {
		switch w {
		case "delete", "remove", "rm", "unlink":
			removal = true
		case "write", "create", "overwrite", "save":
			g.whole = true
		}
	}
	if ev.Tool == hostapi.ToolWrite {
		g.whole = true
	}
	content := contentStrings(in, text)
	g.scriptShell = mentionsScriptShell(content)
	g.envText = guardedEnvWrite(content)

	paths := inputPaths(in)
	verb := "writes"
	if removal {
		verb = "removes"
	}
	for _, p := range paths {
		op := guardOp{word: p, verb: verb, follow: !removal, tree: removal, literal: true, removal: removal}
		if d := g.checkOp(op, []string{g.cwd}); d != nil {
			return d
		}
	}
	patch := text
	for _, k := range patchKeys {
		if s := stringOrLines(in[k]); s != "" && patch == "" {
			patch = s
		}
	}
	if patch == "" {
		return nil
	}
	isPatch := containsWord(words, "patch") || strings.Contains(strings.ToLower(native), "patch")
	if !isPatch && len(paths) > 0 {
		return nil
	}
	hdrs := patchHeaders(patch)
	if len(hdrs) == 0 {
		// A patch tool's patch that cannot be read: what it mentions
		// decides.
		if isPatch && len(paths) == 0 {
			if m := protectedMention(patch); m != "" {
				return g.deny(guardOf(m), m, fmt.Sprintf("agent-shell guard %s: %s holds a patch that cannot be read and mentions %s, which an agent may not change. %s",
					guardOf(m), g.subject, m, fixFor(m)))
			}
		}
		return nil
	}
	return g.checkPatch(hdrs, []string{g.cwd})
}

// nameWords splits a tool name into lower-case words: on punctuation and
// at camelCase humps ("mcp__fs__write_file" gives mcp fs write file).
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			if prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			cur = append(cur, r)
			prevLower = true
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	words = append(words, strings.ToLower(name)) // "MultiEdit" is also "multiedit"
	return words
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// inputPaths are the paths an edit tool's input names: its path fields,
// and those of the entries of its edits (MultiEdit, pre_write_code...).
func inputPaths(in map[string]any) []string {
	var out []string
	add := func(m map[string]any) {
		for _, k := range pathKeys {
			switch v := m[k].(type) {
			case string:
				if v != "" {
					out = append(out, v)
				}
			case []any:
				for _, x := range v {
					if s, ok := x.(string); ok && s != "" {
						out = append(out, s)
					}
				}
			}
		}
	}
	if in == nil {
		return nil
	}
	add(in)
	for _, k := range []string{"edits", "files", "changes", "paths"} {
		if list, ok := in[k].([]any); ok {
			for _, x := range list {
				switch v := x.(type) {
				case map[string]any:
					add(v)
				case string:
					if k == "paths" || k == "files" {
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
}

// contentStrings joins every string of a tool's input (the text it writes
// among them), for the script-shell and variable checks.
func contentStrings(in map[string]any, text string) string {
	var b strings.Builder
	b.WriteString(text)
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 8 {
			return
		}
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case []any:
			for _, y := range x {
				walk(y, depth+1)
			}
		case map[string]any:
			for _, y := range x {
				walk(y, depth+1)
			}
		}
	}
	walk(in, 0)
	return b.String()
}

// stringOrLines reads a string, or an array of strings joined by lines
// (Codex's argv form: ["apply_patch", "*** Begin Patch..."]).
func stringOrLines(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, y := range x {
			if s, ok := y.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
