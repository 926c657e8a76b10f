package shellcmd

import (
	"path"
	"regexp"
	"strings"

	"github.com/agent-shell/agent-shell/internal/lazy"
	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// pre-commit runs the hooks of .pre-commit-config.yaml: its entries, with
// their args, are walked as commands it may run ([Command.Guessed]) for
// pre-commit run and for the git commands whose hook pre-commit installed
// (gitOnDisk). A repository's hooks from elsewhere run programs of their
// own, which are not read, unless the file overrides their entry.

// preCommitConfig is the configuration pre-commit reads by default.
const preCommitConfig = ".pre-commit-config.yaml"

// runsPreCommit walks the hooks pre-commit run (or pre-commit alone) runs.
func (w *walker) runsPreCommit(idx int, inner []word) {
	gitDir := w.st.disk.GitDir
	if gitDir == nil || w.st.disk.File == nil {
		return
	}
	config, sub := "", ""
	for i := 1; i < len(inner); i++ {
		a := inner[i]
		opt, v, eq := strings.Cut(a.s, "=")
		switch {
		case opt == "-c" || opt == "--config":
			if !eq && i+1 < len(inner) {
				i++
				v, a = inner[i].s, inner[i]
			}
			if a.dyn || v == "" {
				w.st.line.Commands[idx].Unknown = "pre-commit: its configuration is only known at run time"
				return
			}
			config = v
		case !strings.HasPrefix(a.s, "-") && sub == "":
			sub = a.s
		}
	}
	if sub != "" && sub != "run" && sub != "hook-impl" {
		return // install, autoupdate, clean, ...: no hooks run
	}
	c := &w.st.line.Commands[idx]
	_, workTree := gitDir(c.Dirs, c.DirUnknown)
	w.preCommitHooks(idx, workTree, config, c.Dirs)
}

// preCommitHooks walks the hooks of the configuration (preCommitConfig
// in workTree when config is ""; else config, from the folder dirs lead
// to).
func (w *walker) preCommitHooks(idx int, workTree, config string, dirs []string) {
	c := &w.st.line.Commands[idx]
	names := []string{preCommitConfig}
	if config != "" {
		names = append(names, path.Base(config))
	}
	if w.writesAny(names) {
		c.Unknown = "pre-commit runs the hooks of " + preCommitConfig + ", which the line writes earlier"
		return
	}
	var text, why string
	switch {
	case config != "":
		text, _, why = w.st.disk.File(dirs, c.DirUnknown, []string{config})
	case workTree != "":
		text, _, why = w.st.disk.File([]string{workTree}, false, []string{preCommitConfig})
	}
	if why != "" {
		c.Unknown = why
		return
	}
	if text == "" {
		return
	}
	cmds, ok := taskfile.PreCommitHooks(text)
	if !ok {
		c.Unknown = preCommitConfig + " uses YAML that is not read where its hooks' commands are (an alias, a merge key), or has too many hooks"
		return
	}
	w.mayRunLines(idx, cmds, workTree, "its pre-commit hooks")
}

// preCommitHookArgs finds the configuration in the hook's arguments;
// compiled on first use, not at every hook call's start.
var preCommitHookArgs = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`--config[= ]([^\s)"']+)`)
}}

// preCommitHookConfig reads a git hook that pre-commit installed: ok, and
// the configuration it names ("" for the default).
func preCommitHookConfig(hook string) (config string, ok bool) {
	if !strings.Contains(hook, "pre-commit") || !strings.Contains(hook, "hook-impl") {
		return "", false
	}
	if m := preCommitHookArgs.Get().FindStringSubmatch(hook); m != nil && m[1] != preCommitConfig {
		return m[1], true
	}
	return "", true
}
