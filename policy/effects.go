package policy

import (
	"path"
	"strings"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// Effect kinds. An effect is a kind, or kind:detail for read, write and
// unknown (read:<path>, write:<path>, unknown:<reason>).
const (
	EffectRead            = "read"
	EffectWrite           = "write"
	EffectNetwork         = "network"
	EffectChildProcesses  = "child_processes"
	EffectArbitraryCode   = "arbitrary_code"
	EffectPrivilegeChange = "privilege_change"
	EffectUnknown         = "unknown"
)

// effectClass is a row of the built-in effects table.
type effectClass uint8

const (
	classNone        effectClass = iota // runs nothing and touches nothing (echo, cd, true)
	classReader                         // reads its file arguments
	classWriter                         // writes (creates, changes or removes) its file arguments
	classCopier                         // reads its sources, writes its last argument
	classNetwork                        // talks to the network
	classInterpreter                    // runs code it is given
	classPackager                       // installs and runs packages: network, code, writes
	classPrivilege                      // runs as another user
	classGit                            // depends on the subcommand
)

// programClass is the class of a common program, by basename; ok is false
// for a program that is not listed, which gets arbitrary_code and unknown:
// nothing is assumed about it. A switch, not a map: it needs nothing built
// when the process starts.
func programClass(name string) (class effectClass, ok bool) {
	switch name {
	case "echo", "printf", "true", "false", "cd", "pwd", "export", "test", "[", "sleep", "date",
		"whoami", "which", "type", "env", "uname", "hostname", "id", "basename", "dirname", "set",
		"unset", "exit", "return", ":":
		return classNone, true
	case "cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ls", "wc",
		"sort", "uniq", "diff", "cmp", "stat", "file", "jq", "yq", "tree", "du", "df", "find", "fd",
		"cut", "tr", "column", "nl", "od", "xxd", "hexdump", "strings", "md5sum", "sha256sum", "sha1sum",
		"realpath", "readlink", "bat", "comm", "paste", "join":
		return classReader, true
	case "rm", "rmdir", "touch", "mkdir", "chmod", "chown", "chgrp", "truncate", "shred", "unlink",
		"tee", "sed", "dd", "mkfs", "ln":
		return classWriter, true
	case "cp", "mv", "install", "rsync", "scp":
		return classCopier, true
	case "curl", "wget", "aria2c", "ssh", "sftp", "nc", "ncat", "netcat", "telnet", "ftp", "http", "gh", "ping",
		"dig", "nslookup":
		return classNetwork, true
	case "python", "python3", "node", "ruby", "perl", "php", "bash", "sh", "zsh", "dash", "ksh",
		"fish", "deno", "lua", "awk", "gawk", "eval", "source", ".", "xargs", "make", "npx":
		return classInterpreter, true
	case "npm", "pnpm", "yarn", "bun", "pip", "pip3", "uv", "cargo", "go", "gem", "bundle", "apt",
		"apt-get", "brew", "mvn", "gradle", "poetry", "docker", "kubectl", "terraform":
		return classPackager, true
	case "sudo", "doas", "su", "pkexec":
		return classPrivilege, true
	case "git":
		return classGit, true
	}
	return 0, false
}

// gitReadOnly are git subcommands that only read the repository.
var gitReadOnly = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "blame": true, "rev-parse": true,
	"ls-files": true, "describe": true, "shortlog": true, "grep": true, "reflog": true,
	"cat-file": true, "ls-tree": true, "rev-list": true, "branch": true, "tag": true, "remote": true,
	"config": true, "help": true, "version": true, "--version": true,
}

var gitNetwork = map[string]bool{"push": true, "pull": true, "fetch": true, "clone": true, "ls-remote": true, "submodule": true}

// commandEffects lists what one normalized command (one layer) may do:
// from the table, from its redirections, and unknown reasons. cwd, when
// known, makes relative paths absolute.
// lineEffects is commandEffects in every directory a command may run in:
// after a cd earlier in its line, relative paths are resolved both there
// and where the line started (a subshell or a failed cd leaves the old
// directory in force), so an effect rule sees the command's real target
// among them.
func lineEffects(argv []string, c *shellcmd.Command, cwds []string) []string {
	out := commandEffects(argv, c, cwds[0])
	for _, cwd := range cwds[1:] {
		out = appendNew(out, commandEffects(argv, c, cwd)...)
	}
	return out
}

// followCd adds the directory a static cd or pushd changes to
// (shellcmd.CdTarget and FollowCd, as the guard follows it); a cd whose
// target is not static adds nothing here (its command is not static, so
// the rest of the line is judged as written), nor one to the home.
func followCd(c *shellcmd.Command, cwds []string) []string {
	dir, ok := shellcmd.CdTarget(c.Argv)
	if !ok || c.Dynamic {
		return cwds
	}
	return shellcmd.FollowCd(cwds, func(cwd string) string { return effectPath(dir, cwd) })
}

