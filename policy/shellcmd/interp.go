package shellcmd

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// CodeScan is what a static look at an interpreter one-liner finds.
//
// It recognises API calls by their names in the code, outside strings and
// comments, through module aliases (import shutil as sh; from shutil
// import rmtree; const fs = require('fs'); const {execSync} =
// require('child_process'); include FileUtils), and through members named
// by literals (getattr(os, "system"), cp["execSync"]). It does not follow
// values through variables: a call that runs a command line given by
// anything but literals is Unknown, and so is reaching a function by a
// name built at run time (getattr(os, "sys" + "tem"), require(m), Ruby's
// send, Perl's &{...}, new Function) or evaluating code that is not a
// literal (exec(b64decode(...))). In awk, the command lines are those of
// system(CMD), print | CMD and CMD | getline. Lua, R, Julia, Tcl and
// AppleScript are read only for their APIs' names (see scanForeign).
type CodeScan struct {
	Lang string // "python", "node" (also bun and deno), "ruby", "perl", "php", "awk", "lua", "r", "julia", "tcl", "applescript"
	Code string // the program text (all -e parts joined with newlines)

	// DeletesRecursively reports a recursive-delete API, whatever its
	// path: shutil.rmtree; fs.rm, fs.rmSync, fs.rmdir, fs.rmdirSync (also
	// fs.promises and Deno.remove) with recursive: true (or options that
	// are not a literal); FileUtils.rm_rf, rm_r, remove_dir, rmtree,
	// remove_entry, remove_entry_secure; Perl's rmtree and remove_tree
	// (File::Path, or a method of that name); Ruby's Pathname#rmtree.
	DeletesRecursively bool

	// DeletesOnly holds, when every recursive delete of the code names its
	// folder with a literal, those folders; nil otherwise (a path built at
	// run time, an API read only by its name, no recursive delete).
	DeletesOnly []string

	// ChangesFiles reports code that writes, appends, creates, copies,
	// moves, renames, deletes or chmods files or directories: open with a
	// writing mode, Path.write_text..., os.remove..., shutil.copy...,
	// fs.writeFile..., File.write..., FileUtils.*, Perl's unlink, rename,
	// open(FH, '>'...) and the -i option (also Ruby's), PHP's
	// file_put_contents..., awk's print > FILE (but /dev/stdout,
	// /dev/stderr, /dev/null) and gawk's -i inplace... A recursive
	// delete changes files too. A mode or flags argument that is not a
	// literal counts as writing. The command lines of Runs are not
	// counted here: they are walked as commands.
	ChangesFiles bool

	// Reads holds the files the code reads, where their paths are
	// literals: open and its kin with a mode that does not write (Python's
	// open, io.open, codecs.open; fs.open; File.open; fopen; Perl's open
	// with < or no mode), fs.readFile(Sync), fs.createReadStream, Deno's
	// readFile and readTextFile, File.read, IO.read, File.readlines,
	// File.foreach, file_get_contents, readfile, file, and Python's
	// Path(...).read_text() and read_bytes(). Up to 64.
	Reads []string

	// Writes holds the files the code changes, where their paths are
	// literals: the file of open and its kin with a writing mode, the
	// first two arguments of the APIs that always change files
	// (os.rename(a, b), shutil.copy(src, dst), fs.writeFileSync(f, ...),
	// unlink, rmtree) and Python's Path(...).write_text(), unlink(), ...
	// Up to 64.
	Writes []string

	// Runs holds the command lines the code runs, in source order. A
	// command line given as an argv list ([rm, -rf, /]) is joined with its
	// words shell-quoted.
	Runs []string

	// Unknown is non-empty when the code runs a command line that is not
	// static (a variable, an f-string, a template with ${}, % formatting,
	// a concatenation with a name), or when the code is too large or too
	// deeply nested to read whole. It says why.
	Unknown string

	// fed holds the indexes in Runs, ascending, of the command lines that
	// read what the program writes to them (awk's print | "sh").
	fed []int
}

// ScanCode looks at one unwrapped command (argv as in [Command.Argv]); ok
// is false when it is not an interpreter one-liner: python -c, node -e or
// -p (also nodejs, bun -e, deno eval), ruby -e, perl -e or -E, php -r (also
// -B, -R, -E), awk (gawk, mawk, nawk) with its program. It reads argv as
// literal text: Parse also scans programs fed on standard input and knows
// which words are not static, so prefer [Command.Code] for a parsed line.
func ScanCode(argv []string) (scan CodeScan, ok bool) {
	if len(argv) == 0 {
		return CodeScan{}, false
	}
	ol, ok := oneLinerOf(path.Base(argv[0]), lits(argv))
	if !ok || ol.stdin || ol.why != "" || ol.missing != "" {
		return CodeScan{}, false
	}
	src, _ := ol.program()
	return scanCode(ol, src), true
}

