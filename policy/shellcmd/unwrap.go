package shellcmd

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// optHit is one option found by scan: a letter, a long name, or "NUM".
type optHit struct {
	name string
	val  word
}

// scan reads the options of l (l[0] is the wrapper) and returns them with
// the index of the first operand. It fails, with a reason, on a word it
// cannot classify statically or an option it does not know: guessing could
// take an option's argument for the wrapped program or the reverse.
func (d *Options) scan(l []word) (hits []optHit, op int, why string) {
	name := progName(l[0])
	i := 1
	for i < len(l) {
		x := l[i]
		if x.dyn {
			if !x.multi && isAssign(x.s) { // NAME="$X": a static name, not an option
				return hits, i, ""
			}
			return nil, 0, fmt.Sprintf("%s: option or program %q is not static", name, x.s)
		}
		s := x.s
		switch {
		case s == "--":
			return hits, i + 1, ""
		case strings.HasPrefix(s, "--"):
			n, v, eq := strings.Cut(s[2:], "=")
			full, kind, _ := d.longOpt(n)
			switch {
			case kind == 0 && d.openLong && eq:
				full, kind = n, '='
			case kind == 0:
				return nil, 0, fmt.Sprintf("%s: unknown option --%s", name, n)
			case kind == '=' && !eq:
				if i+1 >= len(l) {
					return nil, 0, fmt.Sprintf("%s: option --%s needs an argument", name, n)
				}
				if l[i+1].multi {
					return nil, 0, fmt.Sprintf("%s: argument of --%s is an unquoted expansion", name, n)
				}
				hits = append(hits, optHit{full, l[i+1]})
				i += 2
				continue
			}
			hits = append(hits, optHit{full, word{s: v}})
			i++
		case len(s) > 1 && s[0] == '-':
			if d.num && allDigits(s[1:]) {
				hits = append(hits, optHit{"NUM", word{s: s[1:]}})
				i++
				continue
			}
			next := i + 1
			for j := 1; j < len(s); j++ {
				c := s[j]
				switch {
				case strings.IndexByte(d.flags, c) >= 0:
					hits = append(hits, optHit{name: s[j : j+1]})
					continue
				case strings.IndexByte(d.opt, c) >= 0:
					hits = append(hits, optHit{s[j : j+1], word{s: s[j+1:]}})
				case strings.IndexByte(d.args, c) >= 0:
					if j+1 < len(s) {
						hits = append(hits, optHit{s[j : j+1], word{s: s[j+1:]}})
						break
					}
					if next >= len(l) {
						return nil, 0, fmt.Sprintf("%s: option -%c needs an argument", name, c)
					}
					if l[next].multi {
						return nil, 0, fmt.Sprintf("%s: argument of -%c is an unquoted expansion", name, c)
					}
					hits = append(hits, optHit{s[j : j+1], l[next]})
					next++
				default:
					return nil, 0, fmt.Sprintf("%s: unknown option -%c", name, c)
				}
				break
			}
			i = next
		default:
			return hits, i, ""
		}
	}
	return hits, len(l), ""
}

