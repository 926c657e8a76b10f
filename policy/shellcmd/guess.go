package shellcmd

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxGuesses bounds the arguments of one command that are read as the
// start of a command it may run; past it the command is unknown, so that
// padding cannot push one out of sight.
const maxGuesses = 16

// guess walks what a program agent-shell does not know may run. A program
// that wraps another (faketime now rm -rf ~, xvfb-run, ssh-agent, mise
// exec --, op run --) or takes a command line as an argument (concurrently
// 'rm -rf ~', nodemon --exec 'rm -rf ~', psql -c '\! rm -rf ~') cannot be
// listed to the end, and a guard that lets an unlisted one through is one
// unknown name away from any command. So, for a program that is not
// [KnownProgram], each argument that names a known program starts a
// command it may run (the rest of its words are that command's), and each
// argument that parses as a command line naming one is a script it may
// run, one level deeper. Each such command has the program as its outer
// layer and says so in Implied, so every rule and the guard judge it as
// written alone. A word before it that names a directory option (--cwd,
// -C, chdir) may move it: then its directory is unknown.
//
// Arguments that are data to a program that does not run them are read
// as commands too: that can only make a decision stricter, and only where
// they spell a command out.
func (w *walker) guess(idx int, l []word, base Command, stmtRedirs []*syntax.Redirect) {
	type start struct {
		at     int  // l[at] is the word
		first  word // its program (the value of --exec=rm), or its script
		script bool
	}
	var starts []start
	elsewhere := false
	for i := 1; i < len(l); i++ {
		x := l[i]
		if x.dyn {
			continue
		}
		s := x.s
		if strings.HasPrefix(s, "-") {
			opt, v, eq := strings.Cut(s, "=")
			elsewhere = elsewhere || dirOption(opt)
			if !eq {
				continue
			}
			s = v
		}
		prog := progName(word{s: s})
		switch {
		case s == "chdir" || s == "cd" || s == "pushd":
			elsewhere = true
		case s != "." && mayStart(prog) && (i+1 < len(l) || readsScript(prog)):
			starts = append(starts, start{at: i, first: word{s: s}})
		case strings.ContainsAny(s, " \t\n;&|"):
			if src, ok := commandLine(s); ok {
				starts = append(starts, start{at: i, first: word{s: src}, script: true})
			}
		}
	}
	// What it reads on its input: a client's shell escape in a
	// here-string or heredoc (sqlite3 db <<< '.shell rm -rf ~', psql
	// <<EOF with \! ...).
	if src, ok, _ := heredocScript(w, stmtRedirs); ok {
		for _, line := range strings.Split(src, "\n") {
			if t := strings.TrimLeft(line, " \t"); shellEscape(t) {
				if cl, ok := commandLine(t); ok {
					starts = append(starts, start{at: len(l), first: word{s: cl}, script: true})
				}
			}
		}
	}
	if len(starts) == 0 {
		return
	}
	c := &w.st.line.Commands[idx]
	if len(starts) > maxGuesses {
		c.Unknown = fmt.Sprintf("more than %d of its arguments may start a command %s runs", maxGuesses, c.Argv[0])
		return
	}
	if elsewhere {
		c.Dirs, c.DirUnknown = nil, true
	}
	layers := outerLayers{layers: c.Layers, shapes: c.Shapes}
	child := Command{Assigns: base.Assigns, Redirects: base.Redirects, Substitution: base.Substitution, Depth: w.depth,
		Implied: c.Argv[0] + " may run it"}
	g := w.scoped()
	if elsewhere {
		g = w.scopedAt(unknownDir)
	}
	g.guessed = true
	for _, s := range starts {
		if !s.script {
			g.simple(append([]word{s.first}, l[s.at+1:]...), child, layers, stmtRedirs)
			continue
		}
		// A text that does not parse is no command line; one that nests
		// too deeply is left to body, which makes the command unknown.
		if !nestsDeeper(s.first.s, maxParseNest) {
			if _, err := w.st.parser.Parse(strings.NewReader(s.first.s), ""); err != nil {
				continue
			}
		}
		g.body(idx, script{src: s.first.s})
	}
}

// mayStart reports a program whose name, among an unknown program's
// arguments, starts a command it may run: one agent-shell knows and that
// is not harmless, or one of those whose mere run a rule may object to,
// which the program table has no need to know (mkfs.ext4, wipefs, glab).
func mayStart(name string) bool {
	// On a case-insensitive file system (macOS, Windows) RM and rm.exe run
	// rm, as the rules read them.
	if lower := strings.TrimSuffix(strings.ToLower(name), ".exe"); lower != name && mayStart(lower) {
		return true
	}
	if KnownProgram(name) {
		return !harmless(name)
	}
	if strings.HasPrefix(name, "mkfs") {
		return true
	}
	switch name {
	case "mke2fs", "mkswap", "mkntfs", "mkdosfs", "shred", "wipefs", "fdisk", "sfdisk", "parted", "sgdisk", "gdisk",
		"cfdisk", "blkdiscard", "cryptsetup", "badblocks", "nvme", "hdparm", "glab", "tea", "nerdctl", "socat",
		"openssl", "aws", "7z", "7za", "7zr", "7zz", "cmake", "hd", "hexyl", "uuencode", "basenc", "pv":
		return true
	}
	return false
}

