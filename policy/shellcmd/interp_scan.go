package shellcmd

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file finds, in the tokens of an interpreter's program, the calls
// that run command lines or change files (the tables are in
// interp_api.go). A budget proportional to the code bounds the work, so a
// hostile program costs linear time at worst; past it, the scan is
// unknown.

// maxEvalDepth bounds how deeply eval("...") strings are scanned as code.
const maxEvalDepth = 4

// scanner reads one program.
type scanner struct {
	lang, form string
	code       string
	toks       []token
	match      []int  // the index of the bracket that closes toks[i]
	skip       []bool // tokens of imports and aliases: the names there are not uses
	binds      map[string]string
	stars      []string // modules imported whole: from os import *, include FileUtils
	out        *CodeScan
	budget     *int
	depth      int // eval strings around this program
}

// span is toks[lo:hi].
type span struct{ lo, hi int }

// call is one use of an API name.
type call struct {
	first, end int // its tokens, for reasons
	args       []span
	called     bool // called, rather than only named (map(os.system, cmds))
	// fn is the function's own name (rename of os.rename), "" for a
	// method of any object, whose file is its receiver, not an argument.
	fn string
}

// scanCode scans the program src of ol.
func scanCode(ol oneLiner, src string) CodeScan {
	out := CodeScan{Lang: ol.lang, Code: src, ChangesFiles: ol.inPlace}
	if ol.inPlace { // perl -pi, ruby -i, gawk -i inplace: its file operands are rewritten
		for _, f := range ol.files {
			if !f.dyn && f.s != "-" && len(out.Writes) < maxCodeFiles {
				out.Writes = append(out.Writes, f.s)
			}
		}
	}
	if len(src) > maxBodyBytes {
		out.Unknown = fmt.Sprintf("%s program exceeds %d bytes", ol.form, maxBodyBytes)
		return out
	}
	if _, _, ok := foreignAPIs(ol.lang); ok {
		scanForeign(ol.form, src, &out)
		return out
	}
	budget := 16*len(src) + 1024
	s := &scanner{lang: ol.lang, form: ol.form, binds: map[string]string{}, out: &out, budget: &budget}
	s.scan(src, ol.stdin && ol.lang == "php")
	if ol.loop || readsArgFiles(ol.lang, src) {
		for _, f := range ol.files {
			if !f.dyn && f.s != "-" && len(out.Reads) < maxCodeFiles {
				out.Reads = append(out.Reads, f.s)
			}
		}
	}
	return out
}

// readsArgFiles reports code that reads the files named by its arguments:
// Perl's <> (<<>>, <ARGV>), Ruby's ARGF ($<, and gets and readlines,
// which read it), Python's fileinput.
func readsArgFiles(lang, src string) bool {
	switch lang {
	case "perl":
		return strings.Contains(src, "<>") || strings.Contains(src, "<ARGV>")
	case "ruby":
		return strings.Contains(src, "ARGF") || strings.Contains(src, "$<") ||
			strings.Contains(src, "gets") || strings.Contains(src, "readlines")
	case "python":
		return strings.Contains(src, "fileinput")
	}
	return false
}

func (s *scanner) scan(src string, html bool) {
	if s.lang == "awk" {
		s.awk(src)
		return
	}
	toks, whole := lex(s.lang, src, html)
	if !whole {
		s.unknown(fmt.Sprintf("%s program nests too deeply to check", s.form))
	}
	s.code, s.toks = src, toks
	s.match = matchBrackets(toks)
	s.skip = make([]bool, len(toks))
	s.bindings()
	s.uses()
}

func (s *scanner) unknown(why string) {
	if s.out.Unknown == "" {
		s.out.Unknown = why
	}
}

// spend takes one step of the budget; false means it is spent.
func (s *scanner) spend() bool {
	*s.budget--
	if *s.budget < 0 {
		s.unknown(fmt.Sprintf("%s program is too complex to check", s.form))
		return false
	}
	return true
}

func (s *scanner) isPunct(k int, val string) bool {
	return k >= 0 && k < len(s.toks) && s.toks[k].kind == tPunct && s.toks[k].val == val
}