func has(hits []optHit, names ...string) bool {
	for _, h := range hits {
		for _, n := range names {
			if h.name == n {
				return true
			}
		}
	}
	return false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// leadingAssigns reads the NAME=value words of l from i, as env and
// cross-env take them before the program; next is the index after them.
func leadingAssigns(l []word, i int) (assigns []string, next int) {
	for ; i < len(l) && !l[i].multi && isAssign(l[i].s); i++ {
		assigns = append(assigns, l[i].s)
	}
	return assigns, i
}

// isAssign reports a NAME=value word, as env and sudo take them.
func isAssign(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(j > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// stepKind says what one wrapper layer does.
type stepKind int

const (
	stepNone    stepKind = iota // not a wrapper here: the layer is the command that runs
	stepWrap                    // layer[:n] is the wrapper, layer[n:] the command it runs
	stepImplied                 // the wrapper runs a command that is not written (xargs alone runs echo)
	stepUnknown                 // what the wrapper runs cannot be told statically
)

type step struct {
	kind    stepKind
	n       int
	layer   []word // the layer rewritten (env -S), or nil
	implied string // the implied program, for stepImplied
	bin     string // the name the wrapped program runs by, when its word is a package spec (rimraf of rimraf@5), or ""
	why     string // the reason, for stepUnknown and stepImplied
	assigns []string
	runtime bool // the wrapped command gets arguments at run time (xargs)
	// appends: the wrapper appends run-time arguments to the command it
	// runs (xargs without -I), so a program missing there comes from input.
	appends bool
	// missing: the wrapper would run a program that is not written (sudo
	// --, timeout 5, env FOO=1, xargs alone): harmless on its own, but the
	// program comes from input when an enclosing xargs or parallel
	// appends arguments.
	missing bool
	// chdir: the wrapper runs the command in another directory (env -C,
	// sudo -D or -i, chroot, pkexec).
	chdir bool
}

func unknownStep(why string) step { return step{kind: stepUnknown, why: why} }

// wrapperStep says what the layer l (l[0] is the program, named name)
// wraps. Each case follows the wrapper's own option parsing.
func wrapperStep(name string, l []word) step {
	switch name {
	case "env":
		return envStep(l)
	case "command":
		hits, op, why := commandOpts.scan(l)
		if why != "" {
			return unknownStep(why)
		}
		if has(hits, "v", "V") { // command -v only looks the program up
			return step{}
		}
		return wrapAt(op, l)
	case "builtin", "busybox", "toybox":
		if len(l) < 2 {
			return step{missing: true}
		}
		if l[1].dyn {
			return unknownStep(fmt.Sprintf("%s: program %q is not static", name, l[1].s))
		}
		if strings.HasPrefix(l[1].s, "-") { // busybox --list, --install, --help
			return step{}
		}
		return wrapAt(1, l)
	case "exec":
		return scanWrap(&execOpts, l)
	case "nohup":
		return scanWrap(&nohupOpts, l)
	case "caffeinate":
		return scanWrap(&caffeinateOpts, l)
	case "time":
		return scanWrap(&timeOpts, l)
	case "stdbuf":
		return scanWrap(&stdbufOpts, l)
	case "setsid":
		return scanWrap(&setsidOpts, l)
	case "pkexec":
		hits, _, _ := pkexecOpts.scan(l)
		st := scanWrap(&pkexecOpts, l)
		st.chdir = !has(hits, "keep-cwd") // pkexec runs in the target user's home
		return st
	case "nice":
		return scanWrap(&niceOpts, l)
	case "timeout":
		return operandWrap(&timeoutOpts, l, nil)
	case "chrt":
		return operandWrap(&chrtOpts, l, []string{"m", "p", "max", "pid"})
	case "taskset":
		return operandWrap(&tasksetOpts, l, []string{"p", "pid"})
	case "ionice":
		hits, op, why := ioniceOpts.scan(l)
		if why != "" {
			return unknownStep(why)
		}
		if has(hits, "p", "P", "u", "pid", "pgid", "uid") { // acts on running processes
			return step{}
		}
		return wrapAt(op, l)
	case "chroot":
		_, op, why := chrootOpts.scan(l)
		switch {
		case why != "":
			return unknownStep(why)
		case op >= len(l):
			return step{missing: true}
		case op+1 == len(l):
			return step{kind: stepImplied, implied: "sh", why: "chroot without a command runs a shell", missing: true, chdir: true}
		}
		st := wrapAt(op+1, l)
		st.chdir = true
		return st
	case "flock":
		_, op, why := flockOpts.scan(l)
		switch {
		case why != "":
			return unknownStep(why)
		case op+1 >= len(l):
			return step{missing: true} // flock FD, or flock FILE with its program to come
		case l[op+1].s == "-c", l[op+1].s == "--command":
			return step{} // flock FILE -c SCRIPT: a shell body
		}
		return wrapAt(op+1, l)
	case "screen":
		return screenStep(l)
	case "watch":
		hits, op, why := watchOpts.scan(l)
		if why != "" {
			return unknownStep(why)
		}
		if !has(hits, "x", "exec") {
			return step{} // watch runs its joined arguments with sh -c: a shell body
		}
		return wrapAt(op, l)
	case "sudo":
		return sudoStep(l)
	case "doas":
		hits, op, why := doasOpts.scan(l)
		switch {
		case why != "":
			return unknownStep(why)
		case has(hits, "C", "L"): // check a config, clear credentials
			return step{}
		case op >= len(l) && has(hits, "s"):
			return step{kind: stepImplied, implied: "sh", why: "doas -s runs a shell", missing: true}
		}
		return wrapAt(op, l)
	case "xargs":
		return xargsStep(l)
	case "unbuffer":
		return scanWrap(&unbufferOpts, l)
	case "strace":
		return scanWrap(&straceOpts, l)
	case "ltrace":
		return scanWrap(&ltraceOpts, l)
	case "catchsegv":
		return wrapAt(1, l)
	case "valgrind":
		return valgrindStep(l)
	case "fakeroot":
		hits, op, why := fakerootOpts.scan(l)
		switch {
		case why != "":
			return unknownStep(why)
		case has(hits, "h", "help", "v", "version"):
			return step{}
		case op >= len(l):
			return step{kind: stepImplied, implied: "sh", why: "fakeroot without a command runs a shell", missing: true}
		}
		return wrapAt(op, l)
	case "runuser":
		hits, op, why := runuserOpts.scan(l)
		switch {
		case why != "":
			return unknownStep(why)
		case has(hits, "h", "help", "V", "version"):
			return step{}
		case has(hits, "u", "user") && !has(hits, "c", "command", "session-command"):
			return wrapAt(op, l) // runuser -u USER [--] COMMAND
		}
		return unknownStep("runs another program: runuser")
	case "script":
		return scriptStep(l)
	case "shx":
		return scanWrap(&shxOpts, l)
	case "cross-env":
		return crossEnvStep(l)
	case "deno":
		return denoNpmStep(l)
	case "podman", "buildah":
		return unshareStep(name, l)
	case "agent-shell":
		return agentShellStep(l)
	case "hub", "yadm", "vcsh":
		return gitFrontStep(name, l)
	case "unshare", "nsenter", "prlimit", "numactl", "firejail", "systemd-run", "setpriv", "bwrap", "gdb":
		if len(l) == 2 && !l[1].dyn {
			switch l[1].s {
			case "--help", "--version", "-h", "-V":
				return step{}
			}
		}
		return unknownStep("runs another program: " + name)
	}
	if r, ok := runnerOf(name, l); ok {
		return runnerStep(r, l)
	}
	return step{}
}

// gitFrontStep: hub and yadm are git under another name (yadm's work tree
// is HOME: yadm clean -fdx deletes every untracked file there), and vcsh
// REPO ARG... runs git ARG... in one of its repositories, as vcsh foreach
// does in each; vcsh run REPO COMMAND runs COMMAND. Each is a wrapper
// around the git (or command) it runs. Their own commands are not.
func gitFrontStep(name string, l []word) step {
	rest := 1
	if name == "vcsh" {
		if len(l) < 2 || l[1].dyn {
			return step{}
		}
		switch l[1].s {
		case "run":
			return wrapAt(3, l)
		case "foreach":
			rest = 2
		case "clone", "delete", "enter", "help", "init", "list", "list-tracked", "list-untracked", "pull", "push",
			"rename", "status", "upgrade", "version", "which", "write-gitignore", "commit":
			return step{}
		default:
			rest = 2 // vcsh REPO ARG...
		}
	}
	if len(l) > 1 && !l[1].dyn {
		switch name + " " + l[1].s {
		case "hub delete", "hub create", "hub browse", "hub compare", "hub pull-request", "hub issue", "hub release",
			"hub ci-status", "hub sync", "hub api", "hub gist", "hub pr", "hub fork",
			"yadm bootstrap", "yadm encrypt", "yadm decrypt", "yadm alt", "yadm perms", "yadm enter", "yadm git-crypt",
			"yadm transcrypt", "yadm introspect", "yadm upgrade", "yadm version":
			return step{} // their own commands
		}
	}
	if rest < len(l) && !l[rest].dyn && l[rest].s == "git" {
		return wrapAt(rest, l) // already written out (the layer this step makes, read again)
	}
	layer := append(append(append(make([]word, 0, len(l)+1), l[:rest]...), word{s: "git"}), l[rest:]...)
	st := wrapAt(rest, layer)
	st.layer = layer
	return st
}

// unshareStep: podman unshare and buildah unshare run a command on this
// machine, in the user namespace of rootless containers, where the user's
// files are as writable as outside (a shell when none is given). Their
// other subcommands run things in containers.
func unshareStep(name string, l []word) step {
	if len(l) < 2 || l[1].dyn || l[1].s != "unshare" {
		return step{}
	}
	i := 2
	for ; i < len(l) && strings.HasPrefix(l[i].s, "-"); i++ {
		switch {
		case l[i].dyn:
			return unknownStep(fmt.Sprintf("%s unshare: option %q is not static", name, l[i].s))
		case l[i].s == "--help" || l[i].s == "-h":
			return step{}
		case l[i].s == "--":
			return wrapAt(i+1, l)
		}
	}
	if i >= len(l) {
		return step{kind: stepImplied, implied: "sh", why: name + " unshare without a command runs a shell", missing: true}
	}
	return wrapAt(i, l)
}

// valgrindStep unwraps valgrind, whose options are all one word
// (--tool=memcheck, -q, -v).
func valgrindStep(l []word) step {
	for i := 1; i < len(l); i++ {
		x := l[i]
		if x.dyn {
			return unknownStep(fmt.Sprintf("valgrind: option or program %q is not static", x.s))
		}
		switch {
		case x.s == "--help" || x.s == "--version" || x.s == "-h":
			return step{}
		case x.s == "--":
			return wrapAt(i+1, l)
		case strings.HasPrefix(x.s, "-"):
			continue
		}
		return wrapAt(i, l)
	}
	return step{missing: true}
}

// scriptArgs reads the options of script (util-linux), which may follow
// its file operand, and returns them with the operands.
func scriptArgs(l []word) (hits []optHit, operands []word, why string) {
	rest := l
	for {
		h, op, why := scriptOpts.scan(rest)
		if why != "" {
			return nil, nil, why
		}
		hits = append(hits, h...)
		if op >= len(rest) {
			return hits, operands, ""
		}
		if op > 0 && rest[op-1].s == "--" {
			return hits, append(operands, rest[op:]...), ""
		}
		operands = append(operands, rest[op])
		rest = append([]word{l[0]}, rest[op+1:]...)
	}
}

// scriptStep: util-linux script -c CMD runs CMD with a shell (a body, see
// bodies); BSD script [-aq] FILE COMMAND... runs COMMAND.
func scriptStep(l []word) step {
	hits, _, why := scriptArgs(l)
	if why == "" && has(hits, "c", "command", "h", "help", "V", "version") {
		return step{}
	}
	if _, op, bsdWhy := scriptOpts.scan(l); bsdWhy == "" && op+1 < len(l) {
		return wrapAt(op+1, l)
	}
	if why != "" {
		return unknownStep(why)
	}
	return step{}
}

// wrapAt wraps l[n:], or is no wrapper when nothing follows the options
// (env alone prints the environment, nice alone its niceness).
func wrapAt(n int, l []word) step {
	if n >= len(l) {
		return step{missing: true}
	}
	return step{kind: stepWrap, n: n}
}

func scanWrap(d *Options, l []word) step {
	hits, op, why := d.scan(l)
	if why != "" {
		return unknownStep(why)
	}
	if has(hits, "help", "version") {
		return step{}
	}
	return wrapAt(op, l)
}

// operandWrap handles wrappers that take one operand before the program
// (timeout DURATION, chrt PRIORITY, taskset MASK). Options in notWrapper
// make the command act on a running process instead.
func operandWrap(d *Options, l []word, notWrapper []string) step {
	hits, op, why := d.scan(l)
	if why != "" {
		return unknownStep(why)
	}
	if has(hits, notWrapper...) || has(hits, "help", "version") {
		return step{}
	}
	if op < len(l) && l[op].multi {
		return unknownStep(fmt.Sprintf("%s: operand %q is an unquoted expansion", progName(l[0]), l[op].s))
	}
	return wrapAt(op+1, l)
}

// envStep unwraps env: options (-S splits its argument into more
// arguments), then NAME=value assignments, then the program.
func envStep(l []word) step {
	layer := l
	rewritten := false
	chdir := false
	i := 1
options:
	for i < len(layer) {
		x := layer[i]
		if x.dyn {
			if !x.multi && isAssign(x.s) {
				break options
			}
			return unknownStep(fmt.Sprintf("env: option or program %q is not static", x.s))
		}
		s := x.s
		switch {
		case s == "-": // an obsolete -i
			i++
			break options
		case s == "--":
			i++
			break options
		case len(s) > 1 && s[0] == '-' && strings.Trim(s[1:], "i0v") == "" || s == "--ignore-environment" || s == "--null" || s == "--debug" ||
			s == "--list-signal-handling" || strings.HasPrefix(s, "--block-signal") ||
			strings.HasPrefix(s, "--default-signal") || strings.HasPrefix(s, "--ignore-signal") ||
			strings.HasPrefix(s, "--unset=") || strings.HasPrefix(s, "--chdir=") ||
			len(s) > 2 && (s[:2] == "-u" || s[:2] == "-C" || s[:2] == "-P") && !strings.HasPrefix(s, "--"):
			chdir = chdir || strings.HasPrefix(s, "--chdir=") || strings.HasPrefix(s, "-C")
			i++
		case s == "-u" || s == "-C" || s == "-P" || s == "--unset" || s == "--chdir":
			chdir = chdir || s == "-C" || s == "--chdir"
			// -P PATH (BSD) searches PATH for the program.
			if i+1 >= len(layer) {
				return step{missing: true}
			}
			if layer[i+1].multi {
				return unknownStep(fmt.Sprintf("env: argument of %s is an unquoted expansion", s))
			}
			i += 2
		case s == "-S" || strings.HasPrefix(s, "-S") || s == "--split-string" || strings.HasPrefix(s, "--split-string="):
			// -S STRING splits STRING into arguments and goes on parsing
			// them; env -S 'rm -rf /' is env rm -rf /.
			var arg word
			next := i + 1
			switch {
			case strings.HasPrefix(s, "--split-string="):
				arg = word{s: s[len("--split-string="):]}
			case len(s) > 2 && s[1] == 'S':
				arg = word{s: s[2:]}
			default:
				if next >= len(layer) {
					return step{missing: true}
				}
				arg = layer[next]
				next++
			}
			if arg.dyn {
				return unknownStep(fmt.Sprintf("env -S: string %q is not static", arg.s))
			}
			split, ok := splitString(arg.s)
			if !ok {
				return unknownStep(fmt.Sprintf("env -S: string %q expands variables", arg.s))
			}
			nl := make([]word, 0, len(layer)+len(split))
			nl = append(nl, layer[:i]...)
			nl = append(nl, lits(split)...)
			nl = append(nl, layer[next:]...)
			layer, rewritten = nl, true
		case strings.HasPrefix(s, "-") && len(s) > 1:
			return unknownStep(fmt.Sprintf("env: unknown option %s", s))
		default:
			break options
		}
	}
	// env takes any NAME=VALUE, whatever NAME holds: bash reads
	// BASH_FUNC_ls%%=() {...} as the function ls.
	var assigns []string
	for ; i < len(layer) && !layer[i].multi && (isAssign(layer[i].s) || !layer[i].dyn && strings.IndexByte(layer[i].s, '=') > 0); i++ {
		assigns = append(assigns, layer[i].s)
	}
	if i < len(layer) && layer[i].dyn {
		return unknownStep(fmt.Sprintf("env: assignment or program %q is not static", layer[i].s))
	}
	if i >= len(layer) {
		return step{missing: true}
	}
	st := step{kind: stepWrap, n: i, assigns: assigns, chdir: chdir}
	if rewritten {
		st.layer = layer
	}
	return st
}

// splitString splits an env -S string into arguments: whitespace
// separates, quotes group, a backslash escapes. It fails on a $ (env
// expands ${VAR} there).
func splitString(s string) ([]string, bool) {
	var out []string
	var b strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '$' && quote != '\'':
			return nil, false
		case quote != 0:
			if c == quote {
				quote = 0
				continue
			}
			if c == '\\' && quote == '"' && i+1 < len(s) {
				i++
				c = s[i]
			}
			b.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case '_':
				b.WriteByte(' ')
			case 'c':
				i = len(s)
				continue
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(s[i])
			}
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, b.String())
				b.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			i = len(s)
		default:
			b.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, b.String())
	}
	return out, true
}

