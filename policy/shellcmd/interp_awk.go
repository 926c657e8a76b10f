package shellcmd

import (
	"fmt"
	"strings"
)

// This file reads awk programs (awk, gawk, mawk, nawk, busybox awk): their
// options, their tokens, and the places where they run a command line:
// system(CMD), print | CMD (and gawk's |&), and CMD | getline.

func isAwk(name string) bool {
	switch name {
	case "awk", "gawk", "mawk", "nawk":
		return true
	}
	return false
}

// awkArgs reads awk's options. The program is the -e (--source) parts or,
// without them, the first operand; given by -f or -E alone, it is a file,
// the effects table's business.
func awkArgs(name string, l []word) (oneLiner, bool) {
	hits, op, why := awkOpts.scan(l)
	if why != "" {
		return oneLiner{lang: "awk", why: why}, true
	}
	ol := oneLiner{lang: "awk"}
	file := false
	for _, h := range hits {
		opt, val := h.name, h.val
		if opt == "W" {
			if opt, val, why = awkW(h.val); why != "" {
				return oneLiner{lang: "awk", why: why}, true
			}
		}
		switch opt {
		case "e", "source":
			ol.add(name+" -e", val)
		case "f", "file", "E", "exec":
			file = true
		case "i", "include":
			ol.inPlace = ol.inPlace || awkInPlace(val.s)
		case "h", "help", "usage", "V", "version", "C", "copyright":
			return oneLiner{}, false // awk prints and exits
		}
	}
	switch {
	case len(ol.parts) > 0:
		ol.files = l[min(op, len(l)):]
		return ol, true
	case file:
		return oneLiner{}, false
	case op >= len(l):
		ol.missing = name + " program"
		return ol, true
	}
	ol.add(name, l[op])
	ol.files = l[op+1:] // the files it reads (or, with gawk's inplace, rewrites)
	return ol, true
}

// awkW reads the argument of -W, a long option as POSIX spells it (-W
// source=TEXT is --source=TEXT). One that gawk does not know (mawk's -W
// interactive) is ignored, as gawk does.
func awkW(v word) (opt string, val word, why string) {
	if v.dyn {
		return "", word{}, fmt.Sprintf("awk: -W %s is not static", v.s)
	}
	n, arg, eq := strings.Cut(v.s, "=")
	full, kind, _ := awkOpts.longOpt(n)
	if kind == '=' && !eq && full != "file" && full != "exec" {
		// getopt may take the argument from the next word, which would
		// then not be the program: too rare to follow.
		return "", word{}, fmt.Sprintf("awk: -W %s without =VALUE is not read here", n)
	}
	return full, word{s: arg}, ""
}

// awkInPlace reports gawk's inplace extension, which makes the program
// edit its file operands.
func awkInPlace(include string) bool {
	return include == "inplace" || include == "inplace.awk"
}

// awkLexer reads awk code into tokens.
type awkLexer struct {
	lexer
	// split: a regular expression holds a / in a bracket expression
	// (/[/]/), which gawk reads as a character and other awks as its end.
	split bool
}

// lexAwk reads an awk program; split is as in awkLexer.
func lexAwk(code string) (toks []token, split bool) {
	l := &awkLexer{lexer: lexer{lang: "awk", src: code, toks: make([]token, 0, len(code)/4+1)}}
	for l.i < len(l.src) {
		l.step()
	}
	return l.toks, l.split
}

// step reads one token of awk.
func (l *awkLexer) step() {
	pos, c := l.i, l.src[l.i]
	switch {
	case c == '#':
		l.skipLine()
	case c == '\n':
		l.i++
		l.emit(tPunct, "\n", pos)
	case c == '\\' && l.peek(1) == '\n':
		l.i += 2
	case isSpace(c):
		l.i++
	case c == '"':
		l.i++
		l.str(pos)
	case c == '/' && l.regexStart() && l.regex(pos):
	case (c == '+' || c == '-') && l.peek(1) == c, c == '|' && l.peek(1) == '&':
		l.i += 2
		l.emit(tPunct, l.src[pos:l.i], pos)
	case isIdentStart(c):
		l.emit(tName, l.ident(""), pos)
	case isDigit(c):
		l.number(pos)
	default:
		l.punct(pos)
	}
}

// regexStart reports whether a / starts a regular expression: anywhere
// but after an operand (a name, a number, a string, ), ], x++), where it
// divides.
func (l *awkLexer) regexStart() bool {
	if len(l.toks) == 0 {
		return true
	}
	switch t := l.toks[len(l.toks)-1]; t.kind {
	case tName:
		return awkKeyword(t.val)
	case tPunct:
		return t.val != ")" && t.val != "]" && t.val != "++" && t.val != "--"
	}
	return false
}