// matchBrackets pairs brackets; one left open closes at the end.
func matchBrackets(toks []token) []int {
	m := make([]int, len(toks))
	var open []int
	for i, t := range toks {
		m[i] = -1
		if t.kind != tPunct {
			continue
		}
		switch t.val {
		case "(", "[", "{":
			open = append(open, i)
		case ")", "]", "}":
			if n := len(open); n > 0 && closes(toks[open[n-1]].val, t.val) {
				m[open[n-1]] = i
				open = open[:n-1]
			}
		}
	}
	for _, o := range open {
		m[o] = len(toks)
	}
	return m
}

func closes(open, close string) bool {
	return open == "(" && close == ")" || open == "[" && close == "]" || open == "{" && close == "}"
}

// member is the operator of member access: "." or, in Perl and PHP, "->".
func (s *scanner) member() string {
	if s.lang == "perl" || s.lang == "php" {
		return "->"
	}
	return "."
}

// uses finds every use of an API: command literals, names and chains of
// members (os.system, require('fs').rmSync), and methods of any object
// (Path(p).unlink()).
func (s *scanner) uses() {
	for i := 0; i < len(s.toks) && *s.budget >= 0; {
		t := s.toks[i]
		switch {
		case s.skip[i]:
			i++
		case t.kind == tCmd && t.static:
			s.addLine(t.val)
			i++
		case t.kind == tCmd:
			s.notStatic(call{first: i, end: i + 1})
			i++
		case s.lang == "perl" && t.kind == tPunct && t.val == "&" && (s.isPunct(i+1, "{") ||
			i+1 < len(s.toks) && strings.HasPrefix(s.toks[i+1].val, "$")):
			// &{"sys"."tem"}(...), &$f(...): a function named at run time.
			s.unknown(fmt.Sprintf("%s calls a function by a name chosen at run time: %s", s.form, s.snippet(call{first: i, end: min(i+2, len(s.toks))})))
			i++
		case t.kind == tName && !s.isPunct(i-1, s.member()):
			i = s.use(i)
		case t.kind == tName:
			if a, ok := s.method(t.val); ok {
				s.apply(a, s.call(i, i+1))
			}
			s.pathFile(i)
			i++
		default:
			i++
		}
	}
}

// use looks up the chain of members starting at i; it returns where the
// chain ends.
func (s *scanner) use(i int) int {
	if s.lang == "perl" && (s.isPunct(i+1, "=>") || s.isPunct(i-1, "{") && s.isPunct(i+1, "}")) {
		return i + 1 // a hash key: (unlink => 1), $h{unlink}
	}
	name, j := s.chain(i)
	a, ok := s.lookup(name)
	fn := name[strings.LastIndexByte(name, '.')+1:]
	if !ok && j > i+1 {
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
			a, ok = s.method(name[dot+1:])
			fn = "" // a method of an object: its receiver is the file
		}
	}
	if ok {
		c := s.call(i, j)
		c.fn = fn
		s.apply(a, c)
	}
	return max(j, i+1)
}

// chain reads a name and its members (os.path.join) from the name at i,
// resolving aliases and module loaders (require('fs'), __import__('os')).
// It returns the resolved dotted name and the index after the chain.
func (s *scanner) chain(i int) (string, int) {
	name := s.resolve(s.toks[i].val)
	module := name != s.toks[i].val // an alias: const cp = require('child_process')
	j := i + 1
	if s.lang == "python" && name == "getattr" {
		if attr, end, ok := s.getattr(j); ok {
			name, j = attr, end
		}
	}
	for j < len(s.toks) && s.spend() {
		if mod, ok := s.loaded(name, j); ok {
			name, j, module = mod, j+3, true
			continue
		}
		if s.lang == "node" && s.isPunct(j, "[") {
			// m["execSync"] is m.execSync; a member of a module picked by
			// a name built at run time may be any of them.
			m := min(s.match[j], len(s.toks))
			if t := s.toks[min(j+1, len(s.toks)-1)]; m == j+2 && t.kind == tStr && t.static {
				name, j = name+"."+t.val, m+1
				continue
			}
			if module {
				s.unknown(fmt.Sprintf("%s reaches a member of %s by a name chosen at run time", s.form, name))
			}
			break
		}
		if !s.isPunct(j, s.member()) || j+1 >= len(s.toks) || s.toks[j+1].kind != tName {
			break
		}
		name += "." + s.toks[j+1].val
		j += 2
	}
	return name, j
}

