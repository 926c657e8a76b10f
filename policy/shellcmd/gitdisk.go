package shellcmd

import (
	"path"
	"slices"
	"strings"
)

// git runs what its repository says as well as what its words say: the
// hooks in .git/hooks (or core.hooksPath) and the aliases and commands of
// .git/config. An agent could write either with its editor, an ordinary
// edit, and then run git commit. So where the caller gives the repository
// (Disk.GitDir, Disk.File), the hooks the git command may run and what its
// configuration makes it run are walked as commands it may run
// ([Command.Guessed]), as configuration given on the line is (gitIndirect).
// A hook runs though the command does not name it, unlike bash x.sh,
// whose script file is not read.

// maxGitConfig bounds the settings of .git/config that are read.
const maxGitConfig = 4096

// gitHooks returns the hooks a git subcommand may run, beside those that
// any command that changes a ref or the index may (reference-transaction,
// pre-auto-gc, post-index-change). A read-only subcommand runs none.
func gitHooks(sub string, rest []word) []string {
	noVerify := slices.ContainsFunc(rest, func(a word) bool { return a.s == "-n" || a.s == "--no-verify" })
	commit := []string{"prepare-commit-msg", "post-commit", "post-rewrite"}
	if !noVerify {
		commit = append(commit, "pre-commit", "commit-msg")
	}
	var hooks []string
	switch sub {
	case "status", "log", "diff", "show", "blame", "grep", "ls-files", "ls-tree", "rev-parse", "rev-list", "describe",
		"shortlog", "cat-file", "help", "version", "remote", "config", "whatchanged", "reflog", "for-each-ref", "var",
		"check-ignore", "name-rev", "show-ref", "count-objects", "verify-commit", "verify-tag", "archive", "bundle":
		return nil
	case "commit":
		hooks = commit
	case "merge", "pull":
		hooks = append(commit, "pre-merge-commit", "post-merge", "post-checkout", "pre-rebase")
	case "rebase", "cherry-pick", "revert":
		hooks = append(commit, "pre-rebase", "post-checkout")
	case "am":
		hooks = append(commit, "applypatch-msg", "pre-applypatch", "post-applypatch")
	case "checkout", "switch", "worktree":
		hooks = []string{"post-checkout"}
	case "push":
		hooks = []string{"pre-push"}
	}
	return append(hooks, "reference-transaction", "pre-auto-gc", "post-index-change")
}

// gitOnDisk walks what the git command at idx may run from its
// repository: the hooks of its subcommand and the commands .git/config
// gives it. dirs are its own -C folders.
func (w *walker) gitOnDisk(idx int, sub *word, rest []word, dirs []string, elsewhere bool) {
	find, read := w.st.disk.GitDir, w.st.disk.File
	if find == nil || read == nil || w.st.inRepo || elsewhere || sub.dyn || sub.s == "" || sub.s == "clone" || sub.s == "init" {
		return
	}
	// What the repository runs is read once: a git command in a hook or an
	// alias runs the same hooks and aliases.
	w.st.inRepo = true
	defer func() { w.st.inRepo = false }()
	c := &w.st.line.Commands[idx]
	all := append(slices.Clip(c.Dirs), dirs...)
	gitDir, workTree := find(all, c.DirUnknown)
	if gitDir == "" {
		return
	}
	g := w.scoped()
	g.guessed = true
	settings, ok := w.st.gitConfigs[gitDir]
	if !ok {
		var why string
		if settings, why = readGitConfigs(read, gitDir); why != "" {
			c.Unknown = why
			return
		}
		if w.st.gitConfigs == nil {
			w.st.gitConfigs = map[string][]gitSetting{}
		}
		w.st.gitConfigs[gitDir] = settings // a line of many git commands reads it once
	}
	hooksDir := path.Join(gitDir, "hooks")
	for _, s := range settings {
		section, _, name := gitKey(s.key)
		switch {
		case section == "core" && name == "hookspath":
			hooksDir = s.value
			if !path.IsAbs(hooksDir) && hooksDir != "~" && !strings.HasPrefix(hooksDir, "~/") { // git expands ~, as the reader does
				hooksDir = path.Join(workTree, hooksDir)
			}
		case section == "include" || section == "includeif":
			// readGitConfigs followed it.
		case section == "remote" && (name == "push" || name == "mirror") && sub.s != "push":
			// Only a push pushes.
		default:
			g.gitApply(idx, s, sub, rest, nil)
		}
		if w.st.line.Commands[idx].Unknown != "" {
			return
		}
	}
	if strings.HasPrefix(hooksDir, "~") && hooksDir != "~" && !strings.HasPrefix(hooksDir, "~/") {
		return // ~user/...: another user's home, not resolved here
	}
	hookDirs := []string{hooksDir}
	if path.Base(hooksDir) == "_" {
		hookDirs = append(hookDirs, path.Dir(hooksDir)) // husky 9: .husky/_/HOOK runs .husky/HOOK
	}
	for _, hook := range gitHooks(sub.s, rest) {
		for _, d := range hookDirs {
			text, _, _ := read([]string{d}, false, []string{hook})
			if src, ok := hookScript(text); ok {
				g.body(idx, script{src: src, dir: workTree})
			}
			if config, ok := preCommitHookConfig(text); ok && w.st.line.Commands[idx].Unknown == "" {
				// The hook pre-commit installed runs its configuration's hooks.
				g.preCommitHooks(idx, workTree, config, []string{workTree})
			}
			if w.st.line.Commands[idx].Unknown != "" {
				return
			}
		}
	}
}