func commandEffects(argv []string, c *shellcmd.Command, cwd string) []string {
	var out []string
	add := func(e string) {
		for _, have := range out {
			if have == e {
				return
			}
		}
		out = append(out, e)
	}
	addPaths := func(kind string, paths []string) {
		for _, p := range paths {
			if shellcmd.DynamicWord(p) {
				// Only known at run time. Kept as written, unless it climbs
				// out of its unknown part ($TMPDIR/../etc): then where it
				// points is unknown, and the effect has no path at all.
				if shellcmd.HasDotDot(p) {
					add(kind)
				} else {
					add(kind + ":" + p)
				}
				add(EffectUnknown + ":path not static: " + p)
				continue
			}
			add(kind + ":" + effectPath(p, cwd))
		}
	}
	if c.Unknown != "" {
		add(EffectUnknown + ":" + c.Unknown)
		add(EffectArbitraryCode)
	}
	if c.Dynamic {
		add(EffectUnknown + ":arguments only known at run time")
	}
	if len(argv) == 0 {
		return out
	}
	class, listed := programClass(argv[0])
	var p shellcmd.Args // the arguments as the table shared with the guard and Canonical reads them
	if class == classReader || class == classWriter || argv[0] == "curl" {
		p = shellcmd.ProgramOptions(argv[0]).Split(argv[1:])
	}
	args := p.Operands
	switch {
	case !listed:
		add(EffectArbitraryCode)
		add(EffectUnknown + ":unlisted program " + argv[0])
	case class == classReader && argv[0] == "find":
		roots := shellcmd.FindRoots(argv[1:])
		addPaths(EffectRead, roots)
		if hasAny(argv, "-delete", "-exec", "-execdir", "-ok", "-okdir") {
			addPaths(EffectWrite, roots)
			add(EffectChildProcesses)
		}
	case class == classReader:
		addPaths(EffectRead, args)
	case class == classWriter:
		if argv[0] == "sed" {
			// Its files follow the script, unless -e or -f gave it.
			if files, edits := shellcmd.InPlace("sed", p); edits {
				addPaths(EffectWrite, files)
			} else {
				addPaths(EffectRead, files)
			}
			break
		}
		if argv[0] == "dd" {
			for _, a := range argv[1:] {
				if v, ok := strings.CutPrefix(a, "of="); ok {
					addPaths(EffectWrite, []string{v})
				} else if v, ok := strings.CutPrefix(a, "if="); ok {
					addPaths(EffectRead, []string{v})
				}
			}
			break
		}
		addPaths(EffectWrite, args)
	case class == classCopier:
		// The roles the guard reads too: -t, install -d, a remote rsync.
		c := shellcmd.CopyRoles(argv[0], argv[1:])
		addPaths(EffectRead, c.LocalSources())
		if c.Dest != "" {
			addPaths(EffectWrite, []string{c.Dest})
		}
		addPaths(EffectWrite, c.Creates)
		if argv[0] == "mv" {
			addPaths(EffectWrite, c.Sources)
		}
		if argv[0] == "rsync" || argv[0] == "scp" {
			add(EffectNetwork)
		}
	case class == classNetwork:
		add(EffectNetwork)
		addPaths(EffectWrite, shellcmd.DownloaderWrites(argv[0], argv[1:]))
	case class == classInterpreter:
		add(EffectArbitraryCode)
		add(EffectChildProcesses)
	case class == classPackager && len(argv) == 2 && (argv[1] == "--version" || argv[1] == "version" || argv[1] == "-v" || argv[1] == "-V"):
		// It prints its version: nothing runs, nothing is written.
	case class == classPackager:
		add(EffectArbitraryCode)
		add(EffectChildProcesses)
		add(EffectNetwork)
		add(EffectWrite + ":" + effectPath(".", cwd))
	case class == classPrivilege:
		add(EffectPrivilegeChange)
		add(EffectChildProcesses)
	case class == classGit:
		gitEffects(argv, cwd, add)
	}
	if c.Code != nil && len(argv) > 0 && len(c.Argv) > 0 && &argv[0] == &c.Argv[0] {
		// The files an interpreter one-liner reads and writes by literal
		// paths, on its own layer (the innermost: Argv is that layer).
		addPaths(EffectRead, c.Code.Reads)
		addPaths(EffectWrite, c.Code.Writes)
	}
	for _, r := range c.Redirects {
		// /dev/null is a sink, not a file anything is written to.
		if !r.File || r.Target == "/dev/null" && !r.Dynamic {
			continue
		}
		kind := EffectRead
		if r.Write {
			kind = EffectWrite
		}
		if r.Dynamic {
			add(EffectUnknown + ":redirection to a target that is not static: " + r.Target)
		}
		add(kind + ":" + effectPath(r.Target, cwd))
	}
	return out
}

func gitEffects(argv []string, cwd string, add func(string)) {
	globals, sub, _ := shellcmd.GitSplit(argv[1:])
	for _, dir := range shellcmd.GitChdirs(globals) {
		cwd = effectPath(dir, cwd)
	}
	root := effectPath(".", cwd)
	switch {
	case gitReadOnly[sub]:
		add(EffectRead + ":" + root)
	case gitNetwork[sub]:
		add(EffectNetwork)
		add(EffectWrite + ":" + root)
	default:
		add(EffectWrite + ":" + root)
	}
	// --output writes wherever it points, whatever the subcommand.
	for i, a := range argv {
		if v, ok := strings.CutPrefix(a, "--output="); ok {
			add(EffectWrite + ":" + effectPath(v, cwd))
		} else if (a == "--output" || a == "-o") && sub != "" && gitReadOnly[sub] && i+1 < len(argv) {
			add(EffectWrite + ":" + effectPath(argv[i+1], cwd))
		}
	}
}

func hasAny(argv []string, words ...string) bool {
	for _, a := range argv {
		for _, w := range words {
			if a == w {
				return true
			}
		}
	}
	return false
}

// effectPath makes p absolute against cwd when both allow it, and clean. A
// path that starts with ~ is kept as written: it is not relative to cwd.
func effectPath(p, cwd string) string {
	if p == "" || shellcmd.DynamicWord(p) {
		return p
	}
	if strings.HasPrefix(p, "~") {
		return path.Clean(p)
	}
	if !path.IsAbs(p) && cwd != "" {
		p = path.Join(cwd, p)
	}
	return path.Clean(p)
}