// sudoStep unwraps sudo: options, NAME=value assignments, the program.
func sudoStep(l []word) step {
	hits, op, why := sudoOpts.scan(l)
	if why != "" {
		return unknownStep(why)
	}
	// -e edits files (sudoedit), -l/-v/-V/-K/-h list, validate or print and
	// never run the program.
	if has(hits, "e", "edit", "l", "list", "v", "validate", "V", "version", "K", "remove-timestamp", "help") {
		return step{}
	}
	var assigns []string
	i := op
	for ; i < len(l) && !l[i].multi && isAssign(l[i].s); i++ {
		assigns = append(assigns, l[i].s)
	}
	if i < len(l) && l[i].dyn && l[i].multi {
		return unknownStep(fmt.Sprintf("sudo: program %q is an unquoted expansion", l[i].s))
	}
	// -D and -R choose the directory and the root, -i runs in the target
	// user's home.
	chdir := has(hits, "D", "chdir", "i", "login", "R", "chroot")
	if i >= len(l) {
		if has(hits, "s", "shell", "i", "login") {
			return step{kind: stepImplied, implied: "sh", why: "sudo -s/-i runs a shell", assigns: assigns, missing: true, chdir: chdir}
		}
		return step{missing: true}
	}
	return step{kind: stepWrap, n: i, assigns: assigns, chdir: chdir}
}

