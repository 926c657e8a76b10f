package taskfile

import (
	"strings"
)

// GoTask is a task of a Taskfile (go-task): the command lines it runs
// (cmds, and the sh of preconditions and status, which run too) and the
// tasks it runs (deps, and the task of a cmd).
type GoTask struct {
	Cmds  []string
	Calls []string
}

// TaskfileNames are the files go-task reads, in its order.
var TaskfileNames = []string{"Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml", "taskfile.dist.yml", "Taskfile.dist.yaml", "taskfile.dist.yaml"}

// yamlLine is a line of a YAML file: its column and its text from there.
type yamlLine struct {
	col  int
	text string
}

// blockEnd is the index of the first line after lines[k] that is not
// indented past col: the end of the block lines[k] opens.
func blockEnd(lines []yamlLine, k, col int) int {
	end := k + 1
	for end < len(lines) && lines[end].col > col {
		end++
	}
	return end
}

// yamlLines are the lines of text that hold something, comments dropped.
func yamlLines(text string) []yamlLine {
	var out []yamlLine
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		raw = strings.TrimRight(raw, " \t")
		t := strings.TrimLeft(raw, " ")
		if t == "" || t[0] == '#' {
			continue
		}
		out = append(out, yamlLine{len(raw) - len(t), t})
	}
	return out
}

// ReadTaskfile reads a Taskfile's tasks, from a line reader of the YAML
// go-task takes for them: a task as a command string, a list of commands,
// or a map whose cmds, deps, preconditions and status lists hold strings
// (or block scalars), cmd:, task:, defer: and sh: items. ok is false where
// it meets YAML it does not follow in the tasks (an alias, a merge key, a
// flow mapping of commands): what runs is then not known. Templates
// ({{.VAR}}) stay as they are written. includes are the Taskfiles it
// includes, by namespace (namespace:task): their paths, "" for one this
// reader does not follow.
func ReadTaskfile(text string) (tasks map[string]GoTask, includes map[string]string, ok bool) {
	lines := yamlLines(text)
	tasks = map[string]GoTask{}
	includes = readIncludes(lines)
	i := 0
	for i < len(lines) && !(lines[i].col == 0 && strings.TrimSpace(lines[i].text) == "tasks:") {
		i++
	}
	if i == len(lines) {
		return tasks, includes, true
	}
	i++
	if i == len(lines) || lines[i].col == 0 {
		return tasks, includes, true
	}
	taskCol := lines[i].col
	for i < len(lines) && lines[i].col > 0 {
		l := lines[i]
		end := blockEnd(lines, i, taskCol)
		if l.col == taskCol {
			name, value, isKey := yamlKey(l.text)
			if !isKey {
				return nil, includes, false
			}
			t, readable := readGoTask(strings.TrimSpace(value), lines[i+1:end])
			if !readable {
				return nil, includes, false
			}
			tasks[yamlScalar(strings.TrimSpace(name))] = t
		}
		i = end
	}
	return tasks, includes, true
}

// readGoTask reads a task from its value on its key's line and the lines
// under it.
func readGoTask(value string, body []yamlLine) (t GoTask, ok bool) {
	if bad(value) {
		return t, false
	}
	switch {
	case strings.HasPrefix(value, "["):
		t.Cmds = splitFlow(strings.TrimSuffix(strings.TrimPrefix(value, "["), "]"))
		return t, true
	case value != "" && value[0] != '|' && value[0] != '>':
		t.Cmds = []string{yamlScalar(value)}
		return t, true
	case value != "":
		t.Cmds = []string{blockText(value, body)}
		return t, true
	}
	if len(body) == 0 {
		return t, true
	}
	if strings.HasPrefix(body[0].text, "- ") || body[0].text == "-" {
		return t, readItems(&t, "cmds", body)
	}
	keyCol := body[0].col
	for k := 0; k < len(body); {
		l := body[k]
		end := blockEnd(body, k, keyCol)
		if l.col == keyCol {
			key, v, _ := yamlKey(l.text)
			v = strings.TrimSpace(v)
			switch key {
			case "cmds", "deps", "preconditions", "status":
				switch {
				case bad(v):
					return t, false
				case strings.HasPrefix(v, "["):
					for _, item := range splitFlow(strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")) {
						addItem(&t, key, item)
					}
				case !readItems(&t, key, body[k+1:end]):
					return t, false
				}
			case "cmd":
				if bad(v) {
					return t, false
				}
				t.Cmds = append(t.Cmds, scalarOrBlock(v, body[k+1:end]))
			case "<<":
				return t, false
			}
		}
		k = end
	}
	return t, true
}

