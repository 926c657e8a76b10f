package shellcmd

import (
	"fmt"
	"strings"
)

// Programs that run a command later or in another terminal: at and batch
// (a script from standard input or -f FILE, run in this folder), tmux
// (the shell command of a new session, window or pane, run-shell, and the
// keys send-keys types into a pane, in a folder not known here) and screen
// (a command and its arguments, a wrapper).

// atBody: at TIME and batch read a script from standard input, or run
// -f FILE; -l, -r, -d and -c list, remove or show jobs.
func atBody(l []word) bodyResult {
	for i := 1; i < len(l); i++ {
		x := l[i]
		if x.dyn || len(x.s) < 2 || x.s[0] != '-' {
			continue
		}
		for j := 1; j < len(x.s); j++ {
			switch x.s[j] {
			case 'l', 'r', 'd', 'c', 'V':
				return bodyResult{}
			case 'f':
				v := word{s: x.s[j+1:], dyn: x.dyn}
				if v.s == "" && i+1 < len(l) {
					v = l[i+1]
				}
				if v.dyn {
					return bodyResult{}
				}
				return bodyResult{file: v.s}
			case 'q', 't':
				j = len(x.s) // its value follows: in this word, or the next
				if len(x.s) == 2 {
					i++
				}
			}
		}
	}
	return bodyResult{stdin: true}
}

// crontabBody reads crontab [-u USER] [FILE]: with no file, or -, it
// installs the table it reads on standard input, whose commands cron runs
// later (crontabBodies). A file on disk is not read, as sh FILE's is not;
// -l, -r and -e install nothing (-e's editor is EDITOR's business).
func crontabBody(l []word) bodyResult {
	var ops []word
	for i := 1; i < len(l); i++ {
		x := l[i]
		switch {
		case x.s == "-u" || x.s == "-s":
			i++
		case x.s == "-l" || x.s == "-r" || x.s == "-e" || x.s == "-i" && len(l) == 2:
			return bodyResult{}
		case x.dyn || !strings.HasPrefix(x.s, "-") || x.s == "-":
			ops = append(ops, x)
		}
	}
	if len(ops) == 0 || len(ops) == 1 && ops[0].s == "-" && !ops[0].dyn {
		return bodyResult{stdinLang: "crontab"}
	}
	return bodyResult{}
}

// crontabBodies are the commands of a crontab: each line's command after
// its schedule (five fields, or @reboot, @daily ...), up to an unescaped %
// (what follows goes to its input). Comments, blank lines and NAME=value
// lines are passed over.
func crontabBodies(src string) bodyResult {
	var r bodyResult
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		skip := 5
		if strings.HasPrefix(fields[0], "@") {
			skip = 1
		} else if name, _, ok := strings.Cut(fields[0], "="); ok && len(fields) < 6 && name != "" && !strings.ContainsAny(name, "*/,-") {
			continue // SHELL=/bin/bash, MAILTO=...
		}
		if len(fields) <= skip {
			r.why = fmt.Sprintf("crontab line %q has no command", line)
			return r
		}
		cmd := line
		for k := 0; k < skip; k++ {
			cmd = strings.TrimLeft(cmd, " \t")
			cmd = cmd[strings.IndexAny(cmd+" ", " \t"):]
		}
		for i := 0; i < len(cmd); i++ {
			if cmd[i] == '\\' {
				i++
			} else if cmd[i] == '%' {
				cmd = cmd[:i]
				break
			}
		}
		r.scripts = append(r.scripts, script{src: strings.TrimSpace(cmd)})
	}
	return r
}

// tmuxRuns says whether a tmux command runs a shell command, with the
// letters of its options that take a value. (Switches, not maps: a map
// literal is built at every start.)
func tmuxRuns(name string) (values string, ok bool) {
	switch name {
	case "new-session", "new":
		return "cefFnstxy", true
	case "new-window", "neww":
		return "ceFnt", true
	case "split-window", "splitw":
		return "celtFp", true
	case "respawn-pane", "respawnp", "respawn-window", "respawnw":
		return "cet", true
	case "display-popup", "popup":
		return "bcdehsStTwxy", true
	case "run-shell", "run":
		return "cdt", true
	case "pipe-pane", "pipep":
		return "t", true
	}
	return "", false
}

