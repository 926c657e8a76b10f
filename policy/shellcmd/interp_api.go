package shellcmd

import (
	"fmt"
	"slices"
	"strings"
)

// This file holds what the APIs of each language do, and reads their
// calls. The tables are switches, so that nothing runs at package
// initialisation.

// runKind says how an API runs a command.
type runKind uint8

const (
	runNone       runKind = iota
	runLine               // the argument at is a command line (os.system, execSync)
	runLineOrArgv         // the argument at is a command line or an argv list (IO.popen, proc_open)
	runSystem             // one string is a command line, several words an argv (Ruby and Perl system)
	runPySub              // subprocess.*: an argv list, or a string that shell=True makes a command line
	runProgArgs           // a program at `at`, then an argv list or {args: [...]}; {shell: true} joins them into a line (spawn)
	runExecv              // a program at `at`, then an argv list whose first word is argv[0] (os.execv)
	runExecl              // a program at `at`, then argv[0], then the arguments (os.execl)
	runArgv               // the argument at is a program, an argv list or {cmd: [...]} (pty.spawn, Bun.spawn)
	runArgs               // the arguments from `at` are the words of argv (create_subprocess_exec)
	runEval               // the argument at is code of the same language (eval, exec)
	runPerlOpen           // Perl open: a pipe runs a command, a writing mode changes files
	runRubyOpen           // Kernel#open: "|cmd" runs cmd, a writing mode changes files
	runReflect            // it reaches a function by a name chosen at run time (send, Function, process.binding)
)

// changeKind says when an API changes files.
type changeKind uint8

const (
	changeNone      changeKind = iota
	changeAlways               // whenever it is used
	changeMode                 // when the mode at `at` (or mode=) writes: w, a, x, c or +
	changeFlags                // when the flags at `at` write: O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND
	changeOneArg               // when called with one argument: Path.replace(t), not str.replace(a, b)
	changeRecursive            // whenever it is used; it deletes recursively with {recursive: true} at `at`
)

// api is what one name of a language's library does.
type api struct {
	run     runKind
	change  changeKind
	at      int  // where the command, program, mode or options are
	envLast bool // runExecl: the last argument is the environment (os.execle)
	rec     bool // changeAlways: it deletes recursively (shutil.rmtree)
	// read: the first argument is a file it reads (for changeMode, when
	// the mode does not write).
	read bool
}

var (
	changesAPI = api{change: changeAlways}
	deletesAPI = api{change: changeAlways, rec: true}
	lineAt0    = api{run: runLine}
	evalAt0    = api{run: runEval}
	reflectAPI = api{run: runReflect}
	modeAt1    = api{change: changeMode, at: 1, read: true}
	readsAPI   = api{read: true}
	systemAPI  = api{run: runSystem}
)

func (s *scanner) lookup(name string) (api, bool) {
	switch s.lang {
	case "python":
		return pyAPI(name)
	case "node":
		return jsAPI(name)
	case "ruby":
		return rbAPI(name)
	case "perl":
		return plAPI(name)
	}
	return phpAPI(name)
}

// method finds what a method does on any object (p.unlink()).
func (s *scanner) method(name string) (api, bool) {
	switch s.lang {
	case "python":
		switch name {
		case "write_text", "write_bytes", "mkdir", "unlink", "touch", "rmdir", "chmod", "lchmod",
			"symlink_to", "hardlink_to", "link_to":
			return changesAPI, true
		case "rename", "replace":
			return api{change: changeOneArg}, true
		}
	case "ruby":
		switch name {
		case "rmtree":
			return deletesAPI, true
		case "mkpath", "make_symlink", "make_link", "unlink", "rmdir", "chmod":
			return changesAPI, true
		case "rename":
			return api{change: changeOneArg}, true
		}
	case "perl":
		switch name {
		case "rmtree", "remove_tree":
			return deletesAPI, true
		case "mkpath", "make_path", "spew", "spew_raw", "spew_utf8", "touch":
			return changesAPI, true
		}
	}
	return api{}, false
}