// xargsStep unwraps xargs: the command it runs gets arguments from input,
// in place of the replace string (-I R) or appended.
// xargsReplace is the replace string of xargs's options (-I R, BSD -J R,
// -i or --replace with {} by default), or ""; bsd reports -J.
func xargsReplace(hits []optHit) (hole string, bsd bool) {
	for _, h := range hits {
		switch h.name {
		case "I", "J":
			hole, bsd = h.val.s, h.name == "J"
		case "i", "replace":
			hole, bsd = cmp.Or(h.val.s, "{}"), false
		}
	}
	return hole, bsd
}

func xargsStep(l []word) step {
	hits, op, why := xargsOpts.scan(l)
	if why != "" {
		return unknownStep(why)
	}
	if op >= len(l) {
		return step{kind: stepImplied, implied: "echo", why: "xargs without a command runs echo", runtime: true, missing: true}
	}
	st := step{kind: stepWrap, n: op, runtime: true, appends: true}
	hole, bsd := xargsReplace(hits)
	if hole != "" {
		// -I puts the input in place of the replace string and appends
		// nothing; BSD -J only when a word is the replace string.
		st.appends = false
		if bsd && !slices.ContainsFunc(l[op:], func(x word) bool { return x.s == hole }) {
			st.appends = true
		}
		// Words holding the replace string get input at run time.
		layer := append([]word(nil), l...)
		for k := op; k < len(layer); k++ {
			layer[k] = withHole(layer[k], hole)
		}
		st.layer = layer
	}
	return st
}

