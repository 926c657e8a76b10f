package shellcmd

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// script is shell source that a command runs and that is written in the
// line itself: the body of bash -c, eval, trap, su -c, flock -c, watch,
// parallel.
type script struct {
	src     string
	holes   []string // placeholders in src filled in at run time ({} of parallel)
	runtime bool     // the script's commands get arguments at run time
	// appendBy names what appends run-time arguments to the script
	// (parallel with no replacement string in it), or is "".
	appendBy string
	params   []word // its positional parameters from $0 (sh -c SCRIPT NAME ARG...)
	alias    string // the aliases it is the text of, used with their arguments (names, spaced)
	dir      string // the folder it starts in, absolute; "" for its command's
}

// bodyResult is what bodies finds for one command.
type bodyResult struct {
	scripts []script
	stdin   bool   // the command reads its script from standard input
	why     string // non-empty: the script is there but cannot be known
	// missing names the script operand when it is not written ("bash -c
	// script"): the command fails or reads standard input, unless an
	// enclosing xargs or parallel appends it at run time.
	missing string
	// input is non-empty when the command runs what it reads at run time
	// as commands (parallel with no command): the command is unknown,
	// though a static script fed to it is still walked, for deny rules.
	input string
	// elsewhere: the scripts run in a directory not known here (trap runs
	// its action later, su -l in the user's home, parallel --wd in its).
	elsewhere bool
	// stdinLang names the language of a script the command reads from
	// standard input, other than a shell's: "make" (make -f -) or "ex"
	// (vim -e); see foreignScript.
	stdinLang string
	// file is the script file a shell runs or source reads (bash x.sh),
	// when it is static; see runsWritten.
	file string
}

func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "lksh", "csh", "tcsh",
		"fish": // not POSIX, but its simple commands read the same; what does not parse is unknown
		return true
	}
	return false
}

// bodies finds the scripts the command l (l[0] named name, unwrapped) runs.
func bodies(name string, l []word) bodyResult {
	switch {
	case isShell(name):
		return shellBody(name, l)
	case name == "eval":
		if len(l) < 2 {
			return bodyResult{missing: "eval script"}
		}
		if r := allStatic("eval", l[1:]); r != "" {
			return bodyResult{why: r}
		}
		return bodyResult{scripts: []script{{src: join(l[1:])}}}
	case name == "trap":
		r := trapBody(l)
		r.elsewhere = true
		return r
	case name == "su":
		r := suBody(l)
		r.elsewhere = suLogin(l)
		return r
	case name == "flock":
		// Only reached when flock is no wrapper: flock [opts] FILE -c SCRIPT.
		_, op, why := flockOpts.scan(l)
		if why != "" || op+2 >= len(l) {
			return bodyResult{why: why, missing: "flock -c script"}
		}
		return oneBody("flock -c", l[op+2])
	case name == "at" || name == "batch":
		return atBody(l)
	case name == "crontab":
		return crontabBody(l)
	case name == "tmux":
		return tmuxBodies(l)
	case name == "watch":
		_, op, why := watchOpts.scan(l)
		if why != "" {
			return bodyResult{why: why, missing: "watch command"}
		}
		return joinedBody("watch", l[op:])
	case name == "parallel":
		r := parallelBody(l)
		hits, _, _ := parallelOpts.scan(l)
		r.elsewhere = has(hits, "wd", "workdir")
		return r
	case name == "script":
		hits, _, why := scriptArgs(l)
		if why != "" {
			return bodyResult{why: why}
		}
		for _, h := range hits {
			if h.name == "c" || h.name == "command" {
				return oneBody("script -c", h.val)
			}
		}
	case name == "source" || name == ".":
		return sourceBody(name, l)
	case name == "alias":
		return aliasBodies(l)
	case name == "tar" || name == "gtar":
		return tarBodies(l)
	case isVim(name):
		return vimBodies(name, l)
	case name == "make" || name == "gmake":
		return makeBodies(l)
	case name == "ssh" || name == "scp" || name == "sftp":
		return sshBodies(name, l)
	case name == "rsync":
		return rsyncBodies(l)
	case name == "man":
		return manBodies(l)
	case name == "less":
		return lessBodies(l)
	case name == "zip":
		return zipBodies(l)
	case name == "agent-shell":
		return agentShellBody(l)
	case name == "sed" || name == "gsed":
		return sedBodies(l)
	}
	if r, ok := runnerBody(name, l); ok {
		return r
	}
	if name == "pwsh" || name == "powershell" || name == "powershell.exe" {
		return powershellBody(name, l)
	}
	return bodyResult{}
}