func pyAPI(name string) (api, bool) {
	switch name {
	case "os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput", "commands.getoutput",
		"commands.getstatusoutput", "asyncio.create_subprocess_shell", "platform.popen":
		return lineAt0, true
	case "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output", "subprocess.Popen":
		return api{run: runPySub}, true
	case "os.execv", "os.execve", "os.execvp", "os.execvpe", "os.posix_spawn", "os.posix_spawnp":
		return api{run: runExecv}, true
	case "os.spawnv", "os.spawnve", "os.spawnvp", "os.spawnvpe":
		return api{run: runExecv, at: 1}, true
	case "os.execl", "os.execlp":
		return api{run: runExecl}, true
	case "os.execle", "os.execlpe":
		return api{run: runExecl, envLast: true}, true
	case "os.spawnl", "os.spawnlp":
		return api{run: runExecl, at: 1}, true
	case "os.spawnle", "os.spawnlpe":
		return api{run: runExecl, at: 1, envLast: true}, true
	case "pty.spawn":
		return api{run: runArgv}, true
	case "asyncio.create_subprocess_exec":
		return api{run: runArgs}, true
	case "exec", "eval", "builtins.exec", "builtins.eval":
		return evalAt0, true
	case "getattr", "builtins.getattr", "__import__", "builtins.__import__", "importlib.import_module", "__builtins__", "builtins.__dict__", "vars", "globals", "operator.attrgetter",
		"operator.methodcaller", "ctypes.CDLL", "ctypes.cdll", "ctypes.util":
		// getattr(os, "system") is os.system (see chain); a name that is
		// not a literal, or a module's dictionary, reaches anything.
		return reflectAPI, true
	case "open", "io.open", "codecs.open", "gzip.open", "bz2.open", "lzma.open", "tarfile.open":
		return modeAt1, true
	case "os.open":
		return api{change: changeFlags, at: 1}, true
	case "shutil.rmtree":
		return deletesAPI, true
	case "os.remove", "os.unlink", "os.rename", "os.renames", "os.replace", "os.mkdir", "os.makedirs",
		"os.rmdir", "os.removedirs", "os.chmod", "os.lchmod", "os.fchmod", "os.chown", "os.lchown",
		"os.fchown", "os.truncate", "os.ftruncate", "os.link", "os.symlink", "os.mkfifo", "os.mknod",
		"os.utime", "shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.copymode",
		"shutil.copystat", "shutil.move", "shutil.chown", "shutil.make_archive", "shutil.unpack_archive":
		return changesAPI, true
	}
	return api{}, false
}

func jsAPI(name string) (api, bool) {
	if fn, ok := strings.CutPrefix(name, "fs.promises."); ok {
		return fsAPI(fn)
	}
	if fn, ok := strings.CutPrefix(name, "fs."); ok {
		return fsAPI(fn)
	}
	if fn, ok := strings.CutPrefix(name, "Deno."); ok {
		return denoAPI(strings.TrimSuffix(fn, "Sync"))
	}
	switch name {
	case "child_process.exec", "child_process.execSync", "bun.$":
		return lineAt0, true
	case "child_process.execFile", "child_process.execFileSync", "child_process.spawn", "child_process.spawnSync":
		return api{run: runProgArgs}, true
	case "bun.spawn", "bun.spawnSync":
		return api{run: runArgv}, true
	case "bun.write":
		return changesAPI, true
	case "eval", "vm.runInThisContext", "vm.runInNewContext", "vm.runInContext":
		return evalAt0, true
	case "Function", "process.binding", "process._linkedBinding", "process.dlopen", "require", "import",
		"module.require", "Reflect.get", "Reflect.apply", "globalThis", "global":
		// require(name) of a name that is not a literal (a literal one is
		// the module itself, see chain); a Function body, a native binding.
		return reflectAPI, true
	}
	return api{}, false
}

// fsAPI: the functions of Node's fs and fs.promises.
func fsAPI(fn string) (api, bool) {
	switch strings.TrimSuffix(fn, "Sync") {
	case "rm", "rmdir":
		return api{change: changeRecursive, at: 1}, true
	case "open":
		return modeAt1, true
	case "readFile", "createReadStream", "readlink":
		return readsAPI, true
	case "writeFile", "appendFile", "unlink", "rename", "mkdir", "mkdtemp", "copyFile", "cp", "chmod",
		"lchmod", "fchmod", "chown", "lchown", "fchown", "truncate", "ftruncate", "symlink", "link", "utimes",
		"lutimes", "futimes", "createWriteStream":
		return changesAPI, true
	}
	return api{}, false
}

// denoAPI: Deno's functions that run commands or change files (Sync
// trimmed).
func denoAPI(fn string) (api, bool) {
	switch fn {
	case "Command":
		return api{run: runProgArgs}, true
	case "run":
		return api{run: runArgv}, true
	case "remove":
		return api{change: changeRecursive, at: 1}, true
	case "readFile", "readTextFile", "open":
		return readsAPI, true
	case "writeFile", "writeTextFile", "rename", "mkdir", "copyFile", "chmod", "chown", "truncate",
		"symlink", "link", "create", "makeTempFile", "makeTempDir":
		return changesAPI, true
	}
	return api{}, false
}