// harmless reports a known program that cannot change or disclose
// anything whatever its arguments, so that no rule can object to it: not
// worth reading as a command another runs (mise run test, hatch run lint
// echo).
func harmless(name string) bool {
	switch name {
	case "test", "[", "[[", "true", "false", ":", "pwd", "sleep", "date", "yes", "seq",
		"which", "type", "whoami", "id", "uname", "hostname", "basename", "dirname", "help", "hash", "jobs",
		"wait", "times", "let", "expr", "cd", "pushd", "popd", "dirs", "uptime", "groups", "who", "cal":
		return true
	}
	return false
}

// scriptOperand is the index in l of the script file a shell or an
// interpreter runs (bash x.sh, python3 run.py, node cli.js, python3 -m
// MOD), whose arguments the script may run as a command as any program
// agent-shell does not know may; 0 when it runs none.
func scriptOperand(name string, l []word, b bodyResult, oneLiner bool) int {
	if b.file != "" {
		for k := 1; k < len(l); k++ {
			if !l[k].dyn && l[k].s == b.file {
				return k
			}
		}
		return 0
	}
	if !isInterpreter(name) && name != "node" && name != "nodejs" {
		return 0
	}
	if oneLiner {
		return 0 // its program is scanned (ScanCode)
	}
	for k := 1; k < len(l); k++ {
		switch {
		case l[k].s == "-m" && strings.HasPrefix(name, "py") && k+1 < len(l):
			if KnownProgram(l[k+1].s) {
				return 0 // python3 -m pytest -k 'git reset --hard': a known program's arguments are data
			}
			return k + 1
		case l[k].s == "--":
			if k+1 < len(l) {
				return k + 1
			}
			return 0
		case !strings.HasPrefix(l[k].s, "-"):
			return k
		}
	}
	return 0
}

// dirOption reports an option whose name says it sets the directory a
// program works in.
func dirOption(opt string) bool {
	if opt == "-C" || opt == "-w" {
		return true
	}
	opt = strings.ToLower(strings.TrimLeft(opt, "-"))
	return strings.Contains(opt, "dir") || strings.Contains(opt, "cwd") || strings.Contains(opt, "pwd") ||
		opt == "cd" || opt == "chdir"
}

// commandLine returns the command line a text holds, when its first word
// names a known program, perhaps after a client's shell escape (psql's \!,
// dc's !, sqlite3's .shell, mysql's system), which it leaves out. Prose
// that mentions a command ("this blocks rm -rf") is none.
func commandLine(s string) (string, bool) {
	const blanks = " \t\n"
	firstWord := func(s string) string {
		if i := strings.IndexAny(s, blanks+";&|<>()"); i >= 0 {
			return s[:i]
		}
		return s
	}
	rest := strings.TrimLeft(strings.TrimLeft(s, blanks), "\\!")
	first := firstWord(rest)
	switch first {
	case "", ".shell", ".system", "system", "shell":
		rest = strings.TrimLeft(rest[len(first):], blanks)
		first = firstWord(rest)
	}
	first = path.Base(first)
	return rest, first != "" && (mayStart(first) || KnownProgram(first)) // cd web && ...: a harmless start still starts a line
}

// shellEscape reports a client's line that runs a shell command: psql's
// and mysql's \!, dc's !, sqlite3's .shell and .system, mysql's system.
func shellEscape(line string) bool {
	first, _, _ := strings.Cut(line, " ")
	switch first {
	case ".shell", ".system", "system", "shell":
		return true
	}
	return strings.HasPrefix(line, "\\!") || strings.HasPrefix(line, "!")
}

// readsScript reports a program that, given no arguments, runs what its
// standard input holds (curl x | faketime now sh).
func readsScript(name string) bool {
	if isShell(name) || name == "node" || name == "bun" || name == "deno" {
		return true
	}
	for _, lang := range []string{"python", "pypy", "ruby", "perl", "php"} {
		if versioned(name, lang) {
			return true
		}
	}
	return false
}

