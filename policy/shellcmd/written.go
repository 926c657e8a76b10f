package shellcmd

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A script the line writes and then runs (echo 'rm -rf ~' > x.sh && sh
// x.sh; curl -o i.sh URL; bash i.sh) is judged by what the line wrote in
// it: its text, when an echo, printf or a heredoc wrote it whole, walked
// as the script's body; else the command that runs it is unknown.

// writtenFile is what the line wrote in a file.
type writtenFile struct {
	by       string // the program that wrote it
	data     string // its whole text, when known
	known    bool
	download bool // curl or wget wrote it
}

// recordWrites notes the files the command at idx (named name, its words
// inner) writes: its redirections, and the output files of curl, wget and
// tee. A > redirection of an echo or printf of static text (m), or of cat
// fed a static heredoc, writes a known text.
func (w *walker) recordWrites(idx int, name string, inner []word, m cmdMeta, stmtRedirs []*syntax.Redirect) {
	c := &w.st.line.Commands[idx]
	for _, r := range c.Redirects {
		if !r.File || !r.Write || r.Dynamic {
			continue
		}
		f := writtenFile{by: name, download: name == "curl" || name == "wget"}
		if r.Op == ">" || r.Op == "1>" || r.Op == ">|" {
			switch {
			case m.hasData:
				f.data, f.known = m.data, true
			case name == "cat" && len(inner) == 1:
				if src, ok, why := heredocScript(w, stmtRedirs); ok && why == "" && src != "" {
					f.data, f.known = src, true
				}
			}
		}
		w.wrote(r.Target, f)
	}
	args := inner[1:]
	switch name {
	case "curl":
		for _, v := range ProgramOptions("curl").Split(strs(args)).Values("o", "output") {
			if v != "-" && !DynamicWord(v) {
				w.wrote(v, writtenFile{by: name, download: true})
			}
		}
	case "wget":
		// -O FILE, -qO FILE, -OFILE, --output-document[=]FILE.
		for i, a := range args {
			if a.dyn {
				continue
			}
			v, next := "", i+1 < len(args) && !args[i+1].dyn
			switch {
			case a.s == "--output-document" && next:
				v = args[i+1].s
			case strings.HasPrefix(a.s, "--output-document="):
				v = strings.TrimPrefix(a.s, "--output-document=")
			case !strings.HasPrefix(a.s, "--") && strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "O"):
				v = a.s[strings.IndexByte(a.s, 'O')+1:]
				if v == "" && next {
					v = args[i+1].s
				}
			}
			if v != "" && v != "-" {
				w.wrote(v, writtenFile{by: name, download: true})
			}
		}
	case "tee":
		for _, a := range args {
			if !a.dyn && !strings.HasPrefix(a.s, "-") {
				w.wrote(a.s, writtenFile{by: name})
			}
		}
	}
}

func (w *walker) wrote(file string, f writtenFile) {
	if w.st.written == nil {
		w.st.written = map[string]writtenFile{}
	}
	w.st.written[path.Clean(file)] = f
}

// runsWritten judges the command at idx when it runs a script the line
// wrote earlier: a shell's or source's script file (b.file), a program
// run by its path (./x.sh), or an interpreter's program file.
func (w *walker) runsWritten(idx int, name string, inner []word, b bodyResult) {
	if len(w.st.written) == 0 {
		return
	}
	file, shell := b.file, b.file != ""
	if c := &w.st.line.Commands[idx]; file == "" && strings.Contains(c.Path, "/") {
		file = c.Path // ./x.sh: a shell script unless its first line names another interpreter
		if f, ok := w.st.written[path.Clean(file)]; ok && f.known {
			shell = !strings.HasPrefix(f.data, "#!") || strings.HasPrefix(f.data, "#!/bin/sh") || strings.HasPrefix(f.data, "#!/bin/bash") ||
				strings.HasPrefix(f.data, "#!/usr/bin/env bash") || strings.HasPrefix(f.data, "#!/usr/bin/env sh")
		}
	}
	if file == "" && isInterpreter(name) {
		for _, a := range inner[1:] {
			if !strings.HasPrefix(a.s, "-") {
				if !a.dyn {
					file = a.s
				}
				break
			}
		}
	}
	f, ok := w.st.written[path.Clean(file)]
	if file == "" || !ok {
		return
	}
	c := &w.st.line.Commands[idx]
	switch {
	case f.known && shell:
		w.body(idx, script{src: f.data})
	case f.download:
		c.Unknown = fmt.Sprintf("%s runs %s, which %s downloads earlier in the line", name, file, f.by)
	default:
		c.Unknown = fmt.Sprintf("%s runs %s, which %s writes earlier in the line", name, file, f.by)
	}
}

// isInterpreter reports the programs whose first operand is a program file
// they run (python x.py).
func isInterpreter(name string) bool {
	for _, base := range []string{"python", "pypy", "ruby", "perl", "php", "lua"} {
		if versioned(name, base) {
			return true
		}
	}
	switch name {
	case "node", "nodejs", "bun", "deno", "Rscript", "julia", "tclsh", "expect", "osascript":
		return true
	}
	return false
}
