package shellcmd

import (
	"fmt"
	"strings"
)

// Programs that run shell text they are given: tar's command options, the
// Ex commands of vim, and a makefile make reads from its input or its
// --eval. Each returns the scripts it finds (bodies walks them) or why
// they cannot be known.

// tarCommands are GNU tar's long options whose value is a command tar runs
// with a shell; a long option may be any prefix of its name, as
// getopt_long reads it (an ambiguous one only makes tar fail).
var tarCommands = []string{"to-command", "use-compress-program", "info-script", "new-volume-script", "rsh-command", "checkpoint-action"}

// tarArgs are tar's short options that take a value; -I and -F name
// commands.
const tarArgs = "bCfFgHIKLNTVX"

// tarBodies finds the commands a tar command runs: --to-command,
// --use-compress-program (-I, which gets arguments at run time),
// --info-script and --new-volume-script (-F), --rsh-command and
// --checkpoint-action=exec=, in the dash form, bundled in an old-style
// first word (tar xIf prog a.tar) or clustered (-xIprog).
func tarBodies(l []word) bodyResult {
	var r bodyResult
	add := func(opt string, v word) {
		if r.why != "" {
			return
		}
		if opt == "checkpoint-action" {
			cmd, ok := strings.CutPrefix(v.s, "exec=")
			if !ok {
				return
			}
			v.s = cmd
		}
		if v.dyn {
			r.why = fmt.Sprintf("tar: the command of --%s is not static: %s", opt, v.s)
			return
		}
		sc := script{src: v.s}
		if opt == "use-compress-program" {
			sc.runtime, sc.appendBy = true, "tar" // tar adds -d to decompress
		}
		r.scripts = append(r.scripts, sc)
	}
	for i := 1; i < len(l); i++ {
		x := l[i]
		switch {
		case x.s == "--" && !x.dyn:
			return r
		case strings.HasPrefix(x.s, "--"):
			shape := shapeOf(x)
			if m := strings.IndexAny(shape, markers); m >= 0 && (m < strings.IndexByte(shape+"=", '=')) {
				if tarCommand(shape[2:m], true) != "" {
					return bodyResult{why: fmt.Sprintf("tar: option %q is not static", x.s)}
				}
				continue
			}
			name, v, eq := strings.Cut(x.s[2:], "=")
			opt := tarCommand(name, false)
			if opt == "" {
				continue
			}
			val := word{s: v, dyn: x.dyn}
			if !eq && i+1 < len(l) {
				i++
				val = l[i]
			}
			add(opt, val)
		case strings.HasPrefix(x.s, "-") || i == 1 && !x.dyn:
			// A cluster, or the old-style first word whose letters take
			// their values from the words that follow, in order.
			letters, next := strings.TrimPrefix(x.s, "-"), i+1
			for j := 0; j < len(letters); j++ {
				c := letters[j]
				if strings.IndexByte(tarArgs, c) < 0 {
					continue
				}
				var val word
				switch {
				case x.s[0] == '-' && j+1 < len(letters):
					val = word{s: letters[j+1:], dyn: x.dyn}
				case next < len(l):
					val, next = l[next], next+1
				}
				if c == 'I' {
					add("use-compress-program", val)
				} else if c == 'F' {
					add("info-script", val)
				}
				if x.s[0] == '-' {
					break // the rest of the cluster, or the next word, was the value
				}
			}
			i = next - 1
		}
	}
	return r
}

// tarCommand is the command option a long option name stands for, or "";
// with more, the name is only the start of one (--to-$X).
func tarCommand(name string, more bool) string {
	if len(name) < 2 && !more {
		return ""
	}
	for _, full := range tarCommands {
		if strings.HasPrefix(full, name) {
			return full
		}
	}
	return ""
}

// isVim reports the editors that run Ex commands from their arguments.
func isVim(name string) bool {
	switch name {
	case "vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff", "rvim", "rview", "evim", "gex":
		return true
	}
	return false
}