// awkKeyword: a keyword after which an expression or a condition in
// parentheses starts, and which no operand holds.
func awkKeyword(name string) bool {
	switch name {
	case "print", "printf", "return", "case", "do", "else", "exit", "in", "if", "while", "for", "delete":
		return true
	}
	return false
}

// regex reads a regular expression literal /.../ as gawk does: a / inside
// a bracket expression ([/], [[:alpha:]/]) does not end it. A line break
// before its end means the / divides after all; noRegex then keeps later
// slashes on that line from being tried again (see lexer.regex).
func (l *awkLexer) regex(pos int) bool {
	if l.i < l.noRegex {
		return false
	}
	brackets, open := 0, -1 // bracket depth, and where the outer one opened
	slash := false
	for j := l.i + 1; j < len(l.src); j++ {
		switch c := l.src[j]; {
		case c == '\\':
			j++
		case c == '\n':
			l.noRegex = j
			return false
		case c == '[':
			if brackets == 0 {
				open = j
			}
			if brackets == 0 || j+1 < len(l.src) && l.src[j+1] == ':' {
				brackets++
			}
		case c == ']' && brackets > 0:
			if j == open+1 || j == open+2 && l.src[j-1] == '^' {
				continue // []...] and [^]...]: the first ] is a character
			}
			brackets--
		case c == '/' && brackets > 0:
			slash = true
		case c == '/':
			l.i = j + 1
			l.emit(tData, l.src[pos:l.i], pos)
			l.split = l.split || slash
			return true
		}
	}
	l.noRegex = len(l.src)
	return false
}

// str reads a string literal after its opening quote. Its value is static
// when every escape in it means the same to all awks: \" \\ \/ \a \b \f
// \n \r \t \v, octal \ddd, and \x with one or two hex digits. Any other
// escape (\q, which gawk reads as q and others as \q), a NUL, which ends
// a command line early, or a line break before the closing quote, which
// awk rejects, leaves it not static.
func (l *awkLexer) str(pos int) {
	idx := l.emit(tStr, "", pos)
	static := true
	var b strings.Builder
	for l.i < len(l.src) {
		switch c := l.src[l.i]; c {
		case '"':
			l.i++
			l.toks[idx].val, l.toks[idx].static, l.toks[idx].end = b.String(), static, l.i
			return
		case '\n':
			l.toks[idx].val, l.toks[idx].end = b.String(), l.i
			return
		case '\\':
			static = l.escape(&b) && static
		default:
			b.WriteByte(c)
			l.i++
		}
	}
	l.toks[idx].val, l.toks[idx].end = b.String(), l.i
}

// escape decodes the escape at l.i; false means awks read it differently.
func (l *awkLexer) escape(b *strings.Builder) bool {
	if l.i+1 >= len(l.src) {
		l.i++
		return false
	}
	c := l.src[l.i+1]
	l.i += 2
	switch c {
	case '\n': // a line continuation
	case '"', '\\', '/':
		b.WriteByte(c)
	case 'a':
		b.WriteByte(7)
	case 'b':
		b.WriteByte(8)
	case 'f':
		b.WriteByte(12)
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'v':
		b.WriteByte(11)
	case 'x':
		n := 0
		for n < 3 && isHex(l.peek(n)) {
			n++
		}
		if n == 0 || n > 2 { // gawk before 5.0 read every hex digit
			return false
		}
		v := l.hexDigits(2)
		b.WriteByte(byte(v))
		return v != 0
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v := int(c - '0')
		for k := 0; k < 2 && l.peek(0) >= '0' && l.peek(0) <= '7'; k++ {
			v = v*8 + int(l.peek(0)-'0')
			l.i++
		}
		b.WriteByte(byte(v))
		return byte(v) != 0
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
		return false
	}
	return true
}

// awk scans an awk program: the command lines it runs, and whether it
// writes files.
func (s *scanner) awk(src string) {
	toks, split := lexAwk(src)
	if split {
		s.unknown(s.form + " program has a / in a bracket expression of a regular expression, which awks read differently")
	}
	s.code, s.toks = src, toks
	s.match = matchBrackets(toks)
	opener := make([]int, len(toks))
	for i := range opener {
		opener[i] = -1
	}
	for i, m := range s.match {
		if m >= 0 && m < len(toks) {
			opener[m] = i
		}
	}
	for i := 0; i < len(toks) && s.spend(); i++ {
		t := toks[i]
		switch {
		case t.kind == tName && t.val == "system":
			s.awkSystem(i)
		case t.kind == tName && (t.val == "print" || t.val == "printf"):
			s.awkPrint(i)
		case t.kind == tPunct && (t.val == "|" || t.val == "|&") && s.isWord(i+1, "getline"):
			s.awkGetline(i, opener)
		case t.kind == tPunct && t.val == "@" && s.isName(i+1):
			s.awkAt(i)
		}
	}
}