// unwrapped is a command with its wrappers peeled off. Layer k is
// flat[starts[k]:]; the last layer is the command that runs.
type unwrapped struct {
	flat    []word
	starts  []int
	assigns []string
	unknown string
	implied string
	chdir   bool // a wrapper runs the innermost command in another directory
	runtime bool // the innermost command gets arguments at run time
	// bins holds, by index into starts, the name a layer's program runs
	// by when its word is a package spec: the layer has that name, the
	// layers around it keep the spec as written. Nil when there is none.
	bins []string
	// appendBy names what appends run-time arguments to the innermost
	// command (xargs, parallel), or is "".
	appendBy string
	// appendFrom is the first layer (an index into starts) whose command
	// line those arguments extend: the appending wrapper's own.
	appendFrom int
}

// unwrap peels wrappers off a command, outermost first. appendBy names
// what appends run-time arguments to the command ("parallel"), or is "".
// A wrapper whose program is missing gets it from those arguments: the
// command is unknown then.
func unwrap(words []word, appendBy string) unwrapped {
	u := unwrapped{flat: words, starts: []int{0}, appendBy: appendBy}
	for {
		s := u.starts[len(u.starts)-1]
		prog := u.flat[s]
		switch {
		case prog.dyn:
			u.unknown = fmt.Sprintf("program is not static: %s", prog.s)
			return u
		case prog.glob:
			u.unknown = fmt.Sprintf("program is a pattern: %s", prog.s)
			return u
		case prog.s == "":
			u.unknown = "program name is empty"
			return u
		}
		if len(u.starts) > maxLayers {
			u.unknown = fmt.Sprintf("more than %d wrappers", maxLayers)
			return u
		}
		name := progName(prog)
		if layer := len(u.starts) - 1; layer < len(u.bins) && u.bins[layer] != "" {
			name = u.bins[layer] // npx shx@0.3 rm -rf ~ runs shx, itself a wrapper
		}
		st := wrapperStep(name, u.flat[s:])
		if st.missing && u.appendBy != "" {
			u.unknown = fmt.Sprintf("%s program supplied at run time by %s", progName(prog), u.appendBy)
			return u
		}
		if st.appends { // appended arguments go to the end, past every inner wrapper
			u.appendBy, u.appendFrom = progName(prog), len(u.starts)-1
		}
		if st.layer != nil {
			u.flat = append(u.flat[:s:s], st.layer...)
		}
		u.assigns = append(u.assigns, st.assigns...)
		u.chdir = u.chdir || st.chdir && st.kind != stepNone && st.kind != stepUnknown
		switch st.kind {
		case stepNone:
			return u
		case stepUnknown:
			u.unknown = st.why
			return u
		case stepImplied:
			u.flat = append(u.flat[:len(u.flat):len(u.flat)], word{s: st.implied})
			u.starts = append(u.starts, len(u.flat)-1)
			u.implied = st.why
			u.runtime = u.runtime || st.runtime
			return u
		}
		u.runtime = u.runtime || st.runtime
		u.starts = append(u.starts, s+st.n)
		if st.bin != "" {
			u.bins = append(u.bins, make([]string, len(u.starts)-len(u.bins))...)
			u.bins[len(u.starts)-1] = st.bin
		}
	}
}