// getattr reads the call getattr(X, "name") at j as the member X.name,
// when X is a name or a chain of members and the name a literal; end is
// the index after the call. Any other getattr is left to the tables,
// which make it unknown.
func (s *scanner) getattr(j int) (name string, end int, ok bool) {
	if !s.isPunct(j, "(") {
		return "", 0, false
	}
	m := min(s.match[j], len(s.toks))
	args := s.split(j+1, m)
	if len(args) < 2 || len(args) > 3 || args[1].hi != args[1].lo+1 {
		return "", 0, false
	}
	attr := s.toks[args[1].lo]
	if attr.kind != tStr || !attr.static || s.toks[args[0].lo].kind != tName {
		return "", 0, false
	}
	base, be := s.chain(args[0].lo)
	if be != args[0].hi {
		return "", 0, false
	}
	return base + "." + attr.val, m + 1, true
}

// loaded returns the module that the loader name loads with its call at
// j: require('node:fs') is fs, __import__('os') is os.
func (s *scanner) loaded(name string, j int) (string, bool) {
	if !s.isPunct(j, "(") || !s.isPunct(j+2, ")") || s.toks[j+1].kind != tStr || !s.toks[j+1].static {
		return "", false
	}
	mod := s.toks[j+1].val
	switch {
	case s.lang == "node" && (name == "require" || strings.HasSuffix(name, ".require")):
		return jsModule(mod), true
	case s.lang == "python" && (name == "__import__" || name == "builtins.__import__" || name == "importlib.import_module"):
		return mod, true
	}
	return "", false
}

// jsModule names a Node module as the tables do: node:fs/promises is
// fs.promises.
func jsModule(m string) string {
	return strings.ReplaceAll(strings.TrimPrefix(m, "node:"), "/", ".")
}

// resolve maps a name through the aliases and star imports.
func (s *scanner) resolve(name string) string {
	if q, ok := s.binds[name]; ok {
		return q
	}
	for _, m := range s.stars {
		if _, ok := s.lookup(m + "." + name); ok {
			return m + "." + name
		}
	}
	if s.lang == "node" && name == "Bun" {
		return "bun"
	}
	return name
}

// call reads the arguments of the use of an API whose name ends at j.
// Ruby and Perl call without parentheses too (system "ls"), JavaScript
// with a tagged template (Bun.$`ls`).
func (s *scanner) call(i, j int) call {
	c := call{first: i, end: j}
	switch {
	case s.isPunct(j, "("):
		m := min(s.match[j], len(s.toks))
		c.args, c.called, c.end = s.split(j+1, m), true, min(m+1, len(s.toks))
	case s.lang == "node" && j < len(s.toks) && s.toks[j].kind == tStr:
		c.args, c.called, c.end = []span{{j, j + 1}}, true, j+1
	case s.lang == "ruby" || s.lang == "perl":
		c.called = true
		if s.argStart(j) {
			hi := s.stmtEnd(j)
			c.args, c.end = s.split(j, hi), hi
		}
	}
	return c
}

// argStart reports whether toks[j] may start the first argument of a call
// without parentheses.
func (s *scanner) argStart(j int) bool {
	if j >= len(s.toks) {
		return false
	}
	t := s.toks[j]
	switch t.kind {
	case tStr, tCmd, tWords, tData:
		return true
	case tName:
		return !stopWord(t.val)
	}
	return t.val == "[" || t.val == "\\" || t.val == "*" || t.val == "{" && s.lang == "perl"
}

// stopWord: a keyword that ends the arguments of a call without
// parentheses (system "ls" or die; system "ls" if x).
func stopWord(w string) bool {
	switch w {
	case "or", "and", "xor", "if", "unless", "while", "until", "for", "foreach", "do", "then", "end":
		return true
	}
	return false
}

// stmtEnd returns where the arguments of a call without parentheses
// starting at j end.
func (s *scanner) stmtEnd(j int) int {
	for k := j; k < len(s.toks) && s.spend(); k++ {
		t := s.toks[k]
		switch {
		case t.kind == tName && stopWord(t.val):
			return k
		case t.kind != tPunct:
		case t.val == "{" && s.lang == "ruby" && k > j:
			return k // a block
		case t.val == "(" || t.val == "[" || t.val == "{":
			k = s.match[k]
		case t.val == ")" || t.val == "]" || t.val == "}" || t.val == ";" || t.val == "\n":
			return k
		}
	}
	return len(s.toks)
}