// oneLiner is an interpreter command whose program is written in the line
// (python -c CODE) or fed on its standard input (python3 - <<EOF).
type oneLiner struct {
	lang    string // as CodeScan.Lang
	form    string // how the program is given, for reasons: "python3 -c"
	parts   []word // the program (several -e parts); none when it comes on stdin
	stdin   bool
	inPlace bool   // perl -i, ruby -i, gawk -i inplace: the program edits its file operands in place
	loop    bool   // perl -n or -p, ruby -n or -p: the program runs on each line of its file operands
	files   []word // the operands after the program: its arguments, or the files it reads
	why     string // non-empty: the options cannot be read statically
	// missing names the program when it is not written (awk alone): an
	// enclosing xargs or parallel appends it at run time, if any.
	missing string
}

// program joins the parts of the program with newlines, as perl and ruby
// do with several -e; why is set when a part is not static.
func (ol oneLiner) program() (src, why string) {
	ss := make([]string, len(ol.parts))
	for i, p := range ol.parts {
		if p.dyn {
			return "", fmt.Sprintf("%s program is not static: %s", ol.form, p.s)
		}
		ss[i] = p.s
	}
	return strings.Join(ss, "\n"), ""
}

// interpOpts describes the options of an interpreter as it reads them.
type interpOpts struct {
	lang   string
	code   string // letters that take a program part: the rest of the word, or the next word
	arg    string // letters that take an argument: the rest of the word, or the next word
	rest   string // letters that take the rest of the word, if any (-i.bak, -Mstrict)
	octal  string // letters that take the octal digits that follow (-l0, -0777; -0x1f)
	script string // letters whose argument is a program file or module (-m, -f): no one-liner
	loop   string // letters that run the program on each line of the file operands (-n, -p)
	// firstCode: the first program part ends the options (python -c).
	firstCode bool
	inPlace   byte // the letter that edits files in place, or 0
	// Long options, space separated, that take a program part, that take
	// a value (--name V or --name=V), and whose value is a program file.
	longCode, longArg, longScript string
	// Options whose value is a module loaded before the program (node
	// --import, -r): a data: URL there is code.
	module, longModule string
}

// Option tables of the interpreters, plain values so that nothing runs at
// package initialisation.
var (
	pythonOpts = interpOpts{lang: "python", code: "c", arg: "WXQ", script: "m", firstCode: true, longArg: "check-hash-based-pycs"}
	rubyOpts   = interpOpts{
		lang: "ruby", code: "e", arg: "rICE", rest: "ixFWKT", octal: "0", inPlace: 'i', loop: "np",
		longArg: "enable disable encoding external-encoding internal-encoding dump backtrace-limit crash-report",
	}
	perlOpts = interpOpts{lang: "perl", code: "eE", arg: "I", rest: "MmiFCxdDV", octal: "l0", inPlace: 'i', loop: "np"}
	phpOpts  = interpOpts{
		lang: "php", code: "rBRE", arg: "dczt", script: "fFS",
		longCode: "run process-begin process-code process-end", longArg: "define php-ini zend-extension rf rc re ri rz",
		longScript: "file process-file",
	}
	nodeOpts = interpOpts{
		lang: "node",
		longArg: "require import loader experimental-loader conditions input-type env-file title inspect-port " +
			"debug-port disable-warning redirect-warnings openssl-config icu-data-dir dns-result-order " +
			"unhandled-rejections watch-path test-reporter test-reporter-destination diagnostic-dir report-dir " +
			"heapsnapshot-signal max-http-header-size secure-heap",
		arg:    "rC",
		module: "r", longModule: "require import loader experimental-loader",
	}
	bunOpts = interpOpts{lang: "node", longArg: "preload cwd config env-file tsconfig-override", arg: "rc",
		module: "r", longModule: "preload"}
)

// versioned reports whether name is base or base followed by a version:
// python3, python3.12, ruby3.2, php8.
func versioned(name, base string) bool {
	v, ok := strings.CutPrefix(name, base)
	return ok && strings.Trim(v, "0123456789.") == ""
}