// readItems reads the items of a block list under key of a task.
func readItems(t *GoTask, key string, lines []yamlLine) bool {
	if len(lines) == 0 {
		return true
	}
	itemCol := lines[0].col
	for k := 0; k < len(lines); {
		l := lines[k]
		end := blockEnd(lines, k, itemCol)
		rest, isItem := strings.CutPrefix(l.text, "- ")
		if l.col != itemCol || !isItem {
			k = end
			continue
		}
		rest = strings.TrimSpace(rest)
		sub, v, isMap := strings.Cut(rest, ":")
		if isMap && strings.ContainsAny(sub, " '\"{") {
			isMap = false // a command with a colon in it: "echo a: b"
		}
		switch {
		case bad(rest):
			return false
		case !isMap:
			addItem(t, key, scalarOrBlock(rest, lines[k+1:end]))
		default:
			// A map item: its keys, on this line and those under it at the
			// same column; deeper lines belong to the key before them.
			keyCol := l.col + len(l.text) - len(rest)
			type field struct {
				name, val string
				under     []yamlLine
			}
			fields := []field{{name: sub, val: strings.TrimSpace(v)}}
			for _, f := range lines[k+1 : end] {
				if f.col == keyCol {
					n, val, _ := strings.Cut(f.text, ":")
					fields = append(fields, field{name: n, val: strings.TrimSpace(val)})
				} else if f.col > keyCol {
					fields[len(fields)-1].under = append(fields[len(fields)-1].under, f)
				}
			}
			for _, f := range fields {
				switch f.name {
				case "<<":
					return false
				case "cmd", "sh", "defer":
					if bad(f.val) {
						return false
					}
					if strings.HasPrefix(f.val, "{") { // defer: {task: x}
						if tk, ok := flowTask(f.val); ok {
							t.Calls = append(t.Calls, tk)
						}
						continue
					}
					if f.val == "" && len(f.under) > 0 { // defer:\n  task: x
						for _, u := range f.under {
							if n, val, _ := strings.Cut(u.text, ":"); n == "task" {
								t.Calls = append(t.Calls, yamlScalar(strings.TrimSpace(val)))
							}
						}
						continue
					}
					t.Cmds = append(t.Cmds, scalarOrBlock(f.val, f.under))
				case "task":
					if bad(f.val) {
						return false
					}
					t.Calls = append(t.Calls, yamlScalar(f.val))
				}
			}
		}
		k = end
	}
	return true
}

// addItem adds a list item of key: a command, or a task deps names.
func addItem(t *GoTask, key, item string) {
	if key == "deps" {
		t.Calls = append(t.Calls, item)
	} else {
		t.Cmds = append(t.Cmds, item)
	}
}

// flowTask reads {task: NAME} of a defer.
func flowTask(v string) (string, bool) { return flowKey(v, "task") }

// flowKey reads the value of key in a flow mapping, {key: value, ...}.
func flowKey(v, key string) (string, bool) {
	inner := strings.TrimSuffix(strings.TrimPrefix(v, "{"), "}")
	for _, f := range strings.Split(inner, ",") {
		if k, val, ok := strings.Cut(f, ":"); ok && strings.TrimSpace(k) == key {
			return yamlScalar(strings.TrimSpace(val)), true
		}
	}
	return "", false
}

// scalarOrBlock is a scalar's text, or a block scalar's (| or >) lines.
func scalarOrBlock(v string, under []yamlLine) string {
	if v != "" && (v[0] == '|' || v[0] == '>') {
		return blockText(v, under)
	}
	return yamlScalar(v)
}

// blockText joins a block scalar's lines: with newlines for |, spaces
// for >.
func blockText(indicator string, lines []yamlLine) string {
	sep := "\n"
	if indicator[0] == '>' {
		sep = " "
	}
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = l.text
	}
	return strings.Join(parts, sep)
}

// readIncludes reads the includes section: NAMESPACE: PATH, or a map
// (block or flow) whose taskfile is the path.
func readIncludes(lines []yamlLine) map[string]string {
	var out map[string]string
	for i := 0; i < len(lines); i++ {
		if lines[i].col != 0 || strings.TrimSpace(lines[i].text) != "includes:" {
			continue
		}
		out = map[string]string{}
		i++
		if i == len(lines) || lines[i].col == 0 {
			return out
		}
		col := lines[i].col
		for ; i < len(lines) && lines[i].col > 0; i++ {
			if lines[i].col != col {
				continue
			}
			ns, v, _ := yamlKey(lines[i].text)
			v = strings.TrimSpace(v)
			switch {
			case strings.HasPrefix(v, "{"):
				v, _ = flowKey(v, "taskfile")
			case v == "":
				for _, l := range lines[i+1 : blockEnd(lines, i, col)] {
					if key, val, _ := yamlKey(l.text); key == "taskfile" {
						v = strings.TrimSpace(val)
					}
				}
			}
			if bad(v) {
				v = ""
			}
			out[yamlScalar(ns)] = yamlScalar(v)
		}
		return out
	}
	return out
}

// yamlKey cuts a mapping line at the colon that ends its key: the first
// ": ", or a colon ending the line (a task called release:* or
// generate:mocks).
func yamlKey(text string) (key, value string, ok bool) {
	if i := strings.Index(text, ": "); i >= 0 {
		return text[:i], text[i+2:], true
	}
	if k, isKey := strings.CutSuffix(text, ":"); isKey {
		return k, "", true
	}
	return text, "", false
}

// Task returns the task name runs: the one of that name, or one whose
// name with * (release:*) matches it.
func Task(tasks map[string]GoTask, name string) (GoTask, bool) {
	if t, ok := tasks[name]; ok {
		return t, true
	}
	for pattern, t := range tasks {
		if strings.Contains(pattern, "*") && wildcardMatch(pattern, name) {
			return t, true
		}
	}
	return GoTask{}, false
}

// wildcardMatch reports whether name matches pattern, each * any text.
func wildcardMatch(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(name, p)
		if i < 0 {
			return false
		}
		name = name[i+len(p):]
	}
	return strings.HasSuffix(name, parts[len(parts)-1])
}

// bad reports a value this reader does not follow: an alias, a tag, a
// flow mapping where commands are.
func bad(v string) bool {
	return strings.HasPrefix(v, "*") || strings.HasPrefix(v, "!") || strings.HasPrefix(v, "&")
}