// foreignScript walks the shell commands of a script in another language
// that a command reads (a makefile, Ex commands), one level deeper.
func (w *walker) foreignScript(idx int, lang, src string) {
	var r bodyResult
	switch lang {
	case "make":
		r = makefileBodies(src)
	case "crontab":
		r = crontabBodies(src)
	case "ex":
		for _, line := range strings.Split(src, "\n") {
			sub := exBodies(line)
			r.scripts, r.why = append(r.scripts, sub.scripts...), sub.why
			if r.why != "" {
				break
			}
		}
	}
	if r.why != "" {
		w.st.line.Commands[idx].Unknown = r.why
		return
	}
	for _, s := range r.scripts {
		w.body(idx, s)
	}
}

// aliasBodies walks what each alias defined runs: a shell that expands
// aliases (shopt -s expand_aliases, an interactive one) runs it when the
// name comes later in the line, where only the name shows, with the words
// that follow the name appended: they are run-time arguments here.
func aliasBodies(l []word) bodyResult {
	var r bodyResult
	for _, w := range l[1:] {
		name, value, ok := strings.Cut(w.s, "=")
		if !ok || strings.HasPrefix(name, "-") {
			continue
		}
		if w.dyn {
			return bodyResult{why: fmt.Sprintf("alias %s is not static: %s", name, w.s)}
		}
		r.scripts = append(r.scripts, script{src: value, runtime: true, appendBy: "alias"})
	}
	return r
}

func allStatic(what string, ws []word) string {
	for _, w := range ws {
		if w.dyn {
			return fmt.Sprintf("%s of a non-static argument %q", what, w.s)
		}
	}
	return ""
}

// stdinFile reports a path that names standard input.
func stdinFile(p string) bool {
	return p == "/dev/stdin" || p == "/dev/fd/0" || p == "/proc/self/fd/0"
}

func oneBody(what string, w word) bodyResult {
	if w.dyn {
		return bodyResult{why: fmt.Sprintf("%s script is not static: %s", what, w.s)}
	}
	return bodyResult{scripts: []script{{src: w.s}}}
}

// shellBody reads a shell's options: a cluster holding c (-c, -lc, -ec)
// makes the first operand the script; without it, the first operand is a
// script file, and with no operand (or -s) the shell reads standard input.
func shellBody(name string, l []word) bodyResult {
	hasC, stdin := false, false
	i := 1
options:
	for i < len(l) {
		x := l[i]
		if x.dyn {
			return bodyResult{why: fmt.Sprintf("%s: option or script %q is not static", name, x.s)}
		}
		s := x.s
		switch {
		case s == "--" || s == "-":
			i++
			break options
		case s == "--rcfile" || s == "--init-file":
			if i+1 < len(l) && l[i+1].dyn {
				return bodyResult{why: fmt.Sprintf("%s: its startup file %q is not static", name, l[i+1].s)}
			}
			i += 2
		case strings.HasPrefix(s, "--"):
			i++
		case len(s) > 1 && (s[0] == '-' || s[0] == '+'):
			args := 0
			for j := 1; j < len(s); j++ {
				switch s[j] {
				case 'c':
					hasC = hasC || s[0] == '-'
				case 's':
					stdin = stdin || s[0] == '-'
				case 'o', 'O': // -o OPTION, -O SHOPT
					args++
				}
			}
			i += 1 + args
		default:
			break options
		}
	}
	switch {
	case hasC && i < len(l):
		r := oneBody(name+" -c", l[i])
		if len(r.scripts) == 1 {
			r.scripts[0].params = l[i+1:]
		}
		return r
	case hasC:
		return bodyResult{missing: name + " -c script"} // -c without a script: the shell fails
	case stdin || i >= len(l):
		return bodyResult{stdin: true}
	}
	if l[i].dyn {
		return bodyResult{}
	}
	return bodyResult{file: l[i].s} // bash script.sh runs a file: the effects table's business, unless the line wrote it
}

