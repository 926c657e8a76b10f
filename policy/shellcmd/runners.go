package shellcmd

import (
	"fmt"
	"slices"
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
			i = tarCluster(l, i, func(c byte, val word) {
				if c == 'I' {
					add("use-compress-program", val)
				} else if c == 'F' {
					add("info-script", val)
				}
			}) - 1
		}
	}
	return r
}

// tarCluster reads the option cluster at l[i], or the old-style first
// word, whose letters of tarArgs take their values in order: the rest of
// a dash cluster, or the words that follow. It calls each with every such
// letter and its value, and returns the index of the word after them.
func tarCluster(l []word, i int, each func(c byte, val word)) int {
	x := l[i]
	letters, next := strings.TrimPrefix(x.s, "-"), i+1
	for j := 0; j < len(letters); j++ {
		c := letters[j]
		if strings.IndexByte(tarArgs, c) < 0 {
			continue
		}
		var val word
		switch {
		case x.s[0] == '-' && j+1 < len(letters):
			val = word{s: letters[j+1:]}
			if x.dyn { // -C$D: a value known at run time
				val.dyn, val.shape = true, string(Hole)
			}
		case next < len(l):
			val, next = l[next], next+1
		}
		each(c, val)
		if x.s[0] == '-' {
			break // the rest of the cluster, or the next word, was the value
		}
	}
	return next
}

// tarRemovedFiles reports tar --remove-files (or an unambiguous prefix of
// it), which deletes each file it archives, with the operands it deletes:
// the words that are neither options nor their values, each under the
// folder -C names before it.
func tarRemovedFiles(l []word) (files []word, ok bool) {
	remove := false
	var dir word
	for i := 1; i < len(l); i++ {
		x := l[i]
		switch {
		case x.s == "--" && !x.dyn:
			for _, f := range l[i+1:] {
				files = append(files, underDir(dir, f))
			}
			i = len(l)
		case strings.HasPrefix(x.s, "--"):
			name, v, eq := strings.Cut(x.s[2:], "=")
			switch {
			case len(name) >= 3 && strings.HasPrefix("remove-files", name):
				remove = true
			case len(name) >= 3 && strings.HasPrefix("directory", name):
				dir = word{s: v}
				if x.dyn {
					dir.dyn, dir.shape = true, string(Hole)
				}
				if !eq && i+1 < len(l) {
					i++
					dir = l[i]
				}
			}
		case strings.HasPrefix(x.s, "-") || i == 1 && !x.dyn:
			i = tarCluster(l, i, func(c byte, val word) {
				if c == 'C' {
					dir = val
				}
			}) - 1
		default:
			files = append(files, underDir(dir, x))
		}
	}
	return files, remove && len(files) > 0
}

