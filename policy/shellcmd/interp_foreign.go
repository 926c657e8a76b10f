package shellcmd

import (
	"fmt"
	"slices"
	"strings"
)

// Interpreters whose programs this reading does not parse: Lua, R, Julia,
// Tcl (with expect) and AppleScript. Their one-liners are read for the
// names of the APIs that run command lines, change files or evaluate
// code, anywhere in the program (inside strings too, so that
// os["execute"] counts). A command line given to such an API as one
// literal is walked as a command (lua -e 'os.execute("rm -rf ~")' runs rm
// -rf ~); any other use makes the one-liner unknown. So benign one-liners
// (Rscript -e 'devtools::test()') stay known, and the rest is asked about.

var (
	luaOpts       = interpOpts{lang: "lua", code: "e", arg: "l"}
	rOpts         = interpOpts{lang: "r", code: "e", longArg: "encoding"}
	juliaOpts     = interpOpts{lang: "julia", code: "eE", arg: "ptJLCOgm", longCode: "eval print", longArg: "load sysimage"}
	tclOpts       = interpOpts{lang: "tcl", longArg: "encoding"}
	expectOpts    = interpOpts{lang: "tcl", code: "c", arg: "D", script: "f"}
	osascriptOpts = interpOpts{lang: "applescript", code: "e", arg: "ls"}
)

// foreignOneLiner recognises the one-liners of those interpreters.
func foreignOneLiner(name string, l []word) (oneLiner, bool) {
	switch {
	case versioned(name, "lua") || versioned(name, "luajit"):
		return clusterArgs(name, l, &luaOpts)
	case name == "Rscript" || name == "R":
		return clusterArgs(name, l, &rOpts)
	case versioned(name, "julia"):
		return clusterArgs(name, l, &juliaOpts)
	case versioned(name, "tclsh") || versioned(name, "wish"):
		return clusterArgs(name, l, &tclOpts)
	case name == "expect":
		return clusterArgs(name, l, &expectOpts)
	case name == "osascript":
		return clusterArgs(name, l, &osascriptOpts)
	}
	return oneLiner{}, false
}

// foreignAPIs are, per language, the names that run command lines, change
// files or evaluate code; runners are those among them whose first
// argument is a command line. ok is false for a language that is not one
// of these. A switch, so that nothing runs at package initialisation.
func foreignAPIs(lang string) (names, runners []string, ok bool) {
	switch lang {
	case "lua":
		return []string{"execute", "popen", "remove", "rename", "rmdir", "lfs", "load", "loadstring", "dofile", "loadfile", "open"},
			[]string{"execute", "popen"}, true
	case "r":
		return []string{"system", "system2", "shell", "shell.exec", "pipe", "unlink", "file.remove", "file.rename", "file.copy",
				"file.create", "file.append", "writeLines", "write", "sink", "eval", "evalq", "parse", "source", "sys.source",
				"processx", "callr", "sys", "download.file", "Sys.chmod", "do.call", "get", "match.fun"},
			[]string{"system", "shell"}, true
	case "julia":
		return []string{"run", "pipeline", "rm", "mv", "cp", "write", "open", "eval", "include", "include_string",
			"ccall", "Meta", "chmod", "download", "getfield"}, nil, true
	case "tcl":
		return []string{"exec", "spawn", "system", "open", "file", "eval", "source", "uplevel", "interp", "send"},
			[]string{"exec", "spawn", "system"}, true
	case "applescript":
		return []string{"shell", "delete", "run", "load", "store", "write", "move", "duplicate"}, []string{"shell"}, true
	}
	return nil, nil, false
}

// scanForeign reads a foreign one-liner into out (see foreignAPIs).
func scanForeign(form, src string, out *CodeScan) {
	names, runners, _ := foreignAPIs(out.Lang)
	identChar := func(c byte) bool {
		return isIdentChar(c) || out.Lang == "r" && c == '.'
	}
	for i := 0; i < len(src); {
		if src[i] == '`' && out.Lang == "julia" { // a command literal: `rm -rf ~`
			end := strings.IndexByte(src[i+1:], '`')
			if end < 0 || strings.ContainsAny(src[i+1:i+1+end], "$\\") {
				out.Unknown = fmt.Sprintf("%s holds a command that is not a plain literal", form)
				return
			}
			out.addRun(src[i+1 : i+1+end])
			i += end + 2
			continue
		}
		if !identChar(src[i]) {
			i++
			continue
		}
		j := i
		for j < len(src) && identChar(src[j]) {
			j++
		}
		name := src[i:j]
		i = j
		if !slices.Contains(names, name) {
			continue
		}
		if out.Lang == "julia" && name == "run" && strings.HasPrefix(strings.TrimLeft(src[j:], " \t"), "(`") {
			continue // run(`cmd`): the command literal is walked where it is
		}
		if slices.Contains(runners, name) {
			if cmd, ok := foreignCommand(out.Lang, src[j:]); ok {
				out.addRun(cmd)
				continue
			}
		}
		if out.Unknown == "" {
			out.Unknown = fmt.Sprintf("%s uses %s, which this reading of %s does not follow", form, name, out.Lang)
		}
	}
	switch out.Lang {
	case "r":
		out.DeletesRecursively = strings.Contains(src, "unlink") && strings.Contains(src, "recursive")
	case "julia":
		out.DeletesRecursively = strings.Contains(src, "rm") && strings.Contains(src, "recursive")
	case "tcl":
		out.DeletesRecursively = strings.Contains(src, "delete") && strings.Contains(src, "-force")
	}
	out.ChangesFiles = out.ChangesFiles || out.DeletesRecursively
}

// foreignCommand reads the command line a runner API is given, from the
// text after its name: one string literal, alone as the argument
// (os.execute("rm -rf ~"), system('ls'), do shell script "ls"), or for
// Tcl the words up to the end of the command (exec rm -rf ~). ok is false
// for anything else: a variable, a concatenation, a substitution.
func foreignCommand(lang, rest string) (string, bool) {
	if lang == "tcl" {
		end := strings.IndexAny(rest, ";]\n")
		if end < 0 {
			end = len(rest)
		}
		cmd := strings.TrimSpace(rest[:end])
		return cmd, cmd != "" && !strings.ContainsAny(cmd, "$[{}\"\\")
	}
	s := strings.TrimLeft(rest, " \t")
	if lang == "applescript" {
		t, ok := strings.CutPrefix(s, "script")
		if !ok {
			return "", false
		}
		s = strings.TrimLeft(t, " \t")
	}
	paren := strings.HasPrefix(s, "(")
	if paren {
		s = strings.TrimLeft(s[1:], " \t")
	}
	if s == "" || s[0] != '"' && s[0] != '\'' {
		return "", false
	}
	q := s[0]
	end := strings.IndexByte(s[1:], q)
	if end < 0 || strings.ContainsRune(s[1:1+end], '\\') {
		return "", false
	}
	cmd, after := s[1:1+end], strings.TrimLeft(s[2+end:], " \t")
	switch {
	case paren && (strings.HasPrefix(after, ")") || strings.HasPrefix(after, ",") && lang == "lua"):
	case !paren && (after == "" || after[0] == '\n' || after[0] == ';'):
	default:
		return "", false
	}
	return cmd, true
}