func rbAPI(name string) (api, bool) {
	switch name {
	case "system", "exec", "spawn", "Kernel.system", "Kernel.exec", "Kernel.spawn", "Process.spawn",
		"Process.exec", "PTY.spawn", "Open3.capture2", "Open3.capture2e", "Open3.capture3", "Open3.popen2",
		"Open3.popen2e", "Open3.popen3":
		return systemAPI, true
	case "IO.popen":
		return api{run: runLineOrArgv}, true
	case "open", "Kernel.open":
		return api{run: runRubyOpen}, true
	case "eval", "Kernel.eval", "instance_eval", "class_eval":
		return evalAt0, true
	case "send", "public_send", "__send__", "method", "Kernel.send", "Kernel.public_send", "Kernel.method",
		"Object.const_get", "const_get", "instance_variable_get", "define_method", "Fiddle.dlopen":
		return reflectAPI, true
	case "File.open", "File.new":
		return modeAt1, true
	case "File.read", "IO.read", "File.binread", "IO.binread", "File.readlines", "IO.readlines",
		"File.foreach", "IO.foreach":
		return readsAPI, true
	case "File.write", "File.binwrite", "IO.write", "IO.binwrite", "File.delete", "File.unlink",
		"File.rename", "File.chmod", "File.lchmod", "File.chown", "File.lchown", "File.truncate",
		"File.symlink", "File.link", "File.mkfifo", "File.utime", "Dir.mkdir", "Dir.rmdir", "Dir.delete",
		"Dir.unlink":
		return changesAPI, true
	}
	if fn, ok := strings.CutPrefix(name, "FileUtils."); ok {
		return fileUtilsAPI(strings.TrimPrefix(fn, "Verbose."))
	}
	return api{}, false
}

// fileUtilsAPI: Ruby's FileUtils, whose functions all change files but
// a few that compare or report.
func fileUtilsAPI(fn string) (api, bool) {
	switch fn {
	case "rm_rf", "rm_r", "remove_dir", "rmtree", "remove_entry", "remove_entry_secure":
		return deletesAPI, true
	case "chmod", "chmod_R", "chown", "chown_R", "copy", "copy_entry", "copy_file", "copy_stream", "cp",
		"cp_lr", "cp_r", "install", "link", "ln", "ln_s", "ln_sf", "ln_sr", "makedirs", "mkdir", "mkdir_p",
		"mkpath", "move", "mv", "remove", "remove_file", "rm", "rm_f", "rmdir", "safe_unlink", "symlink",
		"touch":
		return changesAPI, true
	}
	return api{}, false
}

func plAPI(name string) (api, bool) {
	name = strings.TrimPrefix(strings.TrimPrefix(name, "CORE::GLOBAL::"), "CORE::")
	if k := strings.LastIndex(name, "::"); k >= 0 {
		name = name[k+2:] // File::Path::rmtree, File::Copy::copy
	}
	switch name {
	case "system", "exec":
		return systemAPI, true
	case "readpipe":
		return lineAt0, true
	case "open":
		return api{run: runPerlOpen}, true
	case "sysopen":
		return api{change: changeFlags, at: 2}, true
	case "eval":
		return evalAt0, true
	case "can", "UNIVERSAL::can":
		return reflectAPI, true
	case "rmtree", "remove_tree":
		return deletesAPI, true
	case "unlink", "rename", "mkdir", "rmdir", "chmod", "chown", "utime", "truncate", "link", "symlink",
		"copy", "move", "cp", "mv", "make_path", "mkpath":
		return changesAPI, true
	}
	return api{}, false
}

func phpAPI(name string) (api, bool) {
	if k := strings.LastIndexByte(name, '\\'); k >= 0 {
		name = name[k+1:] // \system, a namespace's fallback to the global function
	}
	switch name {
	case "system", "exec", "shell_exec", "passthru", "popen":
		return lineAt0, true
	case "proc_open":
		return api{run: runLineOrArgv}, true
	case "pcntl_exec":
		return api{run: runProgArgs}, true
	case "eval":
		return evalAt0, true
	case "call_user_func", "call_user_func_array", "create_function", "assert", "array_map", "array_walk",
		"usort", "forward_static_call", "forward_static_call_array", "ReflectionFunction":
		return reflectAPI, true
	case "fopen":
		return modeAt1, true
	case "file_get_contents", "readfile", "file", "highlight_file", "show_source", "parse_ini_file":
		return readsAPI, true
	case "file_put_contents", "unlink", "rename", "mkdir", "rmdir", "copy", "chmod", "chown", "chgrp",
		"lchown", "lchgrp", "touch", "symlink", "link", "tempnam", "move_uploaded_file":
		return changesAPI, true
	}
	return api{}, false
}