// split splits toks[lo:hi] at its top-level commas, dropping line breaks
// at the edges and a last empty argument (f(a,)).
func (s *scanner) split(lo, hi int) []span {
	var out []span
	start := lo
	for k := lo; k < hi; k++ {
		if !s.spend() {
			return nil
		}
		t := s.toks[k]
		if t.kind != tPunct {
			continue
		}
		switch t.val {
		case "(", "[", "{":
			k = min(s.match[k], hi)
		case ",", "=>":
			if t.val == "," || s.lang == "perl" { // Perl's fat comma is a comma
				out = append(out, s.trim(span{start, k}))
				start = k + 1
			}
		}
	}
	if last := s.trim(span{start, hi}); last.lo < last.hi {
		out = append(out, last)
	}
	return out
}

func (s *scanner) trim(sp span) span {
	for sp.lo < sp.hi && s.isPunct(sp.lo, "\n") {
		sp.lo++
	}
	for sp.hi > sp.lo && s.isPunct(sp.hi-1, "\n") {
		sp.hi--
	}
	return sp
}

// snippet is the source text of a call, for reasons.
func (s *scanner) snippet(c call) string {
	end := min(c.end, len(s.toks)) // a call left open (require(m)["exec") ends with the program
	if c.first >= len(s.toks) || end <= c.first {
		return ""
	}
	a, b := s.toks[c.first].pos, s.toks[end-1].end
	if b > len(s.code) || a >= b {
		return ""
	}
	text := strings.Join(strings.Fields(s.code[a:min(b, a+160)]), " ")
	if len(text) > 80 {
		text = text[:77] + "..."
	}
	return text
}

func (s *scanner) notStatic(c call) {
	if s.out.Unknown != "" {
		return // the first reason is the one kept
	}
	s.unknown(fmt.Sprintf("%s runs a command line that is not static: %s", s.form, s.snippet(c)))
}

// addLine records a command line the program runs.
func (s *scanner) addLine(line string) { s.out.addRun(line) }

// addRun records a command line the program runs, unless it is blank.
func (out *CodeScan) addRun(line string) {
	if strings.TrimSpace(line) != "" {
		out.Runs = append(out.Runs, line)
	}
}

// addArgv records a command the program runs as an argv list, joined into
// a command line with its words quoted.
func (s *scanner) addArgv(c call, words []string) {
	if len(words) == 0 {
		return
	}
	q := make([]string, len(words))
	for i, w := range words {
		var err error
		if q[i], err = syntax.Quote(w, syntax.LangBash); err != nil {
			s.notStatic(c)
			return
		}
	}
	s.addLine(strings.Join(q, " "))
}

// str returns the value of sp when it is a string literal, or literals
// joined by the language's concatenation ("rm " + "-rf /"; Python, Ruby
// and awk also join adjacent literals), maybe in parentheses.
func (s *scanner) str(sp span) (string, bool) {
	sp = s.unparen(sp)
	concat, adjacent := "+", s.lang == "python" || s.lang == "ruby"
	switch s.lang {
	case "perl", "php":
		concat = "."
	case "awk":
		concat, adjacent = "", true // awk joins by juxtaposition only: "a" + "b" adds numbers
	}
	var b strings.Builder
	want := true // a literal comes next
	for k := sp.lo; k < sp.hi; k++ {
		if !s.spend() {
			return "", false
		}
		t := s.toks[k]
		if want && t.kind == tName {
			if v, next, ok := s.homePath(k, sp.hi); ok {
				b.WriteString(v)
				want, k = false, next-1
				continue
			}
		}
		switch {
		case t.kind == tPunct && t.val == "\n":
		case t.kind == tStr && t.static && (want || adjacent):
			b.WriteString(t.val)
			want = false
		case t.kind == tPunct && t.val == concat && !want:
			want = true
		default:
			return "", false
		}
	}
	return b.String(), !want
}