// oneLinerOf recognises an interpreter one-liner; l[0] is named name.
func oneLinerOf(name string, l []word) (oneLiner, bool) {
	switch {
	case versioned(name, "python") || versioned(name, "pypy"):
		return clusterArgs(name, l, &pythonOpts)
	case versioned(name, "ruby"):
		return clusterArgs(name, l, &rubyOpts)
	case versioned(name, "perl"):
		return clusterArgs(name, l, &perlOpts)
	case versioned(name, "php"):
		return clusterArgs(name, l, &phpOpts)
	case name == "node" || name == "nodejs":
		return nodeArgs(name, l, &nodeOpts)
	case name == "bun":
		return nodeArgs(name, l, &bunOpts)
	case name == "deno":
		return denoArgs(name, l)
	case isAwk(name):
		return awkArgs(name, l)
	}
	return foreignOneLiner(name, l)
}

// clusterArgs reads the options of python, ruby, perl and php, whose short
// options cluster (-uc, -lne, -pi.bak). Without a program part, no operand
// or "-" means the program comes on standard input; any other operand is a
// program file, so the command is no one-liner.
func clusterArgs(name string, l []word, o *interpOpts) (oneLiner, bool) {
	ol := oneLiner{lang: o.lang}
	i := 1
	for i < len(l) {
		x := l[i]
		if x.dyn {
			if !stopsOptions(x) {
				return oneLiner{lang: o.lang, why: fmt.Sprintf("%s: option or program %q is not static", name, x.s)}, true
			}
			break
		}
		s := x.s
		if s == "--" {
			i++
			break
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		next, stop, one := o.option(name, l, i, &ol)
		if !one {
			return oneLiner{}, false
		}
		i = next
		if stop {
			ol.files = l[min(i, len(l)):]
			return ol, true
		}
	}
	return operands(name, ol, l, i)
}

// stopsOptions reports whether a word that is not static is read as the
// operand that ends the options: quoted, and not an option ("$SCRIPT").
// An unquoted expansion may hold options and a program.
func stopsOptions(x word) bool { return !x.multi && !strings.HasPrefix(x.s, "-") }

// operands decides what the words from l[i] are once options end.
func operands(name string, ol oneLiner, l []word, i int) (oneLiner, bool) {
	switch {
	case len(ol.parts) > 0:
		ol.files = l[min(i, len(l)):]
		return ol, true
	case i >= len(l) || !l[i].dyn && (l[i].s == "-" || stdinFile(l[i].s)):
		ol.stdin, ol.form = true, name+" (program on standard input)"
		return ol, true
	}
	return oneLiner{}, false // a program file: the effects table's business
}

// option reads the option word l[i] into ol. It returns the index of the
// next word, whether the options end with it (python -c), and one=false
// when the command is no one-liner (python -m, php -f).
func (o *interpOpts) option(name string, l []word, i int, ol *oneLiner) (next int, stop, one bool) {
	s := l[i].s
	if long, ok := strings.CutPrefix(s, "--"); ok {
		n, v, eq := strings.Cut(long, "=")
		switch {
		case hasWord(o.longScript, n):
			return 0, false, len(ol.parts) > 0
		case hasWord(o.longCode, n) && eq:
			ol.add(name+" --"+n, word{s: v})
		case hasWord(o.longCode, n) && i+1 < len(l):
			ol.add(name+" --"+n, l[i+1])
			i++
		case hasWord(o.longArg, n) && !eq:
			i++
		}
		return i + 1, false, true
	}
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case strings.IndexByte(o.code, c) >= 0:
			part, n := attachedOrNext(l, i, j)
			if n < 0 {
				return 0, false, false // -c without its program: the interpreter fails
			}
			ol.add(name+" -"+string(c), part)
			return n, o.firstCode, true
		case strings.IndexByte(o.script, c) >= 0:
			return 0, false, len(ol.parts) > 0
		case strings.IndexByte(o.arg, c) >= 0:
			_, n := attachedOrNext(l, i, j)
			return max(n, i+1), false, true
		case strings.IndexByte(o.rest, c) >= 0:
			if o.lang == "perl" && (c == 'M' || c == 'm') && !plainPerlModule(s[j+1:]) {
				// perl makes -M'strict;system(...)' the code `use strict;system(...);`
				ol.add(name+" -"+string(c), word{s: "use " + s[j+1:] + ";"})
			}
			ol.inPlace = ol.inPlace || c == o.inPlace
			return i + 1, false, true
		case strings.IndexByte(o.octal, c) >= 0:
			j += octalLen(c, s[j+1:])
		case strings.IndexByte(o.loop, c) >= 0:
			ol.loop = true
		}
	}
	return i + 1, false, true
}