// sourceBody: source FILE reads a file, the effects table's business,
// unless FILE is standard input (a script fed like a shell's) or a pipe
// or process substitution, whose content is not static.
func sourceBody(name string, l []word) bodyResult {
	i := 1
	if i < len(l) && l[i].s == "--" && !l[i].dyn {
		i++
	}
	if i >= len(l) {
		return bodyResult{}
	}
	f := l[i]
	switch {
	case f.dyn && (strings.Contains(f.s, "<(") || strings.Contains(f.s, ">(")):
		return bodyResult{why: fmt.Sprintf("%s reads a process substitution, which is not static", name)}
	case f.dyn:
		return bodyResult{}
	case stdinFile(f.s):
		return bodyResult{stdin: true}
	case strings.HasPrefix(f.s, "/dev/fd/") || strings.HasPrefix(f.s, "/proc/self/fd/") ||
		strings.HasPrefix(f.s, "/proc/") && strings.Contains(f.s, "/fd/"):
		return bodyResult{why: fmt.Sprintf("%s reads file descriptor %s, which is not static", name, f.s)}
	}
	return bodyResult{file: f.s}
}

// trapBody: trap ACTION SIGNAL... runs ACTION later, in this shell.
func trapBody(l []word) bodyResult {
	i := 1
	if i < len(l) && l[i].s == "--" {
		i++
	}
	if len(l)-i < 2 || strings.HasPrefix(l[i].s, "-") && !l[i].dyn {
		return bodyResult{} // trap -p, trap -l, trap - SIG (reset)
	}
	return oneBody("trap", l[i])
}

// suLogin reports su -, -l or --login, which starts in the user's home.
func suLogin(l []word) bool {
	for _, x := range l[1:] {
		if !x.dyn && (x.s == "-" || x.s == "--login" || len(x.s) > 1 && x.s[0] == '-' && x.s[1] != '-' && strings.IndexByte(x.s, 'l') > 0) {
			return true
		}
	}
	return false
}

// suBody: su [options] [user] -c SCRIPT runs SCRIPT with the user's shell.
func suBody(l []word) bodyResult {
	for i := 1; i < len(l); i++ {
		s := l[i].s
		switch {
		case l[i].dyn:
			continue
		case s == "-c" || s == "--command" || s == "--session-command":
			if i+1 < len(l) {
				return oneBody("su -c", l[i+1])
			}
			return bodyResult{missing: "su -c script"}
		case strings.HasPrefix(s, "--command=") || strings.HasPrefix(s, "--session-command="):
			_, v, _ := strings.Cut(s, "=")
			return oneBody("su -c", word{s: v})
		case len(s) > 2 && s[0] == '-' && s[1] == 'c':
			return oneBody("su -c", word{s: s[2:]})
		}
	}
	return bodyResult{}
}

// maxParallelArgs bounds how many scripts a parallel with static
// arguments is expanded into; past it, its input counts as run-time data.
const maxParallelArgs = 16

// parallelBody models GNU parallel: it joins its command words with
// spaces and runs the result with a shell once per input argument, the
// argument shell-quoted in place of {} (and {1}, {.}, ...) or appended.
// With no command words, each argument is itself a command line.
func parallelBody(l []word) bodyResult {
	hits, op, why := parallelOpts.scan(l)
	if why != "" {
		return bodyResult{why: why}
	}
	tokens := []string{"{}", "{.}", "{/}", "{//}", "{/.}", "{#}", "{%}", "{1}", "{2}", "{3}"}
	for _, h := range hits {
		if (h.name == "I" || h.name == "replace" || h.name == "i") && h.val.s != "" {
			tokens = []string{h.val.s}
		}
	}
	cmd := l[op:]
	var args []word
	static := !has(hits, "a", "arg-file", "pipe", "pipepart")
	sep := false
	for k, w := range cmd {
		if w.s == ":::" || w.s == "::::" || w.s == ":::+" || w.s == "::::+" {
			args = cmd[k+1:]
			cmd = cmd[:k]
			static = static && w.s == ":::"
			sep = true
			break
		}
	}
	if !sep {
		static = false // arguments come from standard input
	}
	for _, a := range args {
		if a.dyn || a.s == ":::" || a.s == "::::" || a.s == ":::+" || a.s == "::::+" {
			static = false
		}
	}
	if len(args) > maxParallelArgs {
		static = false
	}
	if r := allStatic("parallel", cmd); r != "" {
		return bodyResult{why: r}
	}
	quote := has(hits, "q", "quote")
	line := joinQuoted(cmd, quote)
	if !static {
		if len(cmd) == 0 {
			if has(hits, "help", "version", "h", "V") {
				return bodyResult{}
			}
			// Each input line (or argument) is a command line.
			return bodyResult{stdin: true, input: "parallel runs its input lines as commands"}
		}
		sc := script{src: line, holes: tokens, runtime: true}
		if !slices.ContainsFunc(tokens, func(t string) bool { return strings.Contains(line, t) }) {
			sc.appendBy = "parallel" // no replacement string: the argument is appended
		}
		return bodyResult{scripts: []script{sc}}
	}
	var out []script
	for _, a := range args {
		if len(cmd) == 0 {
			out = append(out, script{src: a.s})
			continue
		}
		src, ok := fillTokens(line, tokens, a.s)
		if !ok {
			return bodyResult{why: fmt.Sprintf("parallel: argument %q cannot be quoted", a.s)}
		}
		out = append(out, script{src: src})
	}
	return bodyResult{scripts: out}
}