// tmuxQuiet reports the tmux commands that run nothing.
func tmuxQuiet(name string) bool {
	switch name {
	case "ls", "list-sessions", "list-windows", "lsw", "list-panes", "lsp", "list-clients", "lsc",
		"list-buffers", "lsb", "list-keys", "lsk", "list-commands", "lscm", "has-session", "has",
		"attach-session", "attach", "a", "at", "detach-client", "detach", "kill-session", "kill-server",
		"kill-window", "killw", "kill-pane", "killp", "capture-pane", "capturep", "display-message",
		"display", "show-options", "show", "show-environment", "showenv", "select-window", "selectw",
		"select-pane", "selectp", "switch-client", "switchc", "rename-session", "rename", "rename-window",
		"renamew", "resize-pane", "resizep", "start-server", "start", "wait-for", "wait", "show-buffer",
		"showb", "clear-history", "clearhist", "last-window", "last", "next-window", "next",
		"previous-window", "prev":
		return true
	}
	return false
}

// tmuxBodies reads a tmux command line: global options (-c runs a shell
// command, as sh -c does), then commands separated by ";".
func tmuxBodies(l []word) bodyResult {
	var r bodyResult
	i := 1
options:
	for ; i < len(l); i++ {
		x := l[i]
		if x.dyn {
			return bodyResult{why: fmt.Sprintf("tmux: %q is not static", x.s)}
		}
		if len(x.s) < 2 || x.s[0] != '-' {
			break
		}
		if x.s == "--" {
			i++
			break
		}
		for j := 1; j < len(x.s); j++ {
			c := x.s[j]
			if strings.IndexByte("cfLST", c) < 0 {
				continue
			}
			v := word{s: x.s[j+1:]}
			if v.s == "" && i+1 < len(l) {
				i++
				v = l[i]
			}
			if c == 'c' {
				return oneBody("tmux -c", v)
			}
			continue options
		}
	}
	r.elsewhere = true
	start := i
	for k := i; k <= len(l); k++ {
		if k < len(l) && l[k].s != ";" && !strings.HasSuffix(l[k].s, `\;`) {
			continue
		}
		if k > start {
			cmd := l[start:k]
			if k < len(l) && l[k].s != ";" { // "cmd\;" ends its word
				cmd = append(cmd[:len(cmd):len(cmd)], word{s: strings.TrimSuffix(l[k].s, `\;`)})
			}
			if why := tmuxCommand(cmd, &r); why != "" {
				return bodyResult{why: why}
			}
		}
		start = k + 1
	}
	return r
}

// tmuxCommand adds what one tmux command runs to r, or says why that is
// not known.
func tmuxCommand(cmd []word, r *bodyResult) string {
	name := cmd[0].s
	if tmuxQuiet(name) {
		return ""
	}
	if name == "send-keys" || name == "send" {
		return tmuxKeys(cmd, r)
	}
	values, ok := tmuxRuns(name)
	if !ok {
		return fmt.Sprintf("tmux: %s may run commands that are not known here", name)
	}
	i, why := tmuxOptions(cmd, values, func(opt string) string {
		if (name == "run-shell" || name == "run") && strings.IndexByte(opt, 'C') > 0 {
			return "tmux: run-shell -C runs tmux commands"
		}
		return ""
	})
	if why != "" {
		return why
	}
	if i >= len(cmd) {
		return "" // the default shell, interactive
	}
	if why := allStatic("tmux: the shell command", cmd[i:]); why != "" {
		return why
	}
	r.scripts = append(r.scripts, script{src: join(cmd[i:])})
	return ""
}