// vimBodies finds the shell commands the Ex commands of a vim command run
// (-c CMD, --cmd CMD, +CMD): :!cmd, a range filtered through a command,
// :read !cmd, :write !cmd. An Ex command that could run a program some
// other way (:call system(), :normal, :source, :python ...) makes it
// unknown. In Ex mode (ex, vim -e, -E) it reads Ex commands from its
// input.
func vimBodies(name string, l []word) bodyResult {
	var r bodyResult
	exMode := name == "ex" || name == "gex"
	for i := 1; i < len(l); i++ {
		x := l[i]
		var cmd word
		switch {
		case x.dyn && (x.s == "" || x.s[0] == '-' || x.s[0] == '+' || strings.IndexAny(shapeOf(x)[:1], markers) >= 0):
			return bodyResult{why: fmt.Sprintf("%s: argument %q is not static", name, x.s)}
		case x.s == "--":
			i = len(l)
			continue
		case x.s == "-c" || x.s == "--cmd":
			if i+1 >= len(l) {
				continue
			}
			i++
			cmd = l[i]
		case strings.HasPrefix(x.s, "+"):
			cmd = word{s: x.s[1:], dyn: x.dyn}
			if cmd.s == "" || allDigits(cmd.s) || strings.HasPrefix(cmd.s, "/") {
				continue // a line number or a search
			}
		case strings.HasPrefix(x.s, "-") && !strings.HasPrefix(x.s, "--"):
			exMode = exMode || strings.ContainsAny(x.s[1:], "eE")
			continue
		default:
			continue
		}
		if cmd.dyn {
			return bodyResult{why: fmt.Sprintf("%s: Ex command %q is not static", name, cmd.s)}
		}
		sub := exBodies(cmd.s)
		if sub.why != "" {
			return sub
		}
		r.scripts = append(r.scripts, sub.scripts...)
	}
	if exMode {
		r.stdinLang = "ex"
	}
	return r
}

// exBodies finds the shell commands a line of Ex commands runs; see
// vimBodies.
func exBodies(text string) bodyResult {
	var r bodyResult
	for text != "" {
		cmd := exModified(skipRange(strings.TrimLeft(text, " \t:")))
		if shell, ok := strings.CutPrefix(cmd, "!"); ok { // :!cmd, :%!filter: the rest of the line
			return bodyResult{scripts: append(r.scripts, script{src: shell})}
		}
		name := exName(cmd)
		after := cmd[len(name):]
		rest := strings.TrimPrefix(after, "!") // q!, w!: forced
		switch spaced := strings.TrimLeft(after, " \t"); {
		case name == "":
			if cmd != "" && !strings.ContainsAny(cmd[:1], "&~<>=|\"") {
				return bodyResult{why: fmt.Sprintf("vim: Ex command %q may run programs", cmd)}
			}
		case (name == "r" || name == "read") && strings.HasPrefix(spaced, "!"),
			(name == "w" || name == "write") && spaced != after && strings.HasPrefix(spaced, "!"):
			// :r !cmd reads what cmd writes, :w !cmd (with a space) feeds it the buffer.
			return bodyResult{scripts: append(r.scripts, script{src: spaced[1:]})}
		case name == "g" || name == "global" || name == "v" || name == "vglobal":
			// g/pattern/cmd runs cmd on each matching line.
			sub, ok := globalCommand(rest)
			if !ok {
				return bodyResult{why: fmt.Sprintf("vim: Ex command %q may run programs", cmd)}
			}
			inner := exBodies(sub)
			if inner.why != "" {
				return inner
			}
			return bodyResult{scripts: append(r.scripts, inner.scripts...)}
		case !exInert(name) || strings.Contains(rest, `\=`):
			return bodyResult{why: fmt.Sprintf("vim: Ex command %q may run programs", cmd)}
		}
		bar := exBar(cmd)
		if bar < 0 {
			break
		}
		text = cmd[bar+1:]
	}
	return r
}

// skipRange skips the range before an Ex command: line numbers, ., $, %,
// marks ('a), patterns (/x/, ?x?), offsets and separators.
func skipRange(cmd string) string {
	for cmd != "" {
		switch c := cmd[0]; {
		case strings.IndexByte(" \t%.$,;+-0123456789", c) >= 0:
			cmd = cmd[1:]
		case c == '\'':
			cmd = cmd[min(2, len(cmd)):]
		case c == '/' || c == '?':
			end := 1
			for end < len(cmd) && cmd[end] != c {
				if cmd[end] == '\\' {
					end++
				}
				end++
			}
			cmd = cmd[min(end+1, len(cmd)):]
		default:
			return cmd
		}
	}
	return cmd
}

// exName is the name an Ex command starts with.
func exName(cmd string) string {
	return cmd[:len(cmd)-len(strings.TrimLeft(cmd, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))]
}

// exModified is the command after its modifiers (:silent !cmd runs cmd).
func exModified(cmd string) string {
	for {
		switch exName(cmd) {
		case "sil", "silent", "uns", "unsilent", "keepa", "keepalt", "keepj", "keepjumps", "keepm", "keepmarks",
			"keepp", "keeppatterns", "lockm", "lockmarks", "noa", "noautocmd", "nos", "noswapfile", "vert",
			"vertical", "to", "topleft", "bo", "botright", "abo", "aboveleft", "bel", "belowright", "conf",
			"confirm", "hid", "hide", "tab", "sandbox", "san":
			rest := strings.TrimPrefix(cmd[len(exName(cmd)):], "!")
			cmd = skipRange(strings.TrimLeft(rest, " \t:"))
		default:
			return cmd
		}
	}
}