// homePath reads, from token k (before hi), HOME or a path in it written
// the common ways, as a path that starts with ~: Python's
// os.path.expanduser("~/.bashrc"), os.environ["HOME"], os.getenv("HOME"),
// Path.home() (and / "x" after it), os.path.join of them; Node's
// os.homedir(), process.env.HOME, path.join of them. What is concatenated
// after it is str's. next is the index after it.
func (s *scanner) homePath(k, hi int) (v string, next int, ok bool) {
	j := k
	for j+2 < hi && s.toks[j].kind == tName { // os.path., os., require("os").
		switch {
		case s.isPunct(j+1, "."):
			j += 2
			continue
		case s.toks[j].val == "require" && s.isPunct(j+1, "(") && s.match[j+1] > j+1 && s.isPunct(s.match[j+1]+1, "."):
			j = s.match[j+1] + 2
			continue
		}
		break
	}
	if j >= hi || s.toks[j].kind != tName {
		return "", 0, false
	}
	name := s.toks[j].val
	switch {
	case name == "HOME" && j >= 2 && s.toks[j-2].val == "env" && s.isPunct(j-1, "."): // process.env.HOME
		v, next = "~", j+1
	case name == "environ" && s.isPunct(j+1, "["): // os.environ["HOME"]
		end := s.match[j+1]
		if h, lit := s.str(span{j + 2, end}); end > j+1 && end < hi && lit && h == "HOME" {
			v, next = "~", end+1
		}
	case s.isPunct(j+1, "("):
		end := s.match[j+1] // the closing parenthesis
		if end <= j+1 || end >= hi {
			return "", 0, false
		}
		switch name {
		case "expanduser":
			if p, lit := s.str(span{j + 2, end}); lit && strings.HasPrefix(p, "~") {
				v, next = p, end+1
			}
		case "homedir", "home": // os.homedir(), Path.home()
			if end == j+2 {
				v, next = "~", end+1
			}
		case "getenv":
			if h, lit := s.str(span{j + 2, end}); lit && h == "HOME" {
				v, next = "~", end+1
			}
		case "join": // os.path.join(HOME, "x", ...), path.join(...)
			args := s.split(j+2, end)
			if len(args) < 2 {
				return "", 0, false
			}
			a0 := s.trim(args[0])
			first, after, home := s.homePath(a0.lo, a0.hi)
			if !home || after != a0.hi {
				return "", 0, false
			}
			v = first
			for _, a := range args[1:] {
				p, lit := s.str(a)
				if !lit {
					return "", 0, false
				}
				v = strings.TrimSuffix(v, "/") + "/" + strings.TrimPrefix(p, "/")
			}
			next = end + 1
		}
	}
	if v == "" {
		return "", 0, false
	}
	for s.lang == "python" && s.isPunct(next, "/") && next+1 < hi && s.toks[next+1].kind == tStr && s.toks[next+1].static {
		v, next = strings.TrimSuffix(v, "/")+"/"+s.toks[next+1].val, next+2 // Path.home() / ".bashrc"
	}
	return v, next, true
}

// unparen strips parentheses around a whole span.
func (s *scanner) unparen(sp span) span {
	sp = s.trim(sp)
	for sp.hi-sp.lo >= 2 && s.isPunct(sp.lo, "(") && s.match[sp.lo] == sp.hi-1 && s.spend() {
		sp = s.trim(span{sp.lo + 1, sp.hi - 1})
	}
	return sp
}

// list returns the elements of sp when it is a list literal: [...], a
// Python tuple or Perl list in parentheses, PHP array(...), qw(), %w[].
// static is false when some element is not a string literal.
func (s *scanner) list(sp span) (elems []string, isList, static bool) {
	sp = s.trim(sp)
	if sp.hi-sp.lo == 1 && s.toks[sp.lo].kind == tWords {
		t := s.toks[sp.lo]
		return strings.Fields(t.val), true, t.static
	}
	lo := sp.lo
	if s.lang == "php" && sp.hi-lo >= 3 && s.toks[lo].kind == tName && s.toks[lo].val == "array" {
		lo++
	}
	if sp.hi-lo < 2 || s.match[lo] != sp.hi-1 || !(s.isPunct(lo, "[") || s.isPunct(lo, "(")) {
		return nil, false, false
	}
	for _, e := range s.split(lo+1, sp.hi-1) {
		if e.hi-e.lo == 1 && s.toks[e.lo].kind == tWords && s.toks[e.lo].static { // Perl lists flatten: ("ls", qw(-l -a))
			elems = append(elems, strings.Fields(s.toks[e.lo].val)...)
			continue
		}
		v, ok := s.str(e)
		if !ok {
			return nil, true, false
		}
		elems = append(elems, v)
	}
	return elems, true, true
}