// apply records what one use of an API does. An API that runs commands
// but is only named, not called (map(os.system, cmds)), runs what is not
// known.
func (s *scanner) apply(a api, c call) {
	s.changes(a, c)
	switch {
	case a.run == runReflect:
		s.unknown(fmt.Sprintf("%s reaches a function by a name chosen at run time: %s", s.form, s.snippet(c)))
	case a.run == runNone:
	case !c.called && a.run != runEval:
		s.notStatic(c)
	case c.called:
		s.runs(a, c)
	}
}

func (s *scanner) changes(a api, c call) {
	out := s.out
	pos, ok := s.positional(c.args)
	paths := 1 // how many leading arguments are the files it changes
	if twoPaths(c.fn) {
		paths = 2
	}
	wrote := false
	switch a.change {
	case changeAlways:
		out.ChangesFiles, wrote = true, true
		if a.rec {
			s.deletesRecursively(c, pos, ok)
		}
	case changeMode:
		wrote = c.called && s.writesMode(c, a.at)
	case changeFlags:
		wrote = c.called && (!ok || a.at < len(pos) && s.writeFlags(pos[a.at]))
	case changeOneArg:
		wrote = c.called && len(pos) == 1 && len(c.args) == 1
	case changeRecursive:
		out.ChangesFiles, wrote = true, true
		if c.called && (!ok || a.at < len(pos) && s.recursive(pos[a.at])) {
			s.deletesRecursively(c, pos, ok)
		}
	}
	out.ChangesFiles = out.ChangesFiles || wrote
	if wrote && c.called && ok && c.fn != "" && a.change != changeOneArg {
		for _, sp := range pos[:min(paths, len(pos))] {
			s.noteFile(&s.out.Writes, sp)
		}
	}
	if a.read && c.called && ok && len(pos) > 0 && (a.change != changeMode || !s.writesMode(c, a.at)) {
		s.noteFile(&s.out.Reads, pos[0])
	}
}

// deletesRecursively records a recursive delete, and its folder in
// DeletesOnly while every one so far names a literal.
func (s *scanner) deletesRecursively(c call, pos []span, ok bool) {
	out := s.out
	first := !out.DeletesRecursively
	out.DeletesRecursively = true
	p, lit := "", c.called && ok && len(pos) > 0
	if lit {
		p, lit = s.str(pos[0])
	}
	switch {
	case !lit || len(out.DeletesOnly) == maxCodeFiles:
		out.DeletesOnly = nil // and stays so: a later literal is not all of them
	case first || out.DeletesOnly != nil:
		out.DeletesOnly = append(out.DeletesOnly, p)
	}
}

// twoPaths reports the functions whose second argument is a file they
// write too (os.rename(a, b), shutil.copy(src, dst), fs.symlinkSync):
// the others take data there (fs.writeFileSync(f, data)).
func twoPaths(fn string) bool {
	switch strings.TrimSuffix(fn, "Sync") {
	case "rename", "renames", "replace", "copy", "copy2", "copyfile", "copyFile", "copytree", "cp", "cp_r", "cp_lr", "move", "mv",
		"link", "symlink", "ln", "ln_s", "ln_sf", "ln_sr", "copy_file", "copy_entry", "install", "move_uploaded_file":
		return true
	}
	return false
}

// noteFile adds to list (the scan's Reads or Writes) the file sp names,
// when its path is a literal.
func (s *scanner) noteFile(list *[]string, sp span) {
	if p, ok := s.str(sp); ok && len(*list) < maxCodeFiles {
		*list = append(*list, p)
	}
}

// pathFile records the file of Python's Path(LIT, ...).read_text() and
// read_bytes(), the method at i, as read, and of write_text(), unlink()
// and the other methods that change it as written: its receiver's
// arguments joined, when they are all literals.
func (s *scanner) pathFile(i int) {
	var list *[]string
	switch s.toks[i].val {
	case "read_text", "read_bytes":
		list = &s.out.Reads
	case "write_text", "write_bytes", "unlink", "touch", "rename", "replace", "rmdir", "chmod", "symlink_to", "hardlink_to", "mkdir":
		list = &s.out.Writes
	}
	if s.lang != "python" || list == nil || !s.isPunct(i-1, ".") || !s.isPunct(i-2, ")") {
		return
	}
	for k := i - 3; k > 0 && s.spend(); k-- {
		if s.isPunct(k, "(") && s.match[k] == i-2 {
			switch s.toks[k-1].val {
			case "Path", "PurePath", "PosixPath", "PurePosixPath":
				pos, ok := s.positional(s.split(k+1, i-2))
				parts := make([]string, 0, len(pos))
				for _, sp := range pos {
					if p, lit := s.str(sp); lit {
						parts = append(parts, p)
					}
				}
				if ok && len(pos) > 0 && len(parts) == len(pos) && len(*list) < maxCodeFiles {
					*list = append(*list, strings.Join(parts, "/"))
				}
			}
			return
		}
	}
}