// KnownProgram reports whether agent-shell reads the arguments of the
// program name some way, or knows them to be data: its options are in the
// program table, it is a wrapper, a shell, an interpreter or a package
// runner the walk unwraps, or one of the programs listed here, whose
// arguments are files, text, patterns or names (echo rm, which rm, pkill
// rm, apt-get install make). Anything else may run its arguments (see
// guess), or write the files they name.
func KnownProgram(name string) bool {
	switch name {
	// Shell builtins and keywords.
	case "cd", "pushd", "popd", "dirs", "echo", "printf", "read", "mapfile", "readarray", "test", "[", "[[",
		"true", "false", ":", "export", "unset", "set", "shift", "exit", "return", "local", "declare", "typeset",
		"readonly", "alias", "unalias", "type", "hash", "help", "history", "jobs", "fg", "bg", "wait", "kill",
		"trap", "umask", "ulimit", "getopts", "let", "caller", "compgen", "complete", "compopt", "disown",
		"enable", "logout", "shopt", "suspend", "times", "bind", "builtin", "command", "eval", "exec", "source",
		".", "coproc":
		return true
	// What the walk unwraps or reads: wrappers, runners of other programs,
	// shells in other languages, programs whose scripts it walks.
	case "env", "busybox", "toybox", "nohup", "caffeinate", "time", "stdbuf", "setsid", "pkexec", "nice", "timeout",
		"chrt", "taskset", "ionice", "chroot", "flock", "screen", "watch", "sudo", "doas", "su", "xargs",
		"unbuffer", "strace", "ltrace", "catchsegv", "valgrind", "fakeroot", "runuser", "script", "shx", "cross-env",
		"cross-env-shell", "unshare", "nsenter", "prlimit", "numactl", "firejail", "systemd-run", "setpriv", "bwrap",
		"gdb", "parallel", "find", "git", "tar", "gtar", "make", "gmake", "ssh", "scp", "sftp", "rsync", "man", "zip",
		"sed", "gsed", "tmux", "at", "batch", "node", "nodejs", "bun", "deno", "R", "Rscript", "expect", "osascript",
		"pwsh", "powershell", "powershell.exe", "rimraf", "del-cli", "mktemp", "agent-shell", "hub", "yadm", "vcsh", "npm", "pnpm", "yarn",
		"uv", "poetry", "pdm", "pipenv", "pipx", "bundle", "npx", "bunx", "uvx", "pre-commit", "tox":
		return true
	// Programs whose arguments are files, text, patterns or names.
	case "cat", "tac", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ls", "dir",
		"wc", "sort", "uniq", "diff", "cmp", "comm", "stat", "file", "jq", "yq", "tree", "du", "df", "fd", "cut",
		"tr", "column", "nl", "od", "xxd", "hexdump", "strings", "md5sum", "sha1sum", "sha256sum", "sha512sum",
		"b2sum", "cksum", "base64", "base32", "realpath", "readlink", "bat", "paste", "join", "fold", "fmt",
		"expand", "unexpand", "printenv", "date", "cal", "sleep", "whoami", "who", "id", "groups", "uname",
		"hostname", "uptime", "ps", "top", "htop", "pgrep", "pkill", "killall", "pidof", "lsof", "free",
		"which", "whereis", "info", "apropos", "whatis", "tldr", "locate", "basename", "dirname", "seq", "yes",
		"getfacl", "lsattr", "getfattr", "namei", "expr", "bc", "shuf", "split", "csplit", "iconv", "rev", "unzip", "gunzip", "zcat", "bzcat", "xzcat", "zstdcat",
		"zless", "zmore", "zgrep", "ugrep", "batcat", "pr", "dd", "look", "pygmentize", "highlight", "mlr", "most",
		"lolcat", "ccat", "logger",
		"wget", "aria2c", "http", "https", "nc", "ncat", "netcat", "telnet", "ftp", "gh", "ping", "dig", "nslookup",
		"host", "traceroute", "hg", "svn", "pip", "pip3", "cargo", "go", "gem", "apt", "apt-get", "apt-cache",
		"dpkg", "rpm", "dnf", "yum", "pacman", "apk", "zypper", "brew", "port", "snap", "flatpak", "choco",
		"winget", "scoop", "mvn", "gradle", "docker", "podman", "buildah", "kubectl", "helm", "terraform", "systemctl",
		"service", "journalctl",
		// Test runners, linters, formatters and compilers: files, and
		// patterns that name tests (jest -t 'git reset --hard').
		"jest", "vitest", "mocha", "ava", "pytest", "py.test", "nose2", "phpunit", "rspec", "playwright", "cypress",
		"eslint", "prettier", "tsc", "ruff", "black", "isort", "flake8", "mypy", "pylint", "rubocop", "golangci-lint",
		"gofmt", "goimports", "shellcheck", "shfmt", "hadolint", "yamllint", "markdownlint", "stylelint", "biome",
		"oxlint", "webpack", "rollup", "esbuild", "gcc", "g++", "cc", "clang", "clang++", "rustc", "javac", "kotlinc":
		return true
	}
	if ProgramOptions(name) != nil || isShell(name) || isAwk(name) || isVim(name) {
		return true
	}
	if isInterpreter(name) {
		return true
	}
	for _, lang := range []string{"luajit", "julia", "tclsh", "wish"} {
		if versioned(name, lang) {
			return true
		}
	}
	return false
}