func joinQuoted(ws []word, quote bool) string {
	if !quote {
		return join(ws)
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		q, err := syntax.Quote(w.s, syntax.LangBash)
		if err != nil {
			q = w.s
		}
		parts[i] = q
	}
	return strings.Join(parts, " ")
}

// fillTokens puts arg, shell-quoted, in place of parallel's replacement
// strings in line, or after it when there is none.
func fillTokens(line string, tokens []string, arg string) (string, bool) {
	q := func(s string) (string, bool) {
		r, err := syntax.Quote(s, syntax.LangBash)
		return r, err == nil
	}
	qa, ok := q(arg)
	if !ok {
		return "", false
	}
	found := false
	for _, t := range tokens {
		if !strings.Contains(line, t) {
			continue
		}
		found = true
		v := arg
		switch t {
		case "{.}":
			v = strings.TrimSuffix(arg, path.Ext(arg))
		case "{/}":
			v = path.Base(arg)
		case "{//}":
			v = path.Dir(arg)
		case "{/.}":
			v = path.Base(arg)
			v = strings.TrimSuffix(v, path.Ext(v))
		case "{#}", "{%}":
			v = "1"
		}
		qv, ok := q(v)
		if !ok {
			return "", false
		}
		line = strings.ReplaceAll(line, t, qv)
	}
	if !found {
		line += " " + qa
	}
	return line, true
}

// findRun is what a find command runs besides itself.
type findRun struct {
	execs  [][]word // each -exec, -execdir, -ok, -okdir command
	inDir  []bool   // per exec: -execdir or -okdir, run in the directory of each file found
	delete []word   // the roots of a find with -delete, or nil
	why    string   // non-empty: the find may run or delete more than this
}

// findActions reads find [-H -L -P -D opts -Olevel] [roots] [expression]
// for the commands it runs and whether it deletes.
func findActions(l []word) findRun {
	var r findRun
	i := 1
	for i < len(l) {
		s := l[i].s
		if l[i].dyn {
			break
		}
		switch {
		case s == "-H" || s == "-L" || s == "-P":
			i++
			continue
		case s == "-D":
			i += 2
			continue
		case strings.HasPrefix(s, "-O") && len(s) > 2:
			i++
			continue
		}
		break
	}
	// An unquoted expansion may hold more roots or the expression, and a
	// dynamic word that is not the argument of a test may be -delete or
	// -exec at run time: the find is unknown then, but what can be read
	// is still reported, for deny rules.
	var roots []word
	for ; i < len(l) && !findExprStart(l[i]); i++ {
		if l[i].multi && r.why == "" {
			r.why = fmt.Sprintf("find: unquoted expansion %q may hold the expression", l[i].s)
		}
		roots = append(roots, l[i])
	}
	if len(roots) == 0 {
		roots = []word{{s: "."}}
	}
	for i < len(l) {
		x := l[i]
		if x.dyn {
			// A primary that is not static may be -delete or -exec.
			if r.why == "" {
				r.why = fmt.Sprintf("find: expression word %q is not static", x.s)
			}
			i++
			continue
		}
		switch x.s {
		case "-delete":
			r.delete = roots
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			end := len(l)
			for k := j; k < len(l); k++ {
				if l[k].s == ";" || l[k].s == "+" && k > j && l[k-1].s == "{}" {
					end = k
					break
				}
			}
			if end > j {
				cmd := append([]word(nil), l[j:end]...)
				for k := range cmd {
					cmd[k] = withPlaceholder(cmd[k], "{}", foundPath(roots, x.s))
				}
				r.execs = append(r.execs, cmd)
				r.inDir = append(r.inDir, x.s == "-execdir" || x.s == "-okdir")
			}
			i = end + 1
			continue
		}
		// The arguments of a test or action are values, never primaries:
		// find . -name -delete deletes nothing. An unquoted expansion
		// there may split into more words, primaries among them.
		n := findPrimaryArgs(x.s)
		for k := i + 1; k <= i+n && k < len(l); k++ {
			if l[k].multi && r.why == "" {
				r.why = fmt.Sprintf("find: expression word %q is not static", l[k].s)
			}
		}
		i += 1 + n
	}
	return r
}