// maxCodeFiles bounds the files a scan reports reading, and writing.
const maxCodeFiles = 64

// writesMode reports whether the mode of an open call writes: w, a, x, c
// or + (before a Ruby :encoding), or is not a literal. No mode reads.
func (s *scanner) writesMode(c call, at int) bool {
	pos, ok := s.positional(c.args)
	if !ok {
		return true
	}
	mode, found := span{}, at < len(pos)
	if found {
		mode = pos[at]
	} else if mode, found = s.keyword(c.args, "mode"); !found {
		return false
	}
	v, ok := s.str(mode)
	if !ok {
		return true
	}
	v, _, _ = strings.Cut(v, ":")
	return strings.ContainsAny(v, "waxc+")
}

// writeFlags reports whether open flags write; flags that name no O_
// constant (a number, a variable) count as writing.
func (s *scanner) writeFlags(sp span) bool {
	named := false
	for k := sp.lo; k < sp.hi && s.spend(); k++ {
		v := s.toks[k].val
		if s.toks[k].kind != tName || !strings.Contains(v, "O_") {
			continue
		}
		named = true
		for _, f := range [...]string{"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"} {
			if strings.HasSuffix(v, f) {
				return true
			}
		}
	}
	return !named
}

// recursive reports whether the options of fs.rm and the like ask for a
// recursive delete: {recursive: true}, or options that are not a literal.
func (s *scanner) recursive(opts span) bool {
	if !s.object(opts) {
		return true
	}
	v, ok := s.field(opts, "recursive")
	return ok && !s.isFalse(v)
}

// runs records what a call of an API that runs commands runs.
func (s *scanner) runs(a api, c call) {
	pos, ok := s.positional(c.args)
	if !ok {
		s.notStatic(c)
		return
	}
	if s.lang == "ruby" && len(pos) > 1 && s.object(pos[0]) {
		pos = pos[1:] // system({"VAR" => "v"}, "cmd"): the environment
	}
	rest := pos[min(a.at, len(pos)):]
	if len(rest) == 0 && a.run != runPySub {
		return // too few arguments: the call fails (subprocess may take args=)
	}
	switch a.run {
	case runLine:
		s.lineArg(c, rest[0])
	case runLineOrArgv:
		if _, ok := s.str(rest[0]); ok {
			s.lineArg(c, rest[0])
		} else {
			s.argvArg(c, rest[0])
		}
	case runSystem:
		s.system(c, rest)
	case runPySub:
		s.pySub(c, rest)
	case runProgArgs:
		s.progArgs(c, rest)
	case runExecv:
		s.execv(c, rest)
	case runExecl:
		s.execl(c, rest, a.envLast)
	case runArgv:
		s.argvArg(c, rest[0])
	case runArgs:
		s.argsFrom(c, nil, rest)
	case runEval:
		s.eval(c, rest[0])
	case runPerlOpen:
		s.perlOpen(c, rest)
	case runRubyOpen:
		s.rubyOpen(c, rest)
	}
}

// lineArg records the command line sp gives.
func (s *scanner) lineArg(c call, sp span) {
	if v, ok := s.str(sp); ok {
		s.addLine(v)
	} else {
		s.notStatic(c)
	}
}

// argvArg records the command sp gives: a program name, an argv list, or
// an object with one ({cmd: [...]}).
func (s *scanner) argvArg(c call, sp span) {
	if v, ok := s.field(sp, "cmd"); ok {
		sp = v
	}
	if v, ok := s.str(sp); ok {
		s.addArgv(c, []string{v})
		return
	}
	s.argsFrom(c, nil, []span{sp})
}

// argsFrom records the command prog followed by the words of args.
func (s *scanner) argsFrom(c call, prog []string, args []span) {
	ws, ok := s.words(args)
	if !ok {
		s.notStatic(c)
		return
	}
	s.addArgv(c, append(prog, ws...))
}

// system: Ruby's and Perl's system and exec run one string as a command
// line, and several words (or a list) as argv.
func (s *scanner) system(c call, pos []span) {
	if len(pos) == 1 {
		if v, ok := s.str(pos[0]); ok {
			s.addLine(v)
			return
		}
	}
	if len(pos) > 0 {
		s.argsFrom(c, nil, pos)
	}
}

