package packs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agent-shell/agent-shell/policy"
)

// The pack commands edit the manifest as text, table by table, so that the
// user's own rules, comments and layout stay as they were.

// declsList reads the manifest's [[pack]] tables, in order, ignoring the
// rest of it (which may not load: pack verify and list still work then).
func declsList(text string) []*policy.PackDecl {
	var doc struct {
		Pack []*policy.PackDecl `toml:"pack"`
	}
	if err := toml.Unmarshal([]byte(text), &doc); err != nil {
		return nil
	}
	return doc.Pack
}

func declsOf(text string) map[string]*policy.PackDecl {
	out := map[string]*policy.PackDecl{}
	for _, d := range declsList(text) {
		out[d.Name] = d
	}
	return out
}

func declOf(text, name string) (*policy.PackDecl, error) {
	if d := declsOf(text)[name]; d != nil {
		return d, nil
	}
	return nil, fmt.Errorf("the manifest has no pack named %q", name)
}

// packTable finds the lines [start, end) of the [[pack]] table named name:
// from its header to the next table header (or the end).
func packTable(text, name string) (start, end int, ok bool) {
	lines := strings.SplitAfter(text, "\n")
	start = -1
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			if start >= 0 && strings.HasPrefix(header(t), "[pack.") {
				continue // [pack.options] and the like are the pack's own
			}
			if start >= 0 {
				return start, i, true
			}
			if header(t) == "[[pack]]" && tableName(lines[i+1:]) == name {
				start = i
			}
		}
	}
	if start >= 0 {
		return start, len(lines), true
	}
	return 0, 0, false
}

// header is a table header without spaces or a trailing comment.
func header(t string) string {
	if i := strings.LastIndexByte(t, ']'); i >= 0 {
		t = t[:i+1]
	}
	return strings.Join(strings.Fields(t), "")
}

// tableName is the name key of the table whose lines follow its header.
func tableName(lines []string) string {
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			return ""
		}
		if v, ok := keyValue(t, "name"); ok {
			return v
		}
	}
	return ""
}

// keyValue reads `key = "string"` from one line.
func keyValue(line, key string) (string, bool) {
	rest, ok := strings.CutPrefix(line, key)
	if !ok {
		return "", false
	}
	rest, ok = strings.CutPrefix(strings.TrimSpace(rest), "=")
	if !ok {
		return "", false
	}
	var v struct{ V string }
	if toml.Unmarshal([]byte("V = "+strings.TrimSpace(rest)), &v) != nil {
		return "", false
	}
	return v.V, true
}

// addPackTable appends a [[pack]] table.
func addPackTable(text, name, source, rev string, trust []string) string {
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	var b strings.Builder
	b.WriteString(text)
	b.WriteString("\n[[pack]]\n")
	fmt.Fprintf(&b, "name = %s\n", quote(name))
	fmt.Fprintf(&b, "source = %s\n", quote(source))
	if rev != "" {
		fmt.Fprintf(&b, "rev = %s\n", quote(rev))
	}
	if len(trust) > 0 {
		quoted := make([]string, len(trust))
		for i, g := range trust {
			quoted[i] = quote(g)
		}
		fmt.Fprintf(&b, "trust = [%s]\n", strings.Join(quoted, ", "))
	}
	return b.String()
}

// setPackRev sets (or, for "", removes) the rev of the pack's table.
func setPackRev(text, name, rev string) (string, error) {
	start, end, ok := packTable(text, name)
	if !ok {
		return "", fmt.Errorf("the manifest has no pack named %q", name)
	}
	lines := strings.SplitAfter(text, "\n")
	out := append([]string(nil), lines[:start+1]...)
	done := false
	for _, line := range lines[start+1 : end] {
		if _, ok := keyValue(strings.TrimSpace(line), "rev"); ok {
			if rev != "" {
				out = append(out, "rev = "+quote(rev)+"\n")
			}
			done = true
			continue
		}
		out = append(out, line)
		if _, isName := keyValue(strings.TrimSpace(line), "name"); isName && rev != "" && !done && !hasKey(lines[start+1:end], "rev") {
			out = append(out, "rev = "+quote(rev)+"\n")
			done = true
		}
	}
	out = append(out, lines[end:]...)
	return strings.Join(out, ""), nil
}

func hasKey(lines []string, key string) bool {
	for _, line := range lines {
		if _, ok := keyValue(strings.TrimSpace(line), key); ok {
			return true
		}
	}
	return false
}

// quote is a TOML basic string. Sources and revs hold no control
// characters (ParseSource refuses them), so Go's escapes are TOML's.
func quote(s string) string { return strconv.Quote(s) }
