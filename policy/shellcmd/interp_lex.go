package shellcmd

import "strings"

// This file reads the program of an interpreter one-liner into tokens: one
// small lexer per language family, sharing the reading of string literals.
// It knows just enough of each language to tell code from strings,
// comments and regular expressions; it never fails, and every step
// consumes input, so it runs in time linear in the code (re-reading a Perl
// s///e replacement at most maxLexDepth times over).

// tokKind says what a token of interpreter code is.
type tokKind uint8

const (
	tName  tokKind = iota // identifier or keyword; a Perl or PHP variable keeps its sigil ($x)
	tStr                  // string literal
	tCmd                  // command literal: backticks, %x{}, qx{}
	tWords                // word list literal: qw(), %w[]
	tData                 // number, regular expression or other literal data
	tPunct                // operator or bracket; "\n" where a line break ends a statement
)

// token is one token of interpreter code.
type token struct {
	kind tokKind
	// val is the text of a name or operator, and the value of a literal
	// when it is static.
	val      string
	static   bool // a literal with nothing interpolated: val is its value
	pos, end int  // where the token is in the code
}

// maxLexDepth bounds how deeply code interpolated in strings (f"{...}",
// `${...}`, "#{...}") and Perl s///e replacements nest.
const maxLexDepth = 16

type lexer struct {
	lang  string
	src   string
	i     int
	toks  []token
	depth int
	deep  bool // nesting went past maxLexDepth: the code was not read whole
	// noRegex: no regular expression starts before this offset (see regex).
	noRegex int
}

// lex reads code of lang ("python", "node", "ruby", "perl", "php"). A PHP
// program read from standard input starts outside its <?php tags (html).
// whole is false when the code nests too deeply to be read whole.
func lex(lang, code string, html bool) (toks []token, whole bool) {
	l := &lexer{lang: lang, src: code, toks: make([]token, 0, len(code)/4+1)}
	if html {
		l.html()
	}
	l.code(false)
	return l.toks, !l.deep
}

// code reads code up to the end or, for code interpolated in a string
// (inner), up to the } that closes it.
func (l *lexer) code(inner bool) {
	braces := 0
	for l.i < len(l.src) && !l.deep {
		switch l.src[l.i] {
		case '{':
			braces++
		case '}':
			if inner && braces == 0 {
				l.i++
				return
			}
			braces--
		}
		switch l.lang {
		case "python":
			l.pyStep()
		case "node":
			l.jsStep()
		case "ruby":
			l.rbStep()
		case "perl":
			l.plStep()
		default:
			l.phpStep()
		}
	}
}

// inner reads the code interpolated in a string.
func (l *lexer) inner() {
	if l.depth >= maxLexDepth {
		l.deep = true
		return
	}
	l.depth++
	l.code(true)
	l.depth--
}

func (l *lexer) emit(k tokKind, val string, pos int) int {
	l.toks = append(l.toks, token{kind: k, val: val, pos: pos, end: l.i})
	return len(l.toks) - 1
}

// peek returns the byte k bytes ahead, or 0 past the end.
func (l *lexer) peek(k int) byte {
	if l.i+k < len(l.src) {
		return l.src[l.i+k]
	}
	return 0
}

func (l *lexer) skipLine() {
	if k := strings.IndexByte(l.src[l.i:], '\n'); k >= 0 {
		l.i += k
		return
	}
	l.i = len(l.src)
}

func (l *lexer) skipPast(end string) {
	if k := strings.Index(l.src[l.i:], end); k >= 0 {
		l.i += k + len(end)
		return
	}
	l.i = len(l.src)
}