// pySub: subprocess runs an argv list, or a string as a program; with
// shell=True, the string, or the list's first word, is a command line.
func (s *scanner) pySub(c call, pos []span) {
	cmd, found := span{}, len(pos) > 0
	if found {
		cmd = pos[0]
	} else if cmd, found = s.keyword(c.args, "args"); !found {
		return
	}
	shell := false
	if v, ok := s.keyword(c.args, "shell"); ok {
		shell = !s.isFalse(v)
	}
	v, isStr := s.str(cmd)
	ws, _, ok := s.list(cmd)
	switch {
	case isStr && shell:
		s.addLine(v)
	case isStr:
		s.addArgv(c, []string{v})
	case !ok:
		s.notStatic(c)
	case shell && len(ws) > 0:
		s.addLine(ws[0]) // the other words are the shell's $0, $1...
	default:
		s.addArgv(c, ws)
	}
}

// progArgs: spawn(program, [args], {shell}), execFile, Deno.Command(program,
// {args}), pcntl_exec(program, [args]). With shell: true, Node joins the
// program and its arguments with spaces into a command line.
func (s *scanner) progArgs(c call, pos []span) {
	prog, ok := s.str(pos[0])
	if !ok {
		s.notStatic(c)
		return
	}
	words, rest := []string{prog}, pos[1:]
	if len(rest) > 0 && !s.object(rest[0]) && !s.callback(rest[0]) {
		ws, _, ok := s.list(rest[0])
		if !ok {
			s.notStatic(c)
			return
		}
		words, rest = append(words, ws...), rest[1:]
	}
	shell := false
	for _, o := range rest {
		if v, found := s.field(o, "shell"); found {
			shell = !s.isFalse(v)
		}
		if v, found := s.field(o, "args"); found {
			ws, _, ok := s.list(v)
			if !ok {
				s.notStatic(c)
				return
			}
			words = append(words, ws...)
		}
	}
	if shell {
		s.addLine(strings.Join(words, " "))
		return
	}
	s.addArgv(c, words)
}

// callback reports a function argument: function (...) {...}, (e) => ...
func (s *scanner) callback(sp span) bool {
	t := s.toks[sp.lo]
	return t.kind == tName && (t.val == "function" || t.val == "async") || s.hasTop(sp, "=>")
}

// execv: os.execv(program, [argv0, args...]) runs program with args.
func (s *scanner) execv(c call, pos []span) {
	prog, ok := s.str(pos[0])
	if !ok {
		s.notStatic(c)
		return
	}
	var args []string
	if len(pos) > 1 {
		ws, _, ok := s.list(pos[1])
		if !ok {
			s.notStatic(c)
			return
		}
		if len(ws) > 0 {
			args = ws[1:]
		}
	}
	s.addArgv(c, append([]string{prog}, args...))
}

// execl: os.execl(program, argv0, args...[, env]) runs program with args.
func (s *scanner) execl(c call, pos []span, envLast bool) {
	prog, ok := s.str(pos[0])
	if !ok {
		s.notStatic(c)
		return
	}
	var args []span
	if len(pos) > 2 {
		args = pos[2:]
	}
	if envLast && len(args) > 0 {
		args = args[:len(args)-1]
	}
	s.argsFrom(c, []string{prog}, args)
}

// eval scans a static string given to eval as code of the same language.
// Code built at run time makes the scan unknown, but the contents of a
// file named by a literal (exec(open("x").read())), which runs that file
// as python x does.
func (s *scanner) eval(c call, sp span) {
	v, ok := s.str(sp)
	if !ok && s.readsFile(sp) {
		return // exec(open("setup.py").read()) runs a file, as python setup.py does: the effects table's business
	}
	if !ok {
		// exec(base64.b64decode(...)), eval(Buffer.from(...).toString()):
		// code built at run time can do anything.
		s.unknown(fmt.Sprintf("%s evaluates code that is not static: %s", s.form, s.snippet(c)))
		return
	}
	if s.depth >= maxEvalDepth {
		s.unknown(s.form + " program nests eval too deeply to check")
		return
	}
	sub := &scanner{lang: s.lang, form: s.form, binds: s.binds, stars: s.stars, out: s.out, budget: s.budget, depth: s.depth + 1}
	sub.scan(v, false)
}

// readsFile reports a span that is the contents of a file named by a
// literal: open("x").read().
func (s *scanner) readsFile(sp span) bool {
	sp = s.unparen(sp)
	t := s.toks[sp.lo:sp.hi]
	return len(t) == 8 && t[0].kind == tName && t[0].val == "open" && t[1].val == "(" && t[2].kind == tStr && t[2].static &&
		t[3].val == ")" && t[4].val == "." && t[5].val == "read" && t[6].val == "(" && t[7].val == ")"
}

