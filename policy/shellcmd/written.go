package shellcmd

import (
	"fmt"
	"path"
	"slices"
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
	download bool // a downloader (curl, wget, ...) wrote it
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
	case "curl", "wget", "aria2c", "http", "https", "xh", "xhs":
		w.downloads(name, args)
	case "tee":
		for _, a := range args {
			if !a.dyn && !strings.HasPrefix(a.s, "-") {
				w.wrote(a.s, writtenFile{by: name})
			}
		}
	case "git":
		if !slices.ContainsFunc(args, func(a word) bool { return a.s == "clone" }) {
			return // most git commands: no copy of the words to read
		}
		if dir, ok := clonedInto(strs(args)); ok {
			w.st.cloned = append(w.st.cloned, path.Clean(dir))
		}
	}
}

// gitCloneValues are git clone's options that take the next word.
var gitCloneValues = []string{"-b", "--branch", "-o", "--origin", "-c", "--config", "-u", "--upload-pack", "-j", "--jobs",
	"--depth", "--reference", "--reference-if-able", "--template", "--separate-git-dir", "--shallow-since",
	"--shallow-exclude", "--server-option", "--bundle-uri", "--ref-format", "--filter"}

// clonedInto reads git clone REPO [DIR] (args past git): the folder it
// fills with the repository's files, by default the repository's last
// path element without .git. ok is false for another subcommand, and for
// a folder that is not static.
func clonedInto(args []string) (dir string, ok bool) {
	_, sub, rest := GitSplit(args)
	if sub != "clone" {
		return "", false
	}
	var ops []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			ops = append(ops, rest[i+1:]...)
			i = len(rest)
		case slices.Contains(gitCloneValues, a):
			i++
		case !strings.HasPrefix(a, "-"):
			ops = append(ops, a)
		}
	}
	switch {
	case len(ops) >= 2:
		dir = ops[1]
	case len(ops) == 1:
		dir = strings.TrimSuffix(path.Base(strings.TrimRight(strings.ReplaceAll(ops[0], ":", "/"), "/")), ".git")
	}
	if dir == "" || DynamicWord(dir) {
		return "", false
	}
	return dir, true
}

// downloads records the files a downloader writes (see Downloads); a
// name known only at run time means any file the line runs later may be
// one.
func (w *walker) downloads(name string, args []word) {
	files, unnamed := Downloads(name, strs(args))
	if unnamed {
		w.st.downloadedAny = name
	}
	for _, f := range files {
		if DynamicWord(f) {
			w.st.downloadedAny = name
			continue
		}
		w.wrote(f, writtenFile{by: name, download: true})
	}
}

// Downloads lists the files a downloader (curl, wget, aria2c, httpie's
// http with --download) writes what it fetches to: the one its options
// name, or each address's last path element (wget and aria2c by default,
// curl with -O), in the folder its options give (curl --output-dir, wget
// -P, aria2c -d). unnamed reports names the server gives or that come from
// a file of addresses (curl -J, wget -r, -i, --content-disposition). A
// file whose name holds an expansion is listed as written.
func Downloads(name string, args []string) (files []string, unnamed bool) {
	var named, dirs []string
	remote := false
	p := ProgramOptions(name).Split(args)
	switch name {
	case "curl":
		named, dirs = p.Values("o", "output"), p.Values("output-dir")
		remote = p.Has("O", "remote-name", "remote-name-all")
		unnamed = p.Has("J", "remote-header-name")
	case "wget":
		named, dirs = p.Values("O", "output-document"), p.Values("P", "directory-prefix")
		remote = len(named) == 0
		unnamed = p.Has("i", "input-file", "r", "recursive", "m", "mirror", "content-disposition")
	case "aria2c":
		named, dirs = p.Values("o", "out"), p.Values("d", "dir")
		remote = len(named) == 0
		unnamed = p.Has("i", "input-file")
	case "http", "https", "xh", "xhs":
		p = httpieOpts.Split(args)
		if !p.Has("d", "download") {
			return nil, false
		}
		named = p.Values("o", "output")
		remote = len(named) == 0
	default:
		return nil, false
	}
	dir := ""
	if len(dirs) > 0 {
		dir = dirs[len(dirs)-1]
	}
	for _, v := range named {
		if v != "-" {
			files = append(files, path.Join(dir, v))
		}
	}
	if !remote {
		return files, unnamed
	}
	for _, u := range append(p.Operands, p.Values("url")...) {
		if DynamicWord(u) {
			files = append(files, path.Join(dir, u))
		} else if b := urlBase(u); b != "" {
			files = append(files, path.Join(dir, b))
		}
	}
	return files, unnamed
}

// DownloaderWrites lists every file a downloader writes: what it downloads
// (Downloads), and the headers, cookies, traces and logs it saves (curl
// -D, -c, --trace, --stderr, ...; wget -o, -a).
func DownloaderWrites(name string, args []string) []string {
	files, _ := Downloads(name, args)
	p := ProgramOptions(name).Split(args)
	switch name {
	case "curl":
		files = append(files, p.Values("D", "dump-header", "c", "cookie-jar", "trace", "trace-ascii", "stderr",
			"libcurl", "etag-save", "hsts", "alt-svc")...)
	case "wget":
		files = append(files, p.Values("o", "output-file", "a", "append-output")...)
	}
	return slices.DeleteFunc(files, func(f string) bool { return f == "" || f == "-" })
}

// httpie's options (http, https, xh): --download writes a file.
var httpieOpts = Options{flags: "dbcfFhjmqSvx", args: "oAaps", long: "download:d output=:o"}

// urlBase is the file name a downloader gives what it fetches from u: the
// last element of its path (index.html for a folder), or "" for a word
// that is no address.
func urlBase(u string) string {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		if strings.HasPrefix(u, "http") || !strings.Contains(u, ".") && !strings.Contains(u, "/") {
			return ""
		}
		rest = u // wget example.com/x.sh
	}
	rest, _, _ = strings.Cut(rest, "#")
	rest, _, _ = strings.Cut(rest, "?")
	_, p, ok := strings.Cut(rest, "/")
	if !ok || p == "" || strings.HasSuffix(p, "/") {
		return "index.html"
	}
	return path.Base(p)
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
	if len(w.st.written) == 0 && w.st.downloadedAny == "" && len(w.st.cloned) == 0 {
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
	if !ok && file != "" {
		if repo := w.clonedHolds(idx, file); repo != "" {
			f, ok = writtenFile{by: "git clone", download: true}, true
		}
	}
	if !ok && file != "" && w.st.downloadedAny != "" {
		// A file the line runs may be one a download named at run time.
		f, ok = writtenFile{by: w.st.downloadedAny, download: true}, true
	}
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

// clonedHolds returns the folder a git clone earlier in the line filled
// that file (run by the command at idx) lies in, or "": by its path as
// written, or from where the line's cd's took the command (git clone URL
// x && cd x && ./install.sh).
func (w *walker) clonedHolds(idx int, file string) string {
	c := &w.st.line.Commands[idx]
	at := ""
	for _, d := range c.Dirs {
		at = path.Join(at, d)
		if path.IsAbs(d) || strings.HasPrefix(d, "~") {
			at = d
		}
	}
	for _, p := range []string{path.Clean(file), path.Join(at, file)} {
		for _, dir := range w.st.cloned {
			if p == dir || strings.HasPrefix(p, dir+"/") || c.DirUnknown && !path.IsAbs(file) {
				return dir
			}
		}
	}
	return ""
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
