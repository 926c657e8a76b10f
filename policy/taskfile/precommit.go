package taskfile

import (
	"strings"
)

// maxPreCommitHooks bounds the hooks read from one configuration.
const maxPreCommitHooks = 256

// PreCommitHooks reads the command lines of a .pre-commit-config.yaml:
// each hook's entry, with its args quoted after it (pre-commit splits the
// entry as a shell would and adds the args, then the files). Any list item
// with an entry counts, a remote repository's hook whose entry the file
// overrides too, but a pygrep hook's (a pattern) or a fail hook's (a
// message). ok is false where the file uses YAML this reader does not
// follow at an entry or its args (an alias, a merge key, a flow mapping),
// or holds more than maxPreCommitHooks entries: what runs is then not
// known.
func PreCommitHooks(text string) (cmds []string, ok bool) {
	lines := yamlLines(text)
	type hook struct {
		indent      int
		entry, args []string
		hasEntry    bool
		language    string
	}
	var cur *hook
	flush := func() {
		// pygrep's entry is a pattern and fail's a message: no command.
		if cur != nil && cur.hasEntry && cur.language != "pygrep" && cur.language != "fail" {
			line := strings.Join(cur.entry, " ")
			if len(cur.args) > 0 {
				line += " " + quoteArgv(cur.args)
			}
			cmds = append(cmds, strings.TrimSpace(line))
		}
		cur = nil
	}
	for i := 0; i < len(lines); i++ {
		col, t := lines[i].col, lines[i].text
		if rest, isItem := strings.CutPrefix(t, "- "); isItem {
			rest = strings.TrimLeft(rest, " ")
			k, _, isKey := strings.Cut(rest, ":")
			if !isKey || strings.ContainsAny(k, " '\"") {
				continue // a plain list item (an arg, a file pattern)
			}
			flush() // "- key: ..." starts an item, whose keys are at its column
			col, t = col+len(t)-len(rest), rest
			cur = &hook{indent: col}
		} else if cur != nil && col < cur.indent {
			flush()
		}
		if cur == nil || col != cur.indent {
			continue
		}
		key, value, isKey := strings.Cut(t, ":")
		if isKey && key == "language" {
			cur.language = yamlScalar(strings.TrimSpace(value))
			continue
		}
		if !isKey || key != "entry" && key != "args" && key != "<<" {
			continue
		}
		if key == "<<" {
			return nil, false // a merge key: the hook's keys come from elsewhere
		}
		value = strings.TrimSpace(value)
		if strings.HasPrefix(value, "&") { // an anchor: its name, then the value
			_, value, _ = strings.Cut(value, " ")
			value = strings.TrimSpace(value)
		}
		value = strings.TrimSpace(strings.TrimPrefix(value, "!!str"))
		if strings.HasPrefix(value, "*") || strings.HasPrefix(value, "{") || strings.HasPrefix(value, "!") {
			return nil, false
		}
		var block []string
		if value == "" || value[0] == '|' || value[0] == '>' {
			// A block scalar, or a block list of args: the lines indented
			// deeper than the key.
			end := blockEnd(lines, i, col)
			for _, l := range lines[i+1 : end] {
				block = append(block, l.text)
			}
			i = end - 1
		}
		switch key {
		case "entry":
			cur.hasEntry = true
			if block != nil || value != "" && (value[0] == '|' || value[0] == '>') {
				cur.entry = block
			} else {
				cur.entry = []string{yamlScalar(value)}
			}
		case "args":
			if flow, isFlow := strings.CutPrefix(value, "["); isFlow {
				cur.args = splitFlow(strings.TrimSuffix(flow, "]"))
			} else {
				for _, b := range block {
					if a, isItem := strings.CutPrefix(b, "- "); isItem {
						cur.args = append(cur.args, yamlScalar(strings.TrimSpace(a)))
					}
				}
			}
		}
		if len(cmds) > maxPreCommitHooks {
			return nil, false
		}
	}
	flush()
	return cmds, len(cmds) <= maxPreCommitHooks
}

// yamlScalar is a plain or quoted YAML scalar's text, its comment dropped.
func yamlScalar(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] != v[0] {
		if i := strings.LastIndex(v, " #"); i > 0 { // "quoted" # a comment
			v = strings.TrimSpace(v[:i])
		}
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return strings.ReplaceAll(strings.ReplaceAll(v[1:len(v)-1], `\"`, `"`), `\\`, `\`)
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v
}

// splitFlow splits a YAML flow sequence's items at commas outside quotes.
func splitFlow(s string) []string {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote == 0 && c == ',':
			if item := strings.TrimSpace(s[start:i]); item != "" {
				out = append(out, yamlScalar(item))
			}
			start = i + 1
		}
	}
	if item := strings.TrimSpace(s[start:]); item != "" {
		out = append(out, yamlScalar(item))
	}
	return out
}