// findPrimaryArgs returns how many arguments the find primary (test,
// action, option) p takes: those of GNU find and BSD find. An unknown word
// takes none, so that a word after it is read as a primary: find fails on
// a primary it does not know, and reading too many primaries can only
// report more than runs.
func findPrimaryArgs(p string) int {
	switch p {
	case "-fprintf":
		return 2
	case "-amin", "-anewer", "-atime", "-cmin", "-cnewer", "-ctime", "-mmin", "-mtime",
		"-Bmin", "-Bnewer", "-Btime", "-mnewer", "-newer", "-used",
		"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename",
		"-regex", "-iregex", "-lname", "-ilname", "-regextype",
		"-gid", "-uid", "-group", "-user", "-inum", "-links", "-samefile",
		"-size", "-perm", "-type", "-xtype", "-fstype", "-flags", "-context",
		"-maxdepth", "-mindepth", "-files0-from", "-xattrname",
		"-printf", "-fprint", "-fprint0", "-fls":
		return 1
	}
	// -newerXY REFERENCE compares timestamp X with Y of REFERENCE (-newermt DATE).
	if len(p) == len("-newerXY") && strings.HasPrefix(p, "-newer") &&
		strings.IndexByte("aBcmt", p[6]) >= 0 && strings.IndexByte("aBcmt", p[7]) >= 0 {
		return 1
	}
	return 0
}

// foundPath is the shape of a path find passes its -exec commands: a root
// or a path below it when there is one static root, else a Hole. -execdir
// passes ./NAME.
func foundPath(roots []word, action string) string {
	switch {
	case action == "-execdir" || action == "-okdir":
		return "./" + string(Hole)
	case len(roots) == 1 && !roots[0].dyn && !roots[0].glob:
		return roots[0].s + string(Hole)
	}
	return string(Hole)
}

func findExprStart(w word) bool {
	if w.dyn {
		return false
	}
	s := w.s
	return len(s) > 1 && s[0] == '-' || s == "(" || s == ")" || s == "!" || s == ","
}

// powershellBody: PowerShell code (pwsh -c, -EncodedCommand, or an operand
// that is no script file) is not parsed here, so it is unknown; a script
// file (-File x.ps1, x.ps1) is the effects table's business, as bash
// FILE is. Options are case-insensitive and may start with / (Windows).
// Without either it reads code from its input: unknown too.
func powershellBody(name string, l []word) bodyResult {
	for i := 1; i < len(l); i++ {
		x := l[i]
		if x.dyn {
			return bodyResult{why: fmt.Sprintf("%s: option or code %q is not static", name, x.s)}
		}
		opt := strings.ToLower(x.s)
		if strings.HasPrefix(opt, "/") {
			opt = "-" + opt[1:]
		}
		opt = strings.TrimPrefix(opt, "-")
		switch {
		case !strings.HasPrefix(x.s, "-") && !strings.HasPrefix(x.s, "/") && strings.HasSuffix(opt, ".ps1"),
			opt == "file" || opt == "f",
			opt == "v" || opt == "version" || opt == "-version" || opt == "h" || opt == "help" || opt == "?":
			return bodyResult{}
		case slices.Contains([]string{"noprofile", "nop", "noninteractive", "noni", "nologo", "noexit", "mta", "sta", "interactive", "i", "login", "l"}, opt):
		case slices.Contains([]string{"executionpolicy", "ex", "ep", "windowstyle", "w", "workingdirectory", "wd", "settingsfile", "outputformat", "of", "inputformat", "if"}, opt):
			i++
		default:
			return bodyResult{why: fmt.Sprintf("%s runs PowerShell code, which this reading does not parse", name)}
		}
	}
	return bodyResult{why: fmt.Sprintf("%s reads PowerShell code from its input, which this reading does not parse", name)}
}
