package taskfile

import (
	"encoding/json"
	"strings"
)

// ReadConfigScripts reads the tasks a deno.json (field "tasks": a
// command, or {"command", "dependencies"}) or a composer.json (field
// "scripts": a command or a list of them, "@name" for another, "@php" and
// "@composer" for those programs) defines; a composer script that is a
// PHP callback (Class::method) is left out. nil when it does not read as
// JSON; deno.jsonc's comments are cut first.
func ReadConfigScripts(text, field string) map[string]Script {
	var doc map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &doc) != nil && json.Unmarshal([]byte(cutJSONComments(text)), &doc) != nil {
		return nil
	}
	var tasks map[string]any
	if json.Unmarshal(doc[field], &tasks) != nil {
		return nil
	}
	out := map[string]Script{}
	for name, v := range tasks {
		var run, refs []string
		if m, ok := v.(map[string]any); ok { // deno: {"command": ..., "dependencies": [...]}
			v = m["command"]
			if deps, ok := m["dependencies"].([]any); ok {
				for _, d := range deps {
					if s, ok := d.(string); ok {
						refs = append(refs, s)
					}
				}
			}
		}
		var lines []string
		switch v := v.(type) {
		case string:
			lines = []string{v}
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					lines = append(lines, s)
				}
			}
		}
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "@php "), strings.HasPrefix(l, "@composer "):
				run = append(run, l[1:])
			case strings.HasPrefix(l, "@putenv "):
			case strings.HasPrefix(l, "@"):
				if f := strings.Fields(l[1:]); len(f) > 0 {
					refs = append(refs, f[0])
				}
			case strings.Contains(l, "::") && !strings.ContainsAny(l, " \t"):
				// A PHP callback: code, not a command line.
			default:
				run = append(run, l)
			}
		}
		out[name] = Script{Run: run, Refs: refs}
	}
	return out
}

// cutJSONComments cuts // and /* */ comments outside strings (JSONC).
func cutJSONComments(s string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			b.WriteByte(c)
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