// plainPerlModule reports a module perl's -M or -m loads with no code:
// a name, with -MName=a,b its import list.
func plainPerlModule(spec string) bool {
	name, list, _ := strings.Cut(strings.TrimPrefix(spec, "-"), "=")
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r == ':' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	for _, r := range list {
		if !(r == '_' || r == ':' || r == ',' || r == '.' || r == '-' || r == '/' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// attachedOrNext returns the argument of the option letter at l[i].s[j]:
// the rest of the word, or the next word; n is the index of the word after
// it, or -1 when there is none.
func attachedOrNext(l []word, i, j int) (arg word, n int) {
	if s := l[i].s; j+1 < len(s) {
		return word{s: s[j+1:]}, i + 1
	}
	if i+1 < len(l) {
		return l[i+1], i + 2
	}
	return word{}, -1
}

// octalLen is how many bytes of rest perl -l, -0 and ruby -0 take: octal
// digits, or x and hexadecimal digits after -0.
func octalLen(c byte, rest string) int {
	if c == '0' && strings.HasPrefix(rest, "x") {
		return 1 + len(rest[1:]) - len(strings.TrimLeft(rest[1:], "0123456789abcdefABCDEF"))
	}
	return len(rest) - len(strings.TrimLeft(rest, "01234567"))
}

func hasWord(list, w string) bool {
	return w != "" && strings.Contains(" "+list+" ", " "+w+" ")
}

// add appends a program part; the first one names the form.
func (ol *oneLiner) add(form string, part word) {
	if len(ol.parts) == 0 {
		ol.form = form
	}
	ol.parts = append(ol.parts, part)
}

// nodeArgs reads the options of node and bun, which do not cluster: -e
// and -p (--eval, --print, node's -pe) take the program, which the last
// one gives.
func nodeArgs(name string, l []word, o *interpOpts) (oneLiner, bool) {
	ol := oneLiner{lang: "node"}
	var modules []word // the code of data: URLs loaded before the program
	i := 1
	for i < len(l) {
		x, s := l[i], l[i].s
		n, v, eq := strings.Cut(strings.TrimPrefix(s, "--"), "=")
		if !x.dyn && (strings.HasPrefix(s, "--") && hasWord(o.longModule, n) || len(s) == 2 && s[0] == '-' && strings.IndexByte(o.module, s[1]) >= 0) {
			m := word{s: v, dyn: x.dyn}
			if !eq && i+1 < len(l) {
				m = l[i+1]
			}
			code, why := moduleCode(name, s, m)
			if why != "" {
				return oneLiner{lang: "node", why: why}, true
			}
			if code != "" {
				modules = append(modules, word{s: code})
			}
		}
		switch {
		case eq && strings.HasPrefix(s, "--") && (n == "eval" || n == "print"):
			ol.parts = nil
			ol.add(name+" --"+n, word{s: v, dyn: x.dyn})
			i++
			continue
		case x.dyn:
			if !stopsOptions(x) {
				return oneLiner{lang: "node", why: fmt.Sprintf("%s: option or program %q is not static", name, s)}, true
			}
		case s == "--":
			i++
		case s == "-e" || s == "--eval" || s == "-p" || s == "--print" || s == "-pe":
			if i+1 >= len(l) {
				return oneLiner{}, false
			}
			ol.parts = nil
			ol.add(name+" "+s, l[i+1])
			i += 2
			continue
		case len(s) > 1 && s[0] == '-':
			if !eq && (strings.HasPrefix(s, "--") && hasWord(o.longArg, n) || len(s) == 2 && strings.IndexByte(o.arg, s[1]) >= 0) {
				i++
			}
			i++
			continue
		}
		break
	}
	if len(modules) > 0 {
		if len(ol.parts) == 0 {
			ol.form = name + " --import data:"
		}
		ol.parts = append(modules, ol.parts...)
	}
	return operands(name, ol, l, i)
}

// moduleCode is the program a module option's value m holds when it is a
// data: URL (node --import 'data:text/javascript,CODE', percent-encoded or
// base64), "" for a module file. why says a value that is not static, or
// a data: URL that does not decode.
func moduleCode(name, option string, m word) (code, why string) {
	if m.dyn {
		return "", fmt.Sprintf("%s %s: module %q is not static (a data: URL is code)", name, option, m.s)
	}
	rest, ok := strings.CutPrefix(m.s, "data:")
	if !ok {
		return "", ""
	}
	header, data, ok := strings.Cut(rest, ",")
	if strings.HasSuffix(header, ";base64") {
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			b, err = base64.RawStdEncoding.DecodeString(data)
		}
		if ok && err == nil {
			return string(b), ""
		}
	} else if s, err := url.PathUnescape(data); ok && err == nil {
		return s, ""
	}
	return "", fmt.Sprintf("%s %s: a data: URL that does not decode", name, option)
}

// denoArgs reads deno eval [OPTIONS] CODE [ARGS].
func denoArgs(name string, l []word) (oneLiner, bool) {
	i := 1
	for i < len(l) && !l[i].dyn && strings.HasPrefix(l[i].s, "-") {
		i++
	}
	if i >= len(l) || l[i].dyn || l[i].s != "eval" {
		return oneLiner{}, false
	}
	for i++; i < len(l) && !l[i].dyn && strings.HasPrefix(l[i].s, "-") && l[i].s != "--"; i++ {
		n, _, eq := strings.Cut(l[i].s, "=")
		if !eq && hasWord("--ext -c --config --import-map --location --seed --cert --lock", n) {
			i++
		}
	}
	if i < len(l) && l[i].s == "--" && !l[i].dyn {
		i++
	}
	if i >= len(l) {
		return oneLiner{}, false
	}
	ol := oneLiner{lang: "node"}
	ol.add(name+" eval", l[i])
	return ol, true
}

// interpreter records what the program of an interpreter one-liner does
// and walks the command lines it runs, one level deeper, like a bash -c
// body. A program on standard input comes from a heredoc or here-string,
// or from a static echo or printf piped to it (see pipedScript); fed
// otherwise, it is read at run time, like python3 script.py: the effects
// table's business.
func (w *walker) interpreter(idx int, ol oneLiner, redirs []*syntax.Redirect, appendBy string) {
	cmds := w.st.line.Commands
	switch {
	case ol.why != "":
		cmds[idx].Unknown = ol.why
		return
	case ol.missing != "":
		if appendBy != "" {
			cmds[idx].Unknown = fmt.Sprintf("%s supplied at run time by %s", ol.missing, appendBy)
		}
		return
	case !ol.stdin:
		src, why := ol.program()
		if why != "" {
			cmds[idx].Unknown = why
			return
		}
		w.code(idx, ol, src)
		return
	case appendBy != "":
		return // xargs or parallel append program files
	}
	src, ok, why := heredocScript(w, redirs)
	switch {
	case why != "":
		cmds[idx].Unknown = ol.form + ": " + why
	case ok && src != "":
		w.code(idx, ol, src)
	case !ok:
		w.st.meta[idx].stdinCode = &ol
	}
}

// code scans the program src of the one-liner at idx.
func (w *walker) code(idx int, ol oneLiner, src string) {
	w.st.bodyBytes += len(src)
	if w.st.bodyBytes > maxBodyBytes {
		w.st.line.Commands[idx].Unknown = fmt.Sprintf("nested bodies exceed %d bytes", maxBodyBytes)
		return
	}
	scan := scanCode(ol, src)
	w.st.line.Commands[idx].Code = &scan
	fed := scan.fed // ascending
	for k, r := range scan.Runs {
		start, pipes := len(w.st.line.Commands), len(w.st.line.Pipelines)
		w.body(idx, script{src: r})
		if len(fed) > 0 && fed[0] == k {
			fed = fed[1:]
			w.fedScripts(ol.form, start, pipes)
		}
	}
	if c := &w.st.line.Commands[idx]; scan.Unknown != "" && c.Unknown == "" {
		c.Unknown = scan.Unknown
	}
}

// fedScripts marks unknown the shells and interpreters, among the commands
// from start of a body that reads a one-liner's output (awk's print |
// "sh"), that read their script from standard input: that output, unless
// a pipe of their own feeds them (pipedScript judged those).
func (w *walker) fedScripts(form string, start, pipes int) {
	line := w.st.line
	piped := map[int]bool{}
	for _, p := range line.Pipelines[pipes:] {
		for _, stage := range p[1:] {
			if len(stage) > 0 {
				piped[stage[0]] = true
			}
		}
	}
	for k := start; k < len(line.Commands); k++ {
		c, m := &line.Commands[k], w.st.meta[k]
		if (m.stdinShell || m.stdinCode != nil) && !piped[k] && c.Unknown == "" {
			c.Unknown = fmt.Sprintf("%s reads its script from the output of %s, which is not static", c.Argv[0], form)
		}
	}
}
