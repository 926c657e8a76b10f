package shellcmd

import (
	"encoding/json"
	"slices"
	"strings"
)

// deno and composer run the tasks and scripts of their configuration on
// disk, as npm runs package.json's (pkgscripts.go): deno task NAME runs
// deno.json's tasks, composer NAME (or run-script NAME) and its install
// and update events run composer.json's scripts. Where the caller gives
// the file (Disk.FindUp), each one the command's words name, with the
// words after it appended, and those it refers to, are walked as commands
// it may run ([Command.Guessed]). A composer script that is a PHP callback
// (Class::method) is passed over.

// composerEvents are the scripts composer's own commands run.
func composerEvents(sub string) []string {
	switch sub {
	case "install", "i":
		return []string{"pre-install-cmd", "post-install-cmd", "pre-autoload-dump", "post-autoload-dump", "post-root-package-install"}
	case "update", "u", "upgrade":
		return []string{"pre-update-cmd", "post-update-cmd", "pre-autoload-dump", "post-autoload-dump"}
	case "dump-autoload", "dumpautoload":
		return []string{"pre-autoload-dump", "post-autoload-dump"}
	case "create-project":
		return []string{"post-root-package-install", "post-create-project-cmd"}
	case "archive":
		return []string{"pre-archive-cmd", "post-archive-cmd"}
	case "status":
		return []string{"pre-status-cmd", "post-status-cmd"}
	}
	return nil
}

// configTasks reads the tasks a deno.json (under "tasks": a command, or
// {"command", "dependencies"}) or a composer.json (under "scripts": a
// command or a list of them, "@name" for another) defines, each as its
// command lines and the tasks it refers to; nil when it does not read as
// JSON. deno.jsonc's comments are cut first.
func configTasks(text, field string) map[string][2][]string {
	var doc map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &doc) != nil && json.Unmarshal([]byte(cutJSONComments(text)), &doc) != nil {
		return nil
	}
	var tasks map[string]any
	if json.Unmarshal(doc[field], &tasks) != nil {
		return nil
	}
	out := map[string][2][]string{}
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
		out[name] = [2][]string{run, refs}
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

// runsConfigTasks walks the tasks deno task or composer may run from
// their configuration on disk.
func (w *walker) runsConfigTasks(idx int, name string, inner []word) {
	find := w.st.disk.FindUp
	if find == nil || len(inner) < 2 || (name != "deno" || inner[1].s != "task") && name != "composer" {
		return
	}
	c := &w.st.line.Commands[idx]
	files, field := []string{"deno.json", "deno.jsonc"}, "tasks"
	if name == "composer" {
		files, field = []string{"composer.json"}, "scripts"
	}
	dirs, unknown := c.Dirs, c.DirUnknown
	if d, ok := packageDirOption(inner[1:]); ok { // deno task --cwd DIR, composer -d DIR / --working-dir
		dirs, unknown = append(slices.Clip(dirs), d), unknown || d == ""
	}
	var text, dir, why string
	for _, f := range files {
		if text, dir, why = find(dirs, unknown, f); text != "" || why != "" {
			break
		}
	}
	if why != "" {
		c.Unknown = why
		return
	}
	tasks := configTasks(text, field)
	if len(tasks) == 0 {
		return
	}
	var srcs []string
	seen := map[string]bool{}
	var visit func(n string, args []word)
	visit = func(n string, args []word) {
		t, ok := tasks[n]
		if !ok || seen[n] || len(srcs) > maxMakeRecipes {
			return
		}
		seen[n] = true
		for _, r := range t[1] {
			visit(r, nil)
		}
		for i, r := range t[0] {
			if i == len(t[0])-1 {
				r += appended(args)
			}
			srcs = append(srcs, r)
		}
	}
	words := inner[1:]
	if name == "deno" {
		words = inner[2:]
	}
	for i, x := range words {
		if x.dyn || strings.HasPrefix(x.s, "-") {
			continue
		}
		args := words[i+1:]
		if len(args) > 0 && args[0].s == "--" {
			args = args[1:]
		}
		visit(x.s, args)
		if name == "composer" {
			for _, e := range composerEvents(x.s) {
				visit(e, nil)
			}
		}
	}
	if len(srcs) > maxMakeRecipes {
		c.Unknown = "it runs more than 256 lines of its configuration's tasks"
		return
	}
	if unknown {
		dir = ""
	}
	w.mayRun(idx, srcs, dir)
}