// awkSystem: system(CMD) runs CMD.
func (s *scanner) awkSystem(i int) {
	if !s.isPunct(i+1, "(") {
		s.notStatic(call{first: i, end: i + 1}) // awk rejects it; this reading may be wrong
		return
	}
	m := min(s.match[i+1], len(s.toks))
	s.awkRun(call{first: i, end: min(m+1, len(s.toks))}, span{i + 2, m}, false)
}

// awkPrint: print and printf write to the command line after | (gawk's |&
// too), which reads their output, or to the file after > or >>. A > in
// parentheses compares.
func (s *scanner) awkPrint(i int) {
	end := s.awkStmtEnd(i + 1)
	for k := i + 1; k < end && s.spend(); k++ {
		switch {
		case s.isPunct(k, "(") || s.isPunct(k, "[") || s.isPunct(k, "{"):
			k = s.match[k]
		case (s.isPunct(k, "|") || s.isPunct(k, "|&")) && !s.isWord(k+1, "getline"):
			s.awkRun(call{first: i, end: end}, span{k + 1, end}, true)
			return
		case s.isPunct(k, ">") || s.isPunct(k, ">>"):
			s.awkFile(span{k + 1, end})
			return
		}
	}
}

// awkStmtEnd returns where the simple statement that goes on at k ends.
func (s *scanner) awkStmtEnd(k int) int {
	for ; k < len(s.toks) && s.spend(); k++ {
		if s.toks[k].kind != tPunct {
			continue
		}
		switch s.toks[k].val {
		case "(", "[", "{":
			k = s.match[k]
		case ";", "\n", "}", ")", "]":
			return k
		}
	}
	return len(s.toks)
}

// awkFile: print > FILE writes FILE, unless FILE is a literal naming
// standard output, standard error or /dev/null.
func (s *scanner) awkFile(sp span) {
	v, ok := s.str(sp)
	if ok && (v == "/dev/stdout" || v == "/dev/stderr" || v == "/dev/null" || allDigits(strings.TrimPrefix(v, "/dev/fd/"))) {
		return
	}
	s.out.ChangesFiles = true
	s.noteFile(&s.out.Writes, sp)
}

// awkGetline: CMD | getline runs CMD. Awks disagree on how far left CMD
// reaches ("echo " "date" | getline is the whole concatenation to gawk,
// "date" to others), so only a single literal, or literals in
// parentheses, make a static CMD.
func (s *scanner) awkGetline(p int, opener []int) {
	lo := s.awkOperandsBefore(p, opener)
	c := call{first: lo, end: p + 2}
	if p-lo != 1 && !(s.isPunct(lo, "(") && s.match[lo] == p-1) {
		s.notStatic(c)
		return
	}
	s.awkRun(c, span{lo, p}, false)
}

// awkOperandsBefore returns where the juxtaposed operands (literals,
// names, fields, calls, groups) that end before toks[p] start.
func (s *scanner) awkOperandsBefore(p int, opener []int) int {
	lo := p
	for lo > 0 && s.spend() {
		t := s.toks[lo-1]
		switch {
		case t.kind == tPunct && (t.val == ")" || t.val == "]") && opener[lo-1] >= 0:
			o := opener[lo-1]
			if o > 0 && s.toks[o-1].kind == tName && awkKeyword(s.toks[o-1].val) {
				return lo // the condition of if (...) or while (...)
			}
			lo = o
		case t.kind == tStr || t.kind == tData || t.kind == tPunct && t.val == "$",
			t.kind == tName && !awkKeyword(t.val):
			lo--
		default:
			return lo
		}
	}
	return lo
}

// awkAt reads gawk's @ forms: @include "inplace" edits files in place, and
// @f(...) calls the function f names, which may be system.
func (s *scanner) awkAt(i int) {
	switch name := s.toks[i+1].val; {
	case name == "include":
		if i+2 < len(s.toks) && s.toks[i+2].kind == tStr && awkInPlace(s.toks[i+2].val) {
			s.out.ChangesFiles = true
		}
	case name == "load" || name == "namespace":
	case s.isPunct(i+2, "("):
		s.notStatic(call{first: i, end: min(s.match[i+2]+1, len(s.toks))})
	}
}

// awkRun records the command line sp gives; fed: it reads the program's
// output.
func (s *scanner) awkRun(c call, sp span, fed bool) {
	v, ok := s.str(sp)
	switch {
	case !ok:
		s.notStatic(c)
	case strings.TrimSpace(v) != "":
		if fed {
			s.out.fed = append(s.out.fed, len(s.out.Runs))
		}
		s.out.Runs = append(s.out.Runs, v)
	}
}