// exInert reports Ex commands that run no program (and whose arguments do
// not; a substitution with \= evaluates an expression, which is checked
// apart).
func exInert(name string) bool {
	switch name {
	case "w", "write", "wq", "wqa", "wqall", "wa", "wall", "x", "xit", "xa", "xall", "q", "quit", "qa", "qall",
		"up", "update", "e", "edit", "ene", "enew", "set", "se", "setl", "setlocal", "setg", "setglobal",
		"s", "substitute", "d", "delete", "m", "move", "t", "co", "copy", "j", "join", "y", "yank", "pu", "put",
		"sor", "sort", "noh", "nohlsearch", "ret", "retab", "sy", "syntax", "filet", "filetype", "redr", "redraw",
		"u", "undo", "red", "redo", "le", "left", "ri", "right", "ce", "center", "k", "ma", "mark", "p", "print",
		"nu", "number", "l", "list", "z", "i", "insert", "a", "append", "c", "change", "f", "file":
		return true
	}
	return false
}

// globalCommand is the command of g/pattern/cmd, the pattern delimited by
// its first character.
func globalCommand(rest string) (string, bool) {
	if rest == "" {
		return "", false
	}
	delim := rest[0]
	for i := 1; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++
		case delim:
			return rest[i+1:], true
		}
	}
	return "", false
}

// exBar finds the | that ends an Ex command, not one a backslash escapes.
func exBar(cmd string) int {
	for i := 0; i < len(cmd); i++ {
		switch cmd[i] {
		case '\\':
			i++
		case '|':
			return i
		}
	}
	return -1
}

// makeBodies finds the recipes of a makefile a make command reads from
// its input (-f -, --file=-, -f /dev/stdin) or is given as --eval text
// (-E TEXT).
func makeBodies(l []word) bodyResult {
	var r bodyResult
	add := func(text word) {
		if r.why != "" {
			return
		}
		if text.dyn {
			r.why = fmt.Sprintf("make: the makefile text is not static: %s", text.s)
			return
		}
		sub := makefileBodies(text.s)
		r.scripts, r.why = append(r.scripts, sub.scripts...), sub.why
	}
	file := func(v word) {
		switch {
		case v.dyn:
		case v.s == "-" || v.s == "/dev/stdin" || v.s == "/dev/fd/0" || v.s == "/proc/self/fd/0":
			r.stdinLang = "make"
		}
	}
	for i := 1; i < len(l); i++ {
		x := l[i]
		name, v, eq := strings.Cut(x.s, "=")
		switch {
		case x.s == "--":
			return r
		case name == "--file" || name == "--makefile" || name == "--eval":
			val := word{s: v, dyn: x.dyn}
			if !eq && i+1 < len(l) {
				i++
				val = l[i]
			}
			if name == "--eval" {
				add(val)
			} else {
				file(val)
			}
		case strings.HasPrefix(x.s, "-") && !strings.HasPrefix(x.s, "--"):
			for j := 1; j < len(x.s); j++ {
				if strings.IndexByte("CfIoWE", x.s[j]) < 0 {
					continue
				}
				val := word{s: x.s[j+1:], dyn: x.dyn}
				if j+1 == len(x.s) && i+1 < len(l) {
					i++
					val = l[i]
				}
				switch x.s[j] {
				case 'f':
					file(val)
				case 'E':
					add(val)
				}
				break
			}
		}
	}
	return r
}

// makefileBodies finds the recipes of makefile text: the lines that start
// with a tab and what follows a rule's ";", each a shell script ($$ is $,
// and the @, - and + prefixes go). Text that expands make variables or
// functions ($(shell ...) runs while it is read), defines them, or
// changes the shell or the recipe prefix is not known statically.
func makefileBodies(text string) bodyResult {
	text = strings.ReplaceAll(text, "\\\n", " ")
	plain := strings.ReplaceAll(text, "$$", "")
	if strings.Contains(plain, "$") {
		return bodyResult{why: "make: the makefile expands variables or functions"}
	}
	var r bodyResult
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		first, _, _ := strings.Cut(trimmed, " ")
		switch {
		case strings.HasPrefix(line, "\t"):
			r.scripts = append(r.scripts, recipe(line[1:]))
		case first == "define" || strings.HasPrefix(trimmed, "SHELL") || strings.HasPrefix(trimmed, ".SHELLFLAGS") ||
			strings.HasPrefix(trimmed, ".RECIPEPREFIX") || strings.HasPrefix(trimmed, "MAKESHELL"):
			return bodyResult{why: fmt.Sprintf("make: the makefile line %q changes how recipes run", trimmed)}
		case strings.Contains(line, ":") && strings.Contains(line, ";"):
			_, after, _ := strings.Cut(line, ";")
			r.scripts = append(r.scripts, recipe(after))
		}
	}
	return r
}

// recipe is the shell script of one recipe line.
func recipe(line string) script {
	line = strings.TrimLeft(line, " \t@-+")
	return script{src: strings.ReplaceAll(line, "$$", "$")}
}