// perlOpen: open(FH, MODE, EXPR...) runs a command with the pipe modes -|
// and |-, and writes with >, >> and +; two-argument open(FH, EXPR) reads
// the mode from EXPR's ends ("| cmd", "cmd |", ">file").
func (s *scanner) perlOpen(c call, pos []span) {
	if len(pos) < 2 {
		return
	}
	if len(pos) > 2 {
		mode, ok := s.str(pos[1])
		mode = strings.TrimSpace(mode)
		switch {
		case !ok || strings.ContainsAny(mode, ">+"):
			s.out.ChangesFiles = true
		case mode == "-|" || mode == "|-":
			s.system(c, pos[2:])
		case strings.HasPrefix(mode, "<"):
			s.noteFile(&s.out.Reads, pos[2])
		}
		return
	}
	e, static := s.str(pos[1])
	if !static {
		e = s.literalText(pos[1])
	}
	e = strings.TrimSpace(e)
	switch {
	case (strings.HasPrefix(e, "|") || strings.HasSuffix(e, "|")) && !static:
		s.notStatic(c)
	case strings.HasPrefix(e, "|"):
		s.addLine(e[1:])
	case strings.HasSuffix(e, "|"):
		s.addLine(e[:len(e)-1])
	case strings.HasPrefix(e, ">") || strings.HasPrefix(e, "+"):
		s.out.ChangesFiles = true
	case static && len(s.out.Reads) < maxCodeFiles:
		s.out.Reads = append(s.out.Reads, strings.TrimSpace(strings.TrimPrefix(e, "<")))
	}
}

// literalText returns the text of a string literal that interpolates
// ("> $file"), or "" for anything else.
func (s *scanner) literalText(sp span) string {
	sp = s.unparen(sp)
	if sp.hi-sp.lo == 1 && s.toks[sp.lo].kind == tStr {
		return s.toks[sp.lo].val
	}
	return ""
}

// rubyOpen: Kernel#open("|cmd") runs cmd; open(f, "w") writes.
func (s *scanner) rubyOpen(c call, pos []span) {
	v, ok := s.str(pos[0])
	switch {
	case ok && strings.HasPrefix(v, "|"):
		s.addLine(v[1:])
	case !ok && strings.HasPrefix(s.literalText(pos[0]), "|"):
		s.notStatic(c)
	case s.writesMode(c, 1):
		s.out.ChangesFiles = true
	}
}

// bindings records imports and aliases, and marks their tokens as no use.
func (s *scanner) bindings() {
	for i := 0; i < len(s.toks) && s.spend(); i++ {
		t := s.toks[i]
		if t.kind != tName {
			continue
		}
		switch {
		case s.lang == "python" && (t.val == "import" || t.val == "from"):
			i = s.pyImport(i)
		case s.lang == "node" && t.val == "import" && !s.isPunct(i+1, "(") && !s.isPunct(i+1, "."):
			i = s.jsImport(i)
		case s.lang == "node" && (t.val == "const" || t.val == "let" || t.val == "var") && s.isPunct(i+1, "{"):
			i = s.jsDestructure(i)
		case s.lang == "ruby" && t.val == "include" && s.isName(i+1):
			s.star(s.toks[i+1].val)
			s.skipTo(i, i+2)
			i++
		case s.lang != "perl" && s.lang != "php" && s.isPunct(i+1, "=") && s.stmtStart(i):
			i = s.alias(i)
		}
	}
}

// stmtStart reports whether a statement (or a JavaScript declaration)
// starts at toks[i]: an assignment there is no keyword argument (f(open=1)).
func (s *scanner) stmtStart(i int) bool {
	if i == 0 {
		return true
	}
	p := s.toks[i-1]
	switch p.val {
	case "\n", ";", "{", "}", ":":
		return p.kind == tPunct
	case "const", "let", "var":
		return p.kind == tName
	}
	return false
}

func (s *scanner) isName(k int) bool { return k < len(s.toks) && s.toks[k].kind == tName }

func (s *scanner) isWord(k int, w string) bool { return s.isName(k) && s.toks[k].val == w }

func (s *scanner) skipTo(lo, hi int) {
	for k := lo; k < hi && k < len(s.skip); k++ {
		s.skip[k] = true
	}
}

// star records a module imported whole; a few are enough for a one-liner
// and keep name lookups cheap.
func (s *scanner) star(m string) {
	if len(s.stars) < 8 && !slices.Contains(s.stars, m) {
		s.stars = append(s.stars, m)
	}
}