// words returns the words that a list of arguments gives: each a string
// literal or a list literal of them (Perl and Ruby flatten lists).
func (s *scanner) words(args []span) ([]string, bool) {
	var out []string
	for _, a := range args {
		if v, ok := s.str(a); ok {
			out = append(out, v)
			continue
		}
		ws, _, ok := s.list(a)
		if !ok {
			return nil, false
		}
		out = append(out, ws...)
	}
	return out, true
}

// object reports whether sp is an object or hash literal: {...}.
func (s *scanner) object(sp span) bool {
	sp = s.trim(sp)
	return sp.hi-sp.lo >= 2 && s.isPunct(sp.lo, "{") && s.match[sp.lo] == sp.hi-1
}

// field finds the value of key in the object literal sp ({key: v},
// {'key': v}, {"key" => v}, and the shorthand {key}).
func (s *scanner) field(sp span, key string) (span, bool) {
	sp = s.trim(sp)
	if !s.object(sp) {
		return span{}, false
	}
	for _, e := range s.split(sp.lo+1, sp.hi-1) {
		if e.lo >= e.hi {
			continue
		}
		t := s.toks[e.lo]
		if t.kind == tPunct && t.val == ":" && e.hi-e.lo > 1 { // Ruby :key => v
			e.lo++
			t = s.toks[e.lo]
		}
		if t.val != key || t.kind != tName && t.kind != tStr {
			continue
		}
		if e.hi-e.lo == 1 {
			return e, true // {key}: a variable's value
		}
		if s.isPunct(e.lo+1, ":") || s.isPunct(e.lo+1, "=>") {
			return span{e.lo + 2, e.hi}, true
		}
	}
	return span{}, false
}

// isFalse reports whether sp is a literal false value.
func (s *scanner) isFalse(sp span) bool {
	sp = s.unparen(sp)
	if sp.hi-sp.lo != 1 {
		return false
	}
	switch s.toks[sp.lo].val {
	case "false", "False", "None", "null", "undefined", "nil", "0":
		return true
	}
	return false
}

// keyword returns the value of the keyword argument name (Python name=v,
// Ruby and PHP name: v).
func (s *scanner) keyword(args []span, name string) (span, bool) {
	for _, a := range args {
		if n, v, ok := s.keywordArg(a); ok && n == name {
			return v, true
		}
	}
	return span{}, false
}

func (s *scanner) keywordArg(a span) (name string, val span, ok bool) {
	if a.hi-a.lo < 2 || s.toks[a.lo].kind != tName {
		return "", span{}, false
	}
	op := s.toks[a.lo+1]
	if op.kind != tPunct || op.val != "=" && op.val != ":" || op.val == ":" && s.lang == "python" {
		return "", span{}, false
	}
	return s.toks[a.lo].val, span{a.lo + 2, a.hi}, true
}

// positional returns the arguments that are not keyword arguments or
// Ruby's trailing options hash; ok is false when one is unpacked (*args,
// ...args), which hides the positions of the others.
func (s *scanner) positional(args []span) (pos []span, ok bool) {
	for k, a := range args {
		if _, _, kw := s.keywordArg(a); kw {
			continue
		}
		if s.lang == "ruby" && (k == len(args)-1 && k > 0 && s.object(a) || s.hasTop(a, "=>")) {
			continue
		}
		if s.isPunct(a.lo, "*") || s.isPunct(a.lo, "**") || s.isPunct(a.lo, "...") {
			return nil, false
		}
		pos = append(pos, a)
	}
	return pos, true
}

// hasTop reports whether the operator op is at the top level of sp.
func (s *scanner) hasTop(sp span, op string) bool {
	for k := sp.lo; k < sp.hi && s.spend(); k++ {
		if s.isPunct(k, "(") || s.isPunct(k, "[") || s.isPunct(k, "{") {
			k = s.match[k]
		} else if s.isPunct(k, op) {
			return true
		}
	}
	return false
}