func (l *lexer) atLineStart() bool { return l.i == 0 || l.src[l.i-1] == '\n' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdentStart counts every non-ASCII byte as a letter, as the languages
// accept Unicode identifiers.
func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

// ident reads an identifier; extra lists other bytes it may hold ($ in
// JavaScript, \ in PHP namespaces).
func (l *lexer) ident(extra string) string {
	start := l.i
	for l.i < len(l.src) && (isIdentChar(l.src[l.i]) || strings.IndexByte(extra, l.src[l.i]) >= 0) {
		l.i++
	}
	if l.i == start { // a lone extra byte that no identifier follows
		l.i++
	}
	return l.src[start:l.i]
}

// number reads a numeric literal loosely (0x1f, 1e-3, 1_000, 1..5).
func (l *lexer) number(pos int) {
	for l.i < len(l.src) && (isIdentChar(l.src[l.i]) || l.src[l.i] == '.') {
		l.i++
	}
	l.emit(tData, l.src[pos:l.i], pos)
}

// operators lists the operators of more than one byte that the scanner
// tells apart; any other byte is an operator by itself.
var operators = [...]string{
	"...", "**", "=>", "==", "!=", "<=", ">=", "->", "::", "?.", "&.", "=~", "!~",
	"+=", "-=", ".=", "*=", "/=", "||", "&&", "<<", ">>", "?->",
}

// punct reads an operator. Member access is "." in Python, JavaScript and
// Ruby (also ?. and &. and Ruby's ::) and "->" in Perl and PHP (also PHP's ::).
func (l *lexer) punct(pos int) {
	op := l.src[l.i : l.i+1]
	for _, o := range operators {
		if len(o) > len(op) && strings.HasPrefix(l.src[l.i:], o) {
			op = o
		}
	}
	l.i += len(op)
	switch {
	case op == "?." || op == "&." || op == "::" && l.lang == "ruby":
		op = "."
	case op == "?->" || op == "::" && l.lang == "php":
		op = "->"
	}
	l.emit(tPunct, op, pos)
}

// operandStart reports whether an operand, not an operator, may start at
// l.i: whether / starts a regular expression rather than a division. After
// a name, keywords say so; in Ruby and Perl a space before and none after
// does too (puts /x/, split /,/).
func (l *lexer) operandStart(keywords string) bool {
	if len(l.toks) == 0 {
		return true
	}
	t := l.toks[len(l.toks)-1]
	switch t.kind {
	case tPunct:
		return t.val != ")" && t.val != "]" && t.val != "}"
	case tName:
		if strings.Contains(keywords, " "+t.val+" ") {
			return true
		}
		if l.lang == "perl" && t.val[0] != '$' && t.val[0] != '@' {
			return true // a bareword is an operator or a function: split /,/
		}
		return (l.lang == "ruby" || l.lang == "perl") && t.end < l.i && !isSpace(l.peek(1))
	}
	return false
}

const (
	jsKeywords = " return typeof instanceof in of new delete void throw case do else yield await "
	rbKeywords = " if unless while until and or not return when then do else elsif puts print p "
)

// regex reads a regular expression literal /.../flags as data. A line
// break before its end means the / was a division after all; l.noRegex
// then keeps later slashes on that line from being tried again, which
// would cost time quadratic in the line.
func (l *lexer) regex(pos int) bool {
	if l.i < l.noRegex {
		return false
	}
	class := false
	for j := l.i + 1; j < len(l.src); j++ {
		switch c := l.src[j]; {
		case c == '\\':
			j++
		case c == '\n':
			l.noRegex = j
			return false
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			l.i = j + 1
			for l.i < len(l.src) && isIdentChar(l.src[l.i]) {
				l.i++
			}
			l.emit(tData, l.src[pos:l.i], pos)
			return true
		}
	}
	l.noRegex = len(l.src)
	return false
}

// escStyle says how a string literal reads backslashes.
type escStyle uint8

const (
	escC     escStyle = iota // C-like escapes: \n, \x41, \u00e9, \\ ...
	escQuote                 // only \\ and a backslashed delimiter ('...' in Ruby, Perl, PHP)
	escRaw                   // Python raw strings: a backslash only keeps the quote from closing
)

// interpStyle says what a string literal interpolates.
type interpStyle uint8

const (
	interpNone interpStyle = iota
	interpJS               // ${code}
	interpRuby             // #{code}, #@var, #$var
	interpPyF              // {code}; {{ and }} are braces
	interpVars             // Perl $x, @x, ${...}; PHP $x, {$x}
)

// strSpec says how one string literal is read.
type strSpec struct {
	kind   tokKind
	open   byte // the opening delimiter when delimiters nest (%x{a{b}c}), else 0
	close  byte
	triple bool // Python ''' or """
	esc    escStyle
	interp interpStyle
}

// str reads a string literal whose opening delimiter is already read.
// Code interpolated in it is read as tokens after the literal's own.
func (l *lexer) str(sp strSpec, pos int) {
	idx := l.emit(sp.kind, "", pos)
	static := true
	var b strings.Builder
	nest := 0
	for l.i < len(l.src) && !l.deep {
		c := l.src[l.i]
		switch {
		case c == sp.close && nest == 0 && (!sp.triple || l.peek(1) == c && l.peek(2) == c):
			l.i++
			if sp.triple {
				l.i += 2
			}
			l.toks[idx].val, l.toks[idx].static, l.toks[idx].end = b.String(), static, l.i
			return
		case c == sp.close && sp.open != 0:
			nest--
			b.WriteByte(c)
			l.i++
		case c == sp.open && sp.open != 0:
			nest++
			b.WriteByte(c)
			l.i++
		case c == '\\':
			l.escape(sp, &b)
		default:
			if l.interpolation(sp.interp, &b) {
				static = false
			}
		}
	}
	// Unterminated: the program does not even compile, but this reading
	// of it may be wrong, so its value is not trusted.
	l.toks[idx].val, l.toks[idx].end = b.String(), l.i
}

// interpolation reads one byte of a string, or an interpolation starting
// there, which it reports.
func (l *lexer) interpolation(st interpStyle, b *strings.Builder) bool {
	c, n := l.src[l.i], l.peek(1)
	switch {
	case st == interpJS && c == '$' && n == '{',
		st == interpRuby && c == '#' && n == '{':
		l.i += 2
		l.inner()
		return true
	case st == interpRuby && c == '#' && (n == '@' || n == '$'),
		st == interpVars && c == '$' && (isIdentStart(n) || n == '{' || n == ':' || isDigit(n) && l.lang == "perl"),
		st == interpVars && c == '@' && l.lang == "perl" && (isIdentStart(n) || n == '{' || n == '$' || n == '_'),
		st == interpVars && c == '{' && n == '$':
		b.WriteByte(c)
		l.i++
		return true
	case st == interpPyF && (c == '{' || c == '}') && n == c:
		b.WriteByte(c)
		l.i += 2
	case st == interpPyF && c == '{':
		l.i++
		l.inner()
		return true
	default:
		b.WriteByte(c)
		l.i++
	}
	return false
}

// escape reads a backslash escape in a string.
func (l *lexer) escape(sp strSpec, b *strings.Builder) {
	c := l.peek(1)
	if l.i+1 >= len(l.src) {
		b.WriteByte('\\')
		l.i++
		return
	}
	l.i += 2
	switch {
	case sp.esc == escRaw:
		b.WriteByte('\\')
		b.WriteByte(c)
	case sp.esc == escQuote:
		if c != '\\' && c != sp.close && (sp.open == 0 || c != sp.open) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	default:
		l.cEscape(c, b)
	}
}

// cEscape decodes the escape \c of a double-quoted string. Python and PHP
// keep the backslash of an escape they do not know; the others drop it.
func (l *lexer) cEscape(c byte, b *strings.Builder) {
	switch c {
	case '\n': // a line continuation
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'a':
		b.WriteByte(7)
	case 'b':
		b.WriteByte(8)
	case 'f':
		b.WriteByte(12)
	case 'v':
		b.WriteByte(11)
	case 'x':
		b.WriteRune(rune(l.hexDigits(2)))
	case 'u':
		if l.peek(0) == '{' {
			l.i++
			v := l.hexDigits(8)
			if l.peek(0) == '}' {
				l.i++
			}
			b.WriteRune(rune(v))
			return
		}
		b.WriteRune(rune(l.hexDigits(4)))
	case 'U':
		b.WriteRune(rune(l.hexDigits(8)))
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v := int(c - '0')
		for k := 0; k < 2 && l.peek(0) >= '0' && l.peek(0) <= '7'; k++ {
			v = v*8 + int(l.peek(0)-'0')
			l.i++
		}
		b.WriteByte(byte(v))
	case 'e':
		switch l.lang {
		case "python":
			b.WriteString(`\e`)
		case "node":
			b.WriteByte('e')
		default:
			b.WriteByte(27)
		}
	default:
		if l.lang == "python" || l.lang == "php" {
			if strings.IndexByte("\\'\"$`", c) < 0 {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(c)
	}
}

// hexDigits reads up to n hexadecimal digits.
func (l *lexer) hexDigits(n int) int {
	v := 0
	for k := 0; k < n && isHex(l.peek(0)); k++ {
		v = v*16 + hexVal(l.peek(0))
		l.i++
	}
	return v
}

// pyStep reads one token of Python.
func (l *lexer) pyStep() {
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
	case c == '\'' || c == '"':
		l.pyString("", pos)
	case isIdentStart(c):
		name := l.ident("")
		if q := l.peek(0); (q == '\'' || q == '"') && isPyPrefix(name) {
			l.pyString(strings.ToLower(name), pos)
			return
		}
		l.emit(tName, name, pos)
	case isDigit(c):
		l.number(pos)
	default:
		l.punct(pos)
	}
}

func isPyPrefix(s string) bool {
	switch strings.ToLower(s) {
	case "r", "u", "b", "f", "t", "br", "rb", "fr", "rf", "tr", "rt":
		return true
	}
	return false
}

// pyString reads a Python string literal at its opening quote; prefix
// holds its lower-cased prefix letters (r, b, f...).
func (l *lexer) pyString(prefix string, pos int) {
	q := l.src[l.i]
	sp := strSpec{kind: tStr, close: q}
	l.i++
	if l.peek(0) == q && l.peek(1) == q {
		sp.triple = true
		l.i += 2
	}
	if strings.Contains(prefix, "r") {
		sp.esc = escRaw
	}
	if strings.ContainsAny(prefix, "ft") {
		sp.interp = interpPyF
	}
	l.str(sp, pos)
}

// jsStep reads one token of JavaScript (or TypeScript, for deno eval).
func (l *lexer) jsStep() {
	pos, c := l.i, l.src[l.i]
	switch {
	case c == '/' && l.peek(1) == '/', c == '#' && pos == 0 && l.peek(1) == '!':
		l.skipLine()
	case c == '/' && l.peek(1) == '*':
		l.skipPast("*/")
	case isSpace(c) || c == '\n':
		l.i++
	case c == '\'' || c == '"':
		l.i++
		l.str(strSpec{kind: tStr, close: c}, pos)
	case c == '`':
		l.i++
		l.str(strSpec{kind: tStr, close: c, interp: interpJS}, pos)
	case c == '/' && l.operandStart(jsKeywords) && l.regex(pos):
	case isIdentStart(c) || c == '$':
		l.emit(tName, l.ident("$"), pos)
	case isDigit(c):
		l.number(pos)
	default:
		l.punct(pos)
	}
}

// rbStep reads one token of Ruby.
func (l *lexer) rbStep() {
	pos, c := l.i, l.src[l.i]
	switch {
	case c == '=' && l.atLineStart() && strings.HasPrefix(l.src[l.i:], "=begin"):
		l.skipPast("\n=end")
		l.skipLine()
	case c == '#':
		l.skipLine()
	case c == '\n':
		l.i++
		l.emit(tPunct, "\n", pos)
	case c == '\\' && l.peek(1) == '\n':
		l.i += 2
	case isSpace(c):
		l.i++
	case c == '\'':
		l.i++
		l.str(strSpec{kind: tStr, close: c, esc: escQuote}, pos)
	case c == '"':
		l.i++
		l.str(strSpec{kind: tStr, close: c, interp: interpRuby}, pos)
	case c == '`':
		l.i++
		l.str(strSpec{kind: tCmd, close: c, interp: interpRuby}, pos)
	case c == '%' && l.operandStart(rbKeywords) && l.rbPercent(pos):
	case c == '/' && l.operandStart(rbKeywords) && l.regex(pos):
	case c == '?' && l.operandStart(rbKeywords) && l.i+1 < len(l.src) && !isSpace(l.peek(1)) && l.peek(1) != '\n':
		// a character literal: ?a, ?', ?\n
		l.i += 2
		if l.src[pos+1] == '\\' && l.i < len(l.src) {
			l.i++
		}
		l.emit(tData, l.src[pos:l.i], pos)
	case c == '$':
		l.i++
		if isIdentStart(l.peek(0)) || isDigit(l.peek(0)) {
			l.ident("")
		} else if l.i < len(l.src) {
			l.i++ // a special global: $0, $', $"
		}
		l.emit(tName, l.src[pos:l.i], pos)
	case c == '@':
		for l.peek(0) == '@' {
			l.i++
		}
		if isIdentStart(l.peek(0)) {
			l.ident("")
		}
		l.emit(tName, l.src[pos:l.i], pos)
	case c == ':' && l.peek(1) == ':' && l.operandStart(""):
		l.i += 2 // ::Const names the top-level Const
	case isIdentStart(c):
		l.ident("")
		if q := l.peek(0); (q == '?' || q == '!') && l.peek(1) != '=' {
			l.i++ // a predicate or bang method: exist?, sub!
		}
		l.emit(tName, l.src[pos:l.i], pos)
	case isDigit(c):
		l.number(pos)
	default:
		l.punct(pos)
	}
}

// rbPercent reads a Ruby %-literal (%q(), %w[], %x{}, %()...) at l.i, if
// one starts there.
func (l *lexer) rbPercent(pos int) bool {
	j := l.i + 1
	var t byte
	if j < len(l.src) && strings.IndexByte("qQwWiIxrs", l.src[j]) >= 0 {
		t = l.src[j]
		j++
	}
	if j >= len(l.src) {
		return false
	}
	d := l.src[j]
	if isIdentChar(d) || isSpace(d) || d == '\n' || t == 0 && d == '=' {
		return false
	}
	l.i = j + 1
	sp := strSpec{kind: tStr, close: d, interp: interpRuby}
	if o, cl := bracketPair(d); cl != 0 {
		sp.open, sp.close = o, cl
	}
	switch t {
	case 'q':
		sp.esc, sp.interp = escQuote, interpNone
	case 'w':
		sp.kind, sp.esc, sp.interp = tWords, escQuote, interpNone
	case 'W':
		sp.kind = tWords
	case 'x':
		sp.kind = tCmd
	case 'r', 'i', 'I', 's':
		sp.kind = tData
	}
	l.str(sp, pos)
	return true
}

// bracketPair returns the closing bracket of an opening one, or 0.
func bracketPair(c byte) (byte, byte) {
	switch c {
	case '(':
		return c, ')'
	case '[':
		return c, ']'
	case '{':
		return c, '}'
	case '<':
		return c, '>'
	}
	return c, 0
}

// plStep reads one token of Perl.
func (l *lexer) plStep() {
	pos, c := l.i, l.src[l.i]
	switch {
	case c == '=' && l.atLineStart() && isIdentStart(l.peek(1)):
		l.skipPast("\n=cut") // POD
		l.skipLine()
	case c == '#':
		l.skipLine()
	case isSpace(c) || c == '\n':
		l.i++
	case c == '$':
		l.plVar(pos)
	case c == '@' && (isIdentStart(l.peek(1)) || l.peek(1) == ':'):
		l.i++
		l.plName()
		l.emit(tName, l.src[pos:l.i], pos)
	case c == '\'':
		l.i++
		l.str(strSpec{kind: tStr, close: c, esc: escQuote}, pos)
	case c == '"':
		l.i++
		l.str(strSpec{kind: tStr, close: c, interp: interpVars}, pos)
	case c == '`':
		l.i++
		l.str(strSpec{kind: tCmd, close: c, interp: interpVars}, pos)
	case c == '/' && l.operandStart(""):
		l.i++
		l.str(strSpec{kind: tData, close: c, esc: escQuote}, pos)
		l.plFlags()
	case isIdentStart(c):
		name := l.plName()
		switch {
		case name == "__END__" || name == "__DATA__":
			l.i = len(l.src) // what follows is data
		case isQuoteLike(name) && l.quoteLikeFollows(pos):
			l.plQuote(name, pos)
		default:
			l.emit(tName, name, pos)
		}
	case isDigit(c):
		l.number(pos)
	default:
		l.punct(pos)
	}
}

// plName reads a Perl name, package separators included (File::Path::rmtree).
func (l *lexer) plName() string {
	start := l.i
	for l.i < len(l.src) {
		switch {
		case isIdentChar(l.src[l.i]):
			l.i++
		case l.src[l.i] == ':' && l.peek(1) == ':':
			l.i += 2
		default:
			return l.src[start:l.i]
		}
	}
	return l.src[start:l.i]
}

// plVar reads a Perl scalar variable: $x, $::x, $1, $#x, and the special
// ones ($', $", $/...), which must not open a string.
func (l *lexer) plVar(pos int) {
	l.i++
	switch n := l.peek(0); {
	case l.i >= len(l.src), n == '{':
	case isIdentStart(n) || n == ':' && l.peek(1) == ':':
		l.plName()
	case isDigit(n):
		for isDigit(l.peek(0)) {
			l.i++
		}
	case n == '#' && (isIdentStart(l.peek(1)) || l.peek(1) == '{' || l.peek(1) == '$'):
		l.i++ // $#array, $#{...}: the rest is read as its own token
	case n == '^' && isIdentStart(l.peek(1)):
		l.i += 2
	default:
		l.i++
	}
	l.emit(tName, l.src[pos:l.i], pos)
}

func isQuoteLike(name string) bool {
	switch name {
	case "q", "qq", "qw", "qx", "m", "qr", "s", "tr", "y":
		return true
	}
	return false
}

// quoteLikeFollows tells q(...), s/a/b/ and the like from a hash key
// ($h{s}, s => 1), a file test (-s $f) or a method (->s).
func (l *lexer) quoteLikeFollows(pos int) bool {
	if pos > 0 && l.src[pos-1] == '-' || len(l.toks) > 0 && l.toks[len(l.toks)-1].val == "->" {
		return false
	}
	j := l.i
	for j < len(l.src) && (isSpace(l.src[j]) || l.src[j] == '\n') {
		j++
	}
	if j >= len(l.src) {
		return false
	}
	d := l.src[j]
	switch {
	case isIdentChar(d), d == ',', d == ';', d == ')':
		return false
	case d == '=' && (j+1 < len(l.src) && l.src[j+1] == '>' || j > l.i):
		return false // s => 1, or an assignment
	case d == '}' && len(l.toks) > 0 && l.toks[len(l.toks)-1].val == "{":
		return false
	case d == '#' && j > l.i:
		return false // a comment
	}
	return true
}

// plQuote reads a Perl quote-like operator after its name: q qq qw qx m qr
// s tr y. The code in the replacement of s///e is read as code.
func (l *lexer) plQuote(op string, pos int) {
	for isSpace(l.peek(0)) || l.peek(0) == '\n' {
		l.i++
	}
	d := l.src[l.i]
	l.i++
	sp := strSpec{kind: tData, close: d, esc: escQuote}
	if o, cl := bracketPair(d); cl != 0 {
		sp.open, sp.close = o, cl
	}
	switch op {
	case "q":
		sp.kind = tStr
	case "qq":
		sp.kind, sp.esc, sp.interp = tStr, escC, interpVars
	case "qw":
		sp.kind = tWords
	case "qx":
		sp.kind = tCmd
		if d != '\'' {
			sp.esc, sp.interp = escC, interpVars
		}
	case "s", "tr", "y":
		l.plSubst(op, sp, pos)
		return
	}
	l.str(sp, pos)
	if op == "m" || op == "qr" {
		l.plFlags()
	}
}

// plSubst reads s/pattern/replacement/flags and tr/a/b/ as data; with the
// e flag, the replacement of s is code.
func (l *lexer) plSubst(op string, sp strSpec, pos int) {
	l.delimited(sp.open, sp.close)
	if sp.open != 0 { // s{a}{b}: the second part has its own delimiters
		for isSpace(l.peek(0)) || l.peek(0) == '\n' {
			l.i++
		}
		if l.i >= len(l.src) {
			l.emit(tData, l.src[pos:], pos)
			return
		}
		sp.open, sp.close = bracketPair(l.src[l.i])
		if sp.close == 0 {
			sp.open, sp.close = 0, l.src[l.i]
		}
		l.i++
	}
	from := l.i
	l.delimited(sp.open, sp.close)
	to := max(from, l.i-1)
	flags := l.i
	l.plFlags()
	l.emit(tData, l.src[pos:l.i], pos)
	if op == "s" && strings.ContainsRune(l.src[flags:l.i], 'e') {
		l.relex(l.src[from:to], from, sp.close)
	}
}

// delimited skips text up to its closing delimiter, past backslashed
// ones and, for brackets, nested pairs.
func (l *lexer) delimited(open, close byte) {
	nest := 0
	for l.i < len(l.src) {
		c := l.src[l.i]
		l.i++
		switch {
		case c == '\\':
			l.i++
		case c == close && nest == 0:
			return
		case c == close:
			nest--
		case c == open && open != 0:
			nest++
		}
	}
	l.i = len(l.src)
}

func (l *lexer) plFlags() {
	for l.i < len(l.src) && isIdentChar(l.src[l.i]) {
		l.i++
	}
}

// relex reads code found inside a literal (the replacement of s///e) as
// tokens, with its backslashed delimiters unescaped.
func (l *lexer) relex(code string, at int, delim byte) {
	if l.depth >= maxLexDepth {
		l.deep = true
		return
	}
	code = strings.ReplaceAll(code, "\\"+string(delim), string(delim))
	sub := &lexer{lang: l.lang, src: code, depth: l.depth + 1}
	sub.code(false)
	l.deep = l.deep || sub.deep
	for _, t := range sub.toks {
		t.pos, t.end = t.pos+at, t.end+at
		l.toks = append(l.toks, t)
	}
}

// phpStep reads one token of PHP.
func (l *lexer) phpStep() {
	pos, c := l.i, l.src[l.i]
	switch {
	case c == '?' && l.peek(1) == '>':
		l.i += 2
		l.emit(tPunct, ";", pos)
		l.html()
	case c == '#' && l.peek(1) != '[', c == '/' && l.peek(1) == '/':
		l.skipLine()
	case c == '/' && l.peek(1) == '*':
		l.skipPast("*/")
	case isSpace(c) || c == '\n':
		l.i++
	case c == '$' && isIdentStart(l.peek(1)):
		l.i++
		l.ident("")
		l.emit(tName, l.src[pos:l.i], pos)
	case c == '\'':
		l.i++
		l.str(strSpec{kind: tStr, close: c, esc: escQuote}, pos)
	case c == '"':
		l.i++
		l.str(strSpec{kind: tStr, close: c, interp: interpVars}, pos)
	case c == '`':
		l.i++
		l.str(strSpec{kind: tCmd, close: c, interp: interpVars}, pos)
	case isIdentStart(c) || c == '\\':
		// Function names are case-insensitive: SYSTEM() is system().
		l.emit(tName, strings.ToLower(l.ident("\\")), pos)
	case isDigit(c):
		l.number(pos)
	default:
		l.punct(pos)
	}
}

// html skips text outside PHP's tags, up to the next <?php, <?= or <?.
func (l *lexer) html() {
	k := strings.Index(l.src[l.i:], "<?")
	if k < 0 {
		l.i = len(l.src)
		return
	}
	l.i += k + 2
	switch {
	case strings.HasPrefix(l.src[l.i:], "php"):
		l.i += 3
	case l.peek(0) == '=':
		l.i++
	}
}
