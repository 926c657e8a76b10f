package setup

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agent-shell/agent-shell/internal/project"
)

// The .npmrc line init writes: npm (and pnpm) then run every script as
// `agent-shell -c CMD`, which records it.
const scriptShellLine = "script-shell=agent-shell"

// lines splits a line file, remembering its line ending so that a merge
// keeps a CRLF file CRLF. The last element is what follows the last
// newline ("" for a file that ends with one).
func lines(data []byte) (ls []string, eol string) {
	eol = "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		eol = "\r\n"
	}
	return strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n"), eol
}

func join(ls []string, eol string) []byte {
	return []byte(strings.Join(ls, eol))
}

// npmrcKey returns the key and value of an .npmrc setting line, ok false for
// comments, blank lines and section headers.
func npmrcKey(line string) (key, value string, ok bool) {
	t := strings.TrimSpace(line)
	if t == "" || t[0] == '#' || t[0] == ';' || t[0] == '[' {
		return "", "", false
	}
	k, v, found := strings.Cut(t, "=")
	if !found {
		return "", "", false
	}
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = v[1 : len(v)-1]
	}
	return strings.ToLower(strings.TrimSpace(k)), v, true
}

func isScriptShellKey(k string) bool { return k == "script-shell" || k == "script_shell" }

// isAgentShell accepts agent-shell by name or by a path to it.
func isAgentShell(v string) bool { return path.Base(strings.TrimSpace(v)) == "agent-shell" }

// npmrcState reads script-shell from .npmrc; the last setting wins, as in
// npm's ini parser.
func npmrcState(data []byte) NPMState {
	ls, _ := lines(data)
	st := NPMState{}
	for _, l := range ls {
		if k, v, ok := npmrcKey(l); ok && isScriptShellKey(k) {
			st = NPMState{Set: isAgentShell(v)}
			if !st.Set {
				st.Other = v
			}
		}
	}
	return st
}

// mergeNpmrc sets script-shell=agent-shell in .npmrc, keeping every other
// line. Another script-shell is the user's choice: it is replaced only when
// replace is set, and then kept as a comment so that it can be restored.
// The line goes before the first [section], where npm would not read it.
func mergeNpmrc(data []byte, replace bool) ([]byte, bool) {
	st := npmrcState(data)
	if st.Set || st.Other != "" && !replace {
		return data, false
	}
	ls, eol := lines(data)
	if st.Other != "" {
		for i, l := range ls {
			if k, _, ok := npmrcKey(l); ok && isScriptShellKey(k) {
				ls[i] = "# " + strings.TrimSpace(l) + "  (replaced by agent-shell init)"
			}
		}
	}
	at := len(ls)
	for i, l := range ls {
		if strings.HasPrefix(strings.TrimSpace(l), "[") {
			at = i
			break
		}
	}
	if at == len(ls) {
		// Append after the last line, which is "" when the file ends with a
		// newline.
		if ls[len(ls)-1] == "" {
			ls = ls[:len(ls)-1]
		}
		if len(data) == 0 {
			ls = nil
		}
		ls = append(ls, scriptShellLine, "")
		return join(ls, eol), true
	}
	ls = append(ls[:at], append([]string{scriptShellLine}, ls[at:]...)...)
	return join(ls, eol), true
}

// gitignoreHas reports whether .gitignore has a line that ignores
// .agent-shell/ at the root (anchored or not, with or without a trailing
// slash or /** or /*). A later negation is not looked for.
func gitignoreHas(data []byte) bool {
	ls, _ := lines(data)
	for _, l := range ls {
		t := strings.TrimRight(l, " \t") // git ignores unescaped trailing spaces
		if t == "" || t[0] == '#' || t[0] == '!' {
			continue
		}
		t = strings.TrimPrefix(t, "/")
		t = strings.TrimPrefix(t, "**/")
		for _, suf := range []string{"/**", "/*", "/"} {
			if s, ok := strings.CutSuffix(t, suf); ok {
				t = s
				break
			}
		}
		if t == project.Dir {
			return true
		}
	}
	return false
}

// mergeGitignore appends .agent-shell/ to .gitignore unless it is ignored
// already, keeping every other line.
func mergeGitignore(data []byte) ([]byte, bool) {
	if gitignoreHas(data) {
		return data, false
	}
	ls, eol := lines(data)
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	if len(data) == 0 {
		ls = nil
	}
	ls = append(ls, "# agent-shell's local flight recorder (events) and helpers", project.Dir+"/", "")
	return join(ls, eol), true
}

// excludeFromGit adds pattern to .git/info/exclude, git's list of files
// this clone ignores without a committed .gitignore. A checkout whose .git
// is not a folder (a worktree, a submodule) is left as it is.
func excludeFromGit(root, pattern string) (bool, error) {
	gitDir := filepath.Join(root, ".git")
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Join(gitDir, "info"), 0o755); err != nil {
		return false, err
	}
	return mergeFile(filepath.Join(gitDir, "info", "exclude"), func(b []byte) ([]byte, bool) {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(l) == pattern {
				return b, false
			}
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		return append(b, pattern+"\n"...), true
	})
}

// Uninstall removes what init set up for npm under root: the
// script-shell=agent-shell line of .npmrc (a script-shell it replaced comes
// back), the file itself when nothing else is left in it, and its line in
// .git/info/exclude. It returns the files changed or removed.
func Uninstall(root string) ([]string, error) {
	var changed []string
	path := filepath.Join(root, ".npmrc")
	data, err := readSmall(path)
	if err != nil || data == nil {
		return nil, err
	}
	ls, eol := lines(data)
	var kept []string
	for _, l := range ls {
		t := strings.TrimSpace(l)
		if k, v, ok := npmrcKey(l); ok && isScriptShellKey(k) && isAgentShell(v) {
			continue
		}
		if orig, ok := strings.CutSuffix(t, "  (replaced by agent-shell init)"); ok && strings.HasPrefix(orig, "# ") {
			l = strings.TrimPrefix(orig, "# ")
		}
		kept = append(kept, l)
	}
	if len(kept) == len(ls) && bytes.Equal(join(kept, eol), data) {
		return nil, nil
	}
	if strings.TrimSpace(strings.Join(kept, "")) == "" {
		err = os.Remove(path)
	} else {
		_, err = mergeFile(path, func([]byte) ([]byte, bool) { return join(kept, eol), true })
	}
	if err != nil {
		return nil, err
	}
	changed = append(changed, path)
	exclude := filepath.Join(root, ".git", "info", "exclude")
	if did, err := removeLine(exclude, "/.npmrc"); err != nil {
		return changed, err
	} else if did {
		changed = append(changed, exclude)
	}
	return changed, nil
}

// removeLine removes the lines of a file that are exactly line.
func removeLine(path, line string) (bool, error) {
	return mergeFile(path, func(b []byte) ([]byte, bool) {
		ls, eol := lines(b)
		var kept []string
		for _, l := range ls {
			if strings.TrimSpace(l) != line {
				kept = append(kept, l)
			}
		}
		return join(kept, eol), len(kept) != len(ls)
	})
}