// dotted reads a dotted name (os.path) at k; "" when there is none.
func (s *scanner) dotted(k int) (string, int) {
	if !s.isName(k) {
		return "", k
	}
	name := s.toks[k].val
	for k++; s.isPunct(k, ".") && s.isName(k+1) && s.spend(); k += 2 {
		name += "." + s.toks[k+1].val
	}
	return name, k
}

// pyImport reads import a.b [as c], ... and from m import a [as b], ...
// (or *); it returns the last index it read.
func (s *scanner) pyImport(i int) int {
	k, from, paren := i+1, "", false
	if s.toks[i].val == "from" {
		mod, j := s.dotted(k)
		if mod == "" || !s.isWord(j, "import") {
			return i // raise X from Y, yield from x
		}
		from, k = mod, j+1
		paren = s.isPunct(k, "(")
		if paren {
			k++
		}
	}
	for k < len(s.toks) && s.spend() {
		for paren && s.isPunct(k, "\n") { // a parenthesized list spans lines
			k++
		}
		if from != "" && s.isPunct(k, "*") {
			s.star(from)
			k++
		} else {
			name, j := s.dotted(k)
			if name == "" {
				break
			}
			local, full := "", name
			if from != "" {
				local, full = name, from+"."+name
			}
			if s.isWord(j, "as") && s.isName(j+1) {
				local, j = s.toks[j+1].val, j+2
			}
			if local != "" && local != full {
				s.binds[local] = full
			}
			k = j
		}
		if !s.isPunct(k, ",") {
			break
		}
		k++
	}
	for paren && s.isPunct(k, "\n") {
		k++
	}
	if paren && s.isPunct(k, ")") {
		k++
	}
	s.skipTo(i, k)
	return max(i, k-1)
}

// jsImport reads import d, * as ns, {a as b} from 'm'.
func (s *scanner) jsImport(i int) int {
	type local struct{ name, member string }
	var locals []local
	k := i + 1
	for k < len(s.toks) && !s.isWord(k, "from") && s.spend() {
		switch {
		case s.isPunct(k, "*") && s.isWord(k+1, "as") && s.isName(k+2):
			locals = append(locals, local{s.toks[k+2].val, ""})
			k += 3
		case s.isPunct(k, "{"):
			end := min(s.match[k], len(s.toks))
			for _, e := range s.split(k+1, end) {
				if e.lo < e.hi && s.isName(e.lo) {
					name := s.toks[e.lo].val
					l := local{name, name}
					if s.isWord(e.lo+1, "as") && s.isName(e.lo+2) {
						l.name = s.toks[e.lo+2].val
					}
					locals = append(locals, l)
				}
			}
			k = end + 1
		case s.isName(k):
			locals = append(locals, local{s.toks[k].val, ""})
			k++
		case s.isPunct(k, ","):
			k++
		default:
			return i
		}
	}
	if !s.isWord(k, "from") || k+1 >= len(s.toks) || s.toks[k+1].kind != tStr {
		return i
	}
	mod := jsModule(s.toks[k+1].val)
	for _, l := range locals {
		s.binds[l.name] = mod
		if l.member != "" && l.member != "default" {
			s.binds[l.name] = mod + "." + l.member
		}
	}
	s.skipTo(i, k+2)
	return k + 1
}

// jsDestructure reads const {a, b: c} = require('m') (or = some.chain).
func (s *scanner) jsDestructure(i int) int {
	end := s.match[i+1]
	if !s.isPunct(end+1, "=") || !s.isName(end+2) {
		return i
	}
	src, after := s.chain(end + 2)
	if s.isPunct(after, "(") || s.isPunct(after, ".") || s.isPunct(after, "[") {
		return i // the value of a call, or of something the chain does not follow
	}
	for _, e := range s.split(i+2, end) {
		if e.lo >= e.hi || !s.isName(e.lo) {
			continue
		}
		name, local := s.toks[e.lo].val, s.toks[e.lo].val
		if s.isPunct(e.lo+1, ":") && s.isName(e.lo+2) {
			local = s.toks[e.lo+2].val
		}
		s.binds[local] = src + "." + name
	}
	s.skipTo(i, after)
	return after - 1
}

// alias reads name = chain, where the chain is not called: sp =
// subprocess, r = shutil.rmtree, cp = require('child_process').
func (s *scanner) alias(i int) int {
	if !s.isName(i + 2) {
		return i
	}
	src, after := s.chain(i + 2)
	if s.isPunct(after, "(") || s.isPunct(after, "[") || after < len(s.toks) && s.toks[after].kind == tStr {
		return i
	}
	s.binds[s.toks[i].val] = src
	s.skipTo(i, after)
	return after - 1
}