// underDir is the path w names when tar -C dir is in force.
func underDir(dir, w word) word {
	if dir.s == "" || strings.HasPrefix(w.s, "/") || strings.HasPrefix(w.s, "~") || w.dyn {
		return w
	}
	out := word{s: strings.TrimSuffix(dir.s, "/") + "/" + w.s, dyn: dir.dyn}
	if dir.dyn {
		out.shape = strings.TrimSuffix(shapeOf(dir), "/") + "/" + w.s
	}
	return out
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
		case v.s == "-" || stdinFile(v.s):
			r.stdinLang = "make"
		}
	}
	for i := 1; i < len(l); i++ {
		x := l[i]
		name, v, eq := strings.Cut(x.s, "=")
		switch {
		case x.s == "--":
			return r
		case eq && (name == "SHELL" || name == "MAKESHELL" || name == ".SHELLFLAGS"):
			// make SHELL='rm -rf ~' x runs each recipe with that
			// program, and .SHELLFLAGS='-c "rm -rf ~" #' with those
			// words before it: what they make run is walked.
			switch {
			case x.dyn:
				r.why = fmt.Sprintf("make: %s is not static", x.s)
			case name == ".SHELLFLAGS":
				r.scripts = append(r.scripts, script{src: "sh " + v, runtime: true})
			default:
				r.scripts = append(r.scripts, script{src: v, runtime: true})
			}
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

// sshBodies finds the commands ssh, scp and sftp run: on this machine,
// the -o ProxyCommand, LocalCommand and KnownHostsCommand options (shell
// text, with %h-style tokens filled in at run time), and scp's and sftp's
// -S PROGRAM, run in place of ssh with arguments added; on the remote host
// (which may be this one: ssh localhost rm -rf ~), ssh's command, its
// words joined by spaces as ssh does, run by the remote user's shell in a
// folder not known here, or with no command, what that shell reads from
// standard input.
func sshBodies(name string, l []word) bodyResult {
	var r bodyResult
	remote, command := -1, -1        // the indexes of ssh's destination and its command
	noCommand := false               // -N (forwarding only), -s (a subsystem), -O (a control command), -W
	args := "BbcDEeFIiJLlmOoPpQRSWw" // ssh's short options with a value
	if name != "ssh" {
		args = "BbcDFiJlloPRSsX"
	}
	add := func(v word, appended bool) {
		if r.why != "" {
			return
		}
		if v.dyn {
			r.why = fmt.Sprintf("%s: the command %q is not static", name, v.s)
			return
		}
		sc := script{src: v.s, runtime: true}
		if appended {
			sc.appendBy = name
		}
		r.scripts = append(r.scripts, sc)
	}
	option := func(v word) {
		key, val, ok := strings.Cut(v.s, "=")
		if !ok {
			key, val, _ = strings.Cut(strings.TrimLeft(v.s, " \t"), " ")
		}
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.TrimSpace(val)
		switch key {
		case "proxycommand", "localcommand", "knownhostscommand":
			if strings.EqualFold(val, "none") || val == "" && !v.dyn {
				return
			}
			if v.dyn {
				r.why = fmt.Sprintf("%s: option %q is not static", name, v.s)
				return
			}
			add(word{s: strings.TrimPrefix(val, "exec ")}, false)
		}
	}
	for i := 1; i < len(l); i++ {
		x := l[i]
		if x.s == "--" && !x.dyn || !strings.HasPrefix(x.s, "-") || len(x.s) < 2 {
			if name != "ssh" {
				continue // scp's and sftp's operands; options may follow
			}
			// OpenSSH reads options after the destination too, up to the
			// command's first word or --.
			if x.s == "--" && !x.dyn {
				i++
			}
			if remote < 0 {
				remote = i
				continue
			}
			command = i
			break
		}
		for j := 1; j < len(x.s); j++ {
			c := x.s[j]
			noCommand = noCommand || strings.IndexByte("NsOW", c) >= 0
			if strings.IndexByte(args, c) < 0 {
				continue
			}
			v := word{s: x.s[j+1:], dyn: x.dyn}
			if v.s == "" && i+1 < len(l) {
				i++
				v = l[i]
			}
			switch {
			case c == 'o':
				option(v)
			case c == 'S' && name != "ssh":
				add(v, true)
			}
			break
		}
	}
	if remote < 0 || remote >= len(l) || noCommand || r.why != "" {
		return r
	}
	r.elsewhere = true
	if command > 0 && command < len(l) {
		cmd := l[command:]
		if why := allStatic("ssh: the remote command", cmd); why != "" {
			r.why = why
			return r
		}
		r.scripts = append(r.scripts, script{src: join(cmd)})
	} else {
		r.stdin = true
	}
	return r
}

// dynamicIn reports whether a word of l that holds v, whole or as the
// value attached to an option (-eV, --name=V), is not static: a value the
// program table read from l's text is as dynamic as its word.
func dynamicIn(l []word, v string) bool {
	for _, w := range l[1:] {
		if w.dyn && (w.s == v || strings.HasPrefix(w.s, "-") && strings.HasSuffix(w.s, v)) {
			return true
		}
	}
	return false
}

// rsyncBodies finds the remote shell rsync runs on this machine (-e
// CMD, --rsh=CMD, as the program table reads rsync's options), with the
// host and rsync's command added.
func rsyncBodies(l []word) bodyResult {
	for _, v := range ProgramOptions("rsync").Split(strs(l[1:])).Values("e", "rsh") {
		if dynamicIn(l, v) {
			return bodyResult{why: fmt.Sprintf("rsync: the remote shell %q is not static", v)}
		}
		return bodyResult{scripts: []script{{src: v, runtime: true, appendBy: "rsync"}}}
	}
	return bodyResult{}
}

// manBodies finds the pager man runs with a shell (-P PAGER, --pager,
// as the program table reads man's options).
func manBodies(l []word) bodyResult {
	for _, v := range ProgramOptions("man").Split(strs(l[1:])).Values("P", "pager") {
		return oneBody("man -P", word{s: v, dyn: dynamicIn(l, v)})
	}
	return bodyResult{}
}

// zipBodies finds the command zip -T runs to test the archive (-TT CMD,
// --unzip-command CMD), with the archive's name added. -TT is one option
// of two letters, which the program table's getopt reading cannot hold.
func zipBodies(l []word) bodyResult {
	for i := 1; i < len(l); i++ {
		x := l[i]
		var v word
		switch {
		case x.s == "-TT" || x.s == "--unzip-command":
			if i+1 >= len(l) {
				return bodyResult{}
			}
			i++
			v = l[i]
		case strings.HasPrefix(x.s, "--unzip-command="):
			v = word{s: x.s[len("--unzip-command="):], dyn: x.dyn}
		default:
			continue
		}
		if v.dyn {
			return bodyResult{why: fmt.Sprintf("zip: the test command %q is not static", v.s)}
		}
		return bodyResult{scripts: []script{{src: strings.ReplaceAll(v.s, "{}", "x.zip"), runtime: true, appendBy: "zip"}}}
	}
	return bodyResult{}
}

// sedBodies finds the shell commands a GNU sed script runs: the e command
// (e CMD runs CMD; e alone runs the pattern space) and the e flag of s
// (runs what the substitution leaves in the pattern space). A command
// that is the text being edited is not known here. Script files (-f) are
// not read.
func sedBodies(l []word) bodyResult {
	// The scripts are the -e expressions (as the program table reads sed's
	// options: -ie is -i with a suffix, not -e), else the first operand.
	p := ProgramOptions("sed").Split(strs(l[1:]))
	var texts []word
	for _, v := range p.Values("e", "expression") {
		texts = append(texts, word{s: v, dyn: dynamicIn(l, v)})
	}
	if len(texts) == 0 && len(p.Values("f", "file")) == 0 && len(p.Operands) > 0 {
		v := p.Operands[0]
		texts = append(texts, word{s: v, dyn: dynamicIn(l, v)})
	}
	var r bodyResult
	for _, t := range texts {
		cmds, pattern := sedExecs(t.s)
		switch {
		case pattern:
			return bodyResult{why: "sed: the e command runs the text being edited as a command"}
		case len(cmds) > 0 && t.dyn:
			return bodyResult{why: fmt.Sprintf("sed: the script %q runs commands and is not static", t.s)}
		}
		for _, c := range cmds {
			r.scripts = append(r.scripts, script{src: c})
		}
	}
	return r
}

// sedExecs reads a sed script for its e commands: the command lines they
// run, and whether one runs the pattern space (e alone, or s///e).
func sedExecs(src string) (cmds []string, pattern bool) {
	i, n := 0, len(src)
	toEOL := func() string {
		start := i
		for i < n && src[i] != '\n' {
			i++
		}
		return src[start:i]
	}
	delimited := func(d byte) {
		for i < n && src[i] != d {
			if src[i] == '\\' {
				i++
			}
			i++
		}
		i++
	}
	// twoParts reads the two delimited parts of s and y (s/A/B/, y|A|B|),
	// whose delimiter comes first; false when the script ends before it.
	twoParts := func() bool {
		if i >= n {
			return false
		}
		d := src[i]
		i++
		delimited(d)
		delimited(d)
		return true
	}
	for i < n {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '{' || c == '}' || c == '!':
			i++
			continue
		case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '+':
			i++
			continue
		case c == '/':
			i++
			delimited('/')
			for i < n && (src[i] == 'I' || src[i] == 'M') {
				i++
			}
			continue
		case c == '\\' && i+1 < n:
			d := src[i+1]
			i += 2
			delimited(d)
			continue
		}
		i++
		switch c {
		case 's':
			if !twoParts() {
				return
			}
			for i < n && strings.IndexByte("gpiImMe0123456789w", src[i]) >= 0 {
				if src[i] == 'w' {
					toEOL()
					break
				}
				if src[i] == 'e' {
					pattern = true
				}
				i++
			}
		case 'y':
			if !twoParts() {
				return
			}
		case 'e':
			cmd := strings.TrimSpace(toEOL())
			if cmd == "" {
				pattern = true
			} else {
				cmds = append(cmds, cmd)
			}
		case 'a', 'i', 'c', 'r', 'R', 'w', 'W', '#':
			toEOL() // text or a file name: to the end of the line
		case ':', 'b', 't', 'T', 'v':
			for i < n && src[i] != '\n' && src[i] != ';' { // a label: GNU sed ends it at ;
				i++
			}
		case 'q', 'Q', 'l', 'L', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		default:
			return // not a sed command this reader knows: stop reading
		}
	}
	return
}

// lessBodies reads the commands less runs at start, +CMD (++CMD for every
// file): a shell command after ! or after | and a mark (less '+!rm -rf ~'
// x). Moving and searching (+G, +/x, +42) run nothing.
func lessBodies(l []word) bodyResult {
	var r bodyResult
	for _, x := range l[1:] {
		if x.s == "--" {
			break
		}
		cmd, ok := strings.CutPrefix(x.s, "+")
		if !ok {
			continue
		}
		cmd = strings.TrimPrefix(cmd, "+")
		if x.dyn {
			return bodyResult{why: fmt.Sprintf("less: start command %q is not static", x.s)}
		}
		if i := strings.IndexAny(cmd, "!|"); i >= 0 && !strings.HasPrefix(cmd, "/") && !strings.HasPrefix(cmd, "?") {
			sh := cmd[i+1:]
			if cmd[i] == '|' && sh != "" {
				sh = sh[1:] // the mark
			}
			r.scripts = append(r.scripts, script{src: sh})
		}
	}
	return r
}

// Tar is what a tar command line does with files.
type Tar struct {
	Extract bool   // -x, --extract, --get (and not -O, to standard output)
	Writes  bool   // -c, -r, -u, -A: the archive is written
	Archive string // -f's value, "" when it names none
	Dir     string // the last -C, --directory: where members land, "" for the current folder
	Members []string
	// Absolute (-P, --absolute-names): a member's leading / is kept, not
	// dropped.
	Absolute bool
}

// tarLongArgs are GNU tar's long options that take the next word as their
// value when not written --name=value.
var tarLongArgs = []string{"file", "directory", "files-from", "exclude-from", "exclude", "transform", "xform", "owner",
	"group", "mode", "mtime", "newer", "after-date", "newer-mtime", "label", "format", "blocking-factor", "record-size",
	"tape-length", "suffix", "strip-components", "starting-file", "index-file", "level", "listed-incremental",
	"use-compress-program", "to-command", "checkpoint-action", "rsh-command", "info-script", "new-volume-script"}

// TarRoles reads a tar command line's arguments (past the program).
func TarRoles(args []string) Tar {
	var t Tar
	l := lits(append([]string{"tar"}, args...))
	letter := func(c byte, val word) {
		switch c {
		case 'f':
			t.Archive = val.s
		case 'C':
			t.Dir = val.s
		}
	}
	mode := func(c byte) {
		switch c {
		case 'x':
			t.Extract = true
		case 'c', 'r', 'u', 'A':
			t.Writes = true
		}
	}
	toStdout := false
	for i := 1; i < len(l); i++ {
		s := l[i].s
		switch {
		case s == "--":
			for _, m := range l[i+1:] {
				t.Members = append(t.Members, m.s)
			}
			i = len(l)
		case strings.HasPrefix(s, "--"):
			name, v, eq := strings.Cut(s[2:], "=")
			if !eq && slices.Contains(tarLongArgs, name) && i+1 < len(l) {
				i++
				v = l[i].s
			}
			switch name {
			case "extract", "get":
				t.Extract = true
			case "create", "append", "update", "catenate", "concatenate":
				t.Writes = true
			case "to-stdout", "to-command": // members go to standard output, or a command's input
				toStdout = true
			case "absolute-names":
				t.Absolute = true
			case "file":
				t.Archive = v
			case "directory":
				t.Dir = v
			}
		case strings.HasPrefix(s, "-") && len(s) > 1 || i == 1:
			// Its letters up to a value's (in a dash cluster the rest is
			// the value), all of them in the old-style first word.
			dash := strings.HasPrefix(s, "-")
			for _, c := range []byte(strings.TrimPrefix(s, "-")) {
				if dash && strings.IndexByte(tarArgs, c) >= 0 {
					break
				}
				mode(c)
				toStdout = toStdout || c == 'O'
				t.Absolute = t.Absolute || c == 'P'
			}
			i = tarCluster(l, i, letter) - 1
		default:
			t.Members = append(t.Members, s)
		}
	}
	t.Extract = t.Extract && !toStdout
	return t
}