// tmuxOptions reads the options of one tmux command, calling check with
// each option word (a cluster of letters, the last of which may take the
// next word when it is in values), and returns the index of its first
// operand, or why check refused an option.
func tmuxOptions(cmd []word, values string, check func(opt string) string) (int, string) {
	i := 1
	for ; i < len(cmd); i++ {
		x := cmd[i]
		if len(x.s) < 2 || x.s[0] != '-' {
			break
		}
		if x.s == "--" {
			return i + 1, ""
		}
		if why := check(x.s); why != "" {
			return i, why
		}
		if c := x.s[len(x.s)-1]; strings.IndexByte(values, c) >= 0 {
			i++ // the value follows
		}
	}
	return i, ""
}

// tmuxKeys reads send-keys: the keys it types into a pane, text and
// Enter, are a command line the pane's shell runs; other keys (C-c, Up,
// Escape), -H hex and -X copy-mode commands are not read here.
func tmuxKeys(cmd []word, r *bodyResult) string {
	literal := false
	i, why := tmuxOptions(cmd, "cNt", func(opt string) string {
		if strings.ContainsAny(opt[1:], "HXMK") {
			return "tmux: send-keys " + opt + " does not type text"
		}
		literal = literal || strings.IndexByte(opt[1:], 'l') >= 0
		return ""
	})
	if why != "" {
		return why
	}
	var b strings.Builder
	for _, x := range cmd[min(i, len(cmd)):] {
		if x.dyn {
			return fmt.Sprintf("tmux: the keys %q are not static", x.s)
		}
		switch {
		case literal:
			b.WriteString(x.s)
		case x.s == "Enter" || x.s == "C-m" || x.s == "KPEnter" || x.s == "C-j":
			b.WriteByte('\n')
		case x.s == "Space":
			b.WriteByte(' ')
		case x.s == "Tab":
			b.WriteByte('\t')
		case tmuxKeyName(x.s):
			return fmt.Sprintf("tmux: send-keys %s does more than type text", x.s)
		default:
			b.WriteString(x.s)
		}
	}
	if b.Len() > 0 {
		r.scripts = append(r.scripts, script{src: b.String()})
	}
	return ""
}

// tmuxKeyName reports a word tmux reads as a key rather than text: C-x,
// M-x, S-x, and the named keys.
func tmuxKeyName(s string) bool {
	if len(s) > 2 && (s[0] == 'C' || s[0] == 'M' || s[0] == 'S') && s[1] == '-' {
		return true
	}
	switch strings.ToLower(s) {
	case "up", "down", "left", "right", "bspace", "btab", "dc", "end", "escape", "home", "ic",
		"npage", "pagedown", "pgdn", "ppage", "pageup", "pgup", "any":
		return true
	}
	return len(s) >= 2 && len(s) <= 3 && s[0] == 'F' && s[1] >= '1' && s[1] <= '9'
}

// screenStep reads screen's options: -X sends a screen command to a
// session (stuff types text), -ls, -r, -x, -wipe and the like start
// nothing; the first operand is a command screen runs with its arguments,
// in this folder, as a wrapper does.
func screenStep(l []word) step {
	for i := 1; i < len(l); i++ {
		x := l[i]
		if x.dyn {
			return unknownStep(fmt.Sprintf("screen: %q is not static", x.s))
		}
		switch x.s {
		case "-X":
			return unknownStep("screen -X sends commands to a session")
		case "-ls", "-list", "-r", "-R", "-RR", "-x", "-wipe", "-v", "-version", "--version", "-Q":
			return step{}
		case "-c", "-e", "-h", "-p", "-s", "-S", "-t", "-T", "-Logfile":
			i++
			continue
		}
		if strings.HasPrefix(x.s, "-") {
			// A cluster of flags (-dmS NAME: a value-taking letter last
			// takes the next word).
			if c := x.s[len(x.s)-1]; len(x.s) > 2 && strings.IndexByte("cehpsStT", c) >= 0 {
				i++
			}
			continue
		}
		return wrapAt(i, l)
	}
	return step{kind: stepImplied, implied: "sh", why: "screen without a command runs a shell", missing: true}
}