// hookScript is the shell text of a hook file that is a shell script; ok
// is false for one in another language, whose program is not read: the
// one-liner scan (ScanCode) reads a few lines well and a module badly
// (a tenth of 251 python and shell files of 22 repositories, run as
// bash F or python3 F, were denied when they were read).
func hookScript(text string) (string, bool) {
	if strings.TrimSpace(text) == "" {
		return "", false
	}
	first, _, _ := strings.Cut(text, "\n")
	interp, isShebang := strings.CutPrefix(first, "#!")
	if !isShebang {
		return text, true
	}
	fields := strings.Fields(interp)
	if len(fields) == 0 {
		return text, true
	}
	prog := path.Base(fields[0])
	if prog == "env" && len(fields) > 1 {
		prog = fields[len(fields)-1]
	}
	switch prog {
	case "sh", "bash", "dash", "zsh", "ksh", "ash":
		return text, true
	}
	return "", false
}

// maxGitConfigFiles bounds the configuration files read for one
// repository: the global ones, its own, and what they include.
const maxGitConfigFiles = 16

// readGitConfigs reads the settings git takes for a repository: the
// aliases of the user's configuration (~/.gitconfig, ~/.config/git/config),
// then the repository's settings, each with the files it includes
// (include.path, and includeIf's whatever its condition: reading more can
// only add what a rule may object to). Of the user's files only aliases
// and core.hooksPath count (git config --global core.hooksPath /tmp/h
// makes every later commit run what /tmp/h holds): their other command
// settings (a credential helper, a pager) run for every repository, set
// by the user, and would be judged on every git command. why says why one
// that is there cannot be read.
func readGitConfigs(read func(dirs []string, unknown bool, names []string) (string, string, string), gitDir string) (settings []gitSetting, why string) {
	files := 0
	var load func(dir, name, where string, user bool, depth int) string
	load = func(dir, name, where string, user bool, depth int) string {
		if files++; files > maxGitConfigFiles || depth > 10 {
			return "its git configuration includes more files than are read"
		}
		text, at, why := read([]string{dir}, false, []string{name})
		if why != "" || text == "" {
			return why
		}
		for _, s := range gitConfigSettings(text) {
			s.where = where
			section, _, key := gitKey(s.key)
			if !user || section == "alias" || section == "core" && key == "hookspath" {
				settings = append(settings, s)
			}
			if (section == "include" || section == "includeif") && key == "path" && s.value != "" {
				p := s.value
				if !strings.HasPrefix(p, "~") && !path.IsAbs(p) {
					p = path.Join(at, p) // relative to the file that includes it
				}
				d, n := path.Split(p)
				if why := load(strings.TrimSuffix(d, "/"), n, where+" (through "+s.value+")", user, depth+1); why != "" {
					return why
				}
			}
		}
		return ""
	}
	for _, f := range []struct {
		dir, name, where string
		user             bool
	}{
		{"~", ".gitconfig", "the user's ~/.gitconfig", true},
		{"~/.config/git", "config", "the user's ~/.config/git/config", true},
		{gitDir, "config", "the repository's .git/config", false},
	} {
		if why := load(f.dir, f.name, f.where, f.user, 0); why != "" {
			return nil, why
		}
	}
	return settings, ""
}

// gitConfigSettings reads a git configuration file's settings as
// section.subsection.name = value, at most maxGitConfig of them. It reads
// what git writes (and a person would); what it cannot read it leaves out.
func gitConfigSettings(text string) []gitSetting {
	var out []gitSetting
	section := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				section = ""
				continue
			}
			head := line[1:end]
			name, sub, quoted := strings.Cut(head, " ")
			section = strings.ToLower(name)
			if quoted {
				section += "." + strings.Trim(strings.TrimSpace(sub), `"`)
			} else if dot := strings.IndexByte(name, '.'); dot >= 0 {
				section = strings.ToLower(name[:dot]) + "." + name[dot+1:] // [section.sub], the old form
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		if section == "" {
			continue
		}
		key, value, hasValue := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !hasValue {
			value = "true"
		}
		out = append(out, gitSetting{key: section + "." + strings.ToLower(key), value: gitConfigValue(value), where: "the repository's .git/config"})
		if len(out) == maxGitConfig {
			break
		}
	}
	return out
}

// gitConfigValue reads a value: quotes removed, a comment after it cut,
// \" \\ \n \t read.
func gitConfigValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}
