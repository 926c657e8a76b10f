package shellcmd

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word with quotes and escapes removed.
type word struct {
	s     string
	dyn   bool // holds an expansion or substitution: s is its source text, not its value
	multi bool // holds an unquoted expansion, so it may become zero or several words
	glob  bool // holds unquoted pattern characters, so pathname expansion may replace it
	split bool // holds an unquoted variable whose value the line gives, with blanks that split it
	// shape is, for a dyn word, s with each part known only at run time
	// replaced by Hole or Spread (see [Command.Shapes]).
	shape string
}

// Markers of a shape: what stands for a part of a word that is only known
// at run time.
const (
	// Hole stands for text that stays inside its word: a quoted expansion
	// ("$F"), a placeholder filled in at run time ({} of find -exec).
	Hole = '\x00'
	// Spread stands for text that may also end its word and make more
	// words, or none: an unquoted expansion ($F, $(cmd)), "$@", "${a[@]}",
	// the arguments xargs appends.
	Spread = '\x01'
)

// shapeOf is the shape of a word: its text when it is static.
func shapeOf(x word) string {
	if x.dyn {
		return x.shape
	}
	return x.s
}

// withHole marks every h in x (a placeholder such as {}) as a Hole, and x
// as dynamic when it holds one.
func withHole(x word, h string) word {
	return withPlaceholder(x, h, string(Hole))
}

// withPlaceholder is withHole where what fills h in has the given shape.
func withPlaceholder(x word, h, shape string) word {
	if !strings.Contains(x.s, h) {
		return x
	}
	x.shape = strings.ReplaceAll(shapeOf(x), h, shape)
	x.dyn = true
	return x
}

// lits turns plain strings into static words.
func lits(ss []string) []word {
	ws := make([]word, len(ss))
	for i, s := range ss {
		ws[i] = word{s: s}
	}
	return ws
}

// strs returns the text of words.
func strs(ws []word) []string {
	ss := make([]string, len(ws))
	for i, w := range ws {
		ss[i] = w.s
	}
	return ss
}

// join joins the text of words with spaces, as eval and parallel do.
func join(ws []word) string {
	return strings.Join(strs(ws), " ")
}

// progName reduces a program word to the name a policy matches on: its
// basename. A dynamic word keeps its text, since "$(echo /bin/rm)" has no
// meaningful basename; so does a word whose basename would read as an
// option or an assignment ("/x/-S", "/A=b"), so that unwrapping the result
// again reads it the same way.
func progName(w word) string {
	if w.dyn || w.s == "" {
		return w.s
	}
	b := path.Base(w.s)
	if strings.HasPrefix(b, "-") || strings.HasPrefix(b, "+") || strings.ContainsRune(b, '=') {
		return w.s
	}
	return b
}

// text returns the source text of a node, or "?" when its position is not
// usable (a node made up by the parser's recovery or by brace splitting).
func (w *walker) text(n syntax.Node) string {
	a, b := n.Pos(), n.End()
	if !a.IsValid() || !b.IsValid() {
		return "?"
	}
	i, j := int(a.Offset()), int(b.Offset())
	if i < 0 || j > len(w.src) || i > j {
		return "?"
	}
	return w.src[i:j]
}

// argWords normalizes the arguments of a simple command, expanding brace
// expansions ({rm,-rf,/} is three words) since they are static.
func (w *walker) argWords(args []*syntax.Word) []word {
	out := make([]word, 0, len(args))
	for _, a := range args {
		out = w.expandWord(a, out)
	}
	return out
}

// expandWord appends the words a brace expansion of x gives, or x itself.
func (w *walker) expandWord(x *syntax.Word, out []word) []word {
	if x == nil {
		return append(out, word{})
	}
	if !hasBrace(x) {
		return w.splitWord(w.word(x), out)
	}
	alts, split, ok := splitBraces(x)
	switch {
	case !split:
		return append(out, w.word(x))
	case !ok:
		nw := w.word(x)
		nw.dyn, nw.multi, nw.shape = true, true, string(Spread)
		return append(out, nw)
	}
	for _, parts := range alts {
		out = w.splitWord(w.word(&syntax.Word{Parts: parts}), out)
	}
	return out
}

// splitBraces is the parts of each word a brace expansion of x makes;
// split is false when x holds none, ok false when it makes too many or
// holds a sequence that is not static.
func splitBraces(x *syntax.Word) (alts [][]syntax.WordPart, split, ok bool) {
	// SplitBraces rewrites the word it is given; work on a copy so the tree
	// stays one that syntax.Walk understands.
	cp := &syntax.Word{Parts: slices.Clone(x.Parts)}
	if !syntax.SplitBraces(cp) {
		return nil, false, true
	}
	alts, ok = braceAlts(cp.Parts)
	return alts, true, ok
}

func hasBrace(x *syntax.Word) bool {
	for _, p := range x.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 {
			return true
		}
	}
	return false
}

// braceAlts expands the brace expansions in parts into every alternative,
// left to right as bash does. It fails when there would be more than
// maxBraceWords alternatives.
func braceAlts(parts []syntax.WordPart) ([][]syntax.WordPart, bool) {
	combos := [][]syntax.WordPart{nil}
	for _, p := range parts {
		br, ok := p.(*syntax.BraceExp)
		if !ok {
			for i := range combos {
				combos[i] = append(combos[i], p)
			}
			continue
		}
		var alts [][]syntax.WordPart
		if br.Sequence {
			seq, ok := braceSeq(br)
			if !ok {
				return nil, false
			}
			for _, s := range seq {
				alts = append(alts, []syntax.WordPart{&syntax.Lit{Value: s}})
			}
		} else {
			for _, e := range br.Elems {
				sub, ok := braceAlts(e.Parts)
				if !ok {
					return nil, false
				}
				alts = append(alts, sub...)
			}
		}
		if len(combos)*len(alts) > maxBraceWords {
			return nil, false
		}
		next := make([][]syntax.WordPart, 0, len(combos)*len(alts))
		for _, c := range combos {
			for _, a := range alts {
				next = append(next, append(slices.Clip(c), a...))
			}
		}
		combos = next
	}
	return combos, true
}

// braceSeq expands {x..y[..step]}; SplitBraces only builds sequences whose
// ends are both integers or both single letters.
func braceSeq(br *syntax.BraceExp) ([]string, bool) {
	if len(br.Elems) < 2 {
		return nil, false
	}
	from, to := br.Elems[0].Lit(), br.Elems[1].Lit()
	step := int64(1)
	if len(br.Elems) == 3 {
		n, err := strconv.ParseInt(br.Elems[2].Lit(), 10, 64)
		if err != nil {
			return nil, false
		}
		step = max(n, -n)
		if step == 0 {
			step = 1
		}
	}
	a, errA := strconv.ParseInt(from, 10, 64)
	b, errB := strconv.ParseInt(to, 10, 64)
	width := 0
	if errA != nil || errB != nil {
		if len(from) != 1 || len(to) != 1 {
			return nil, false
		}
		a, b = int64(from[0]), int64(to[0])
	} else if zeroPadded(from) || zeroPadded(to) {
		width = max(len(from), len(to))
	}
	span := b - a
	if span < 0 {
		span = -span
	}
	if span < 0 || span/step >= maxBraceWords {
		return nil, false
	}
	var out []string
	for i := int64(0); i <= span/step; i++ {
		v := a + i*step
		if b < a {
			v = a - i*step
		}
		switch {
		case errA != nil:
			out = append(out, string(rune(v)))
		case width > 0:
			s := strconv.FormatInt(max(v, -v), 10)
			pad := width - len(s)
			if v < 0 {
				pad--
			}
			s = strings.Repeat("0", max(pad, 0)) + s
			if v < 0 {
				s = "-" + s
			}
			out = append(out, s)
		default:
			out = append(out, strconv.FormatInt(v, 10))
		}
	}
	return out, true
}

func zeroPadded(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

// word normalizes one word without brace expansion (assignment values and
// redirect targets are not brace-expanded).
func (w *walker) word(x *syntax.Word) word {
	var out word
	if x == nil {
		return out
	}
	// The common case, one plain literal, needs no builder.
	if len(x.Parts) == 1 {
		if l, ok := x.Parts[0].(*syntax.Lit); ok {
			out.s, out.glob = unescape(l.Value)
			w.markHoles(&out)
			return out
		}
	}
	var b, shape strings.Builder
	w.parts(&b, &shape, &out, x.Parts, false)
	out.s = b.String()
	if out.dyn {
		out.shape = shape.String()
	}
	w.markHoles(&out)
	return out
}

// markHoles marks a word that holds a run-time placeholder of an enclosing
// parallel or xargs -I (a "{}" filled in from input) as dynamic.
func (w *walker) markHoles(out *word) {
	for _, h := range w.holes {
		*out = withHole(*out, h)
	}
}

// parts writes the text of parts to b and, once a part is dynamic, their
// shape to shape (starting with the static text before it), so that a
// static word builds no shape.
func (w *walker) parts(b, shape *strings.Builder, out *word, parts []syntax.WordPart, quoted bool) {
	static := func(s string) {
		b.WriteString(s)
		if out.dyn {
			shape.WriteString(s)
		}
	}
	dynamic := func(p syntax.Node, spread bool) {
		if !out.dyn {
			shape.WriteString(b.String())
		}
		b.WriteString(w.text(p))
		out.dyn = true
		out.multi = out.multi || spread
		if spread {
			shape.WriteByte(Spread)
		} else {
			shape.WriteByte(Hole)
		}
	}
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				static(unescapeDquote(p.Value))
			} else {
				s, g := unescape(p.Value)
				static(s)
				out.glob = out.glob || g
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				static(ansiC(p.Value))
			} else {
				static(p.Value)
			}
		case *syntax.DblQuoted:
			w.parts(b, shape, out, p.Parts, true)
		case *syntax.ParamExp:
			if !w.inline(b, shape, out, p, quoted) {
				dynamic(p, !quoted || splitsInQuotes(p))
			}
		case *syntax.CmdSubst:
			// $(echo .env), $(printf '%s' rm): the text a static echo
			// or printf prints, without its trailing newlines.
			if t, ok := w.echoed(p); ok {
				static(t)
				if !quoted {
					out.glob = out.glob || isGlob(t)
					out.split = out.split || strings.ContainsAny(t, " \t\n")
				}
				continue
			}
			dynamic(p, !quoted)
		case *syntax.ArithmExp:
			dynamic(p, !quoted)
		case *syntax.ExtGlob:
			static(w.text(p))
			out.glob = true
		default: // *syntax.ProcSubst: a /dev/fd path known only at run time
			dynamic(p, false)
		}
	}
}

// splitsInQuotes reports "$@", "${a[@]}" and "${!prefix@}", which make
// several words even inside double quotes.
func splitsInQuotes(p *syntax.ParamExp) bool {
	if p.Names != 0 || p.Param != nil && p.Param.Value == "@" {
		return true
	}
	if ix, ok := p.Index.(*syntax.Word); ok {
		s := ix.Lit()
		return s == "@" || s == "*"
	}
	return false
}

// unescape removes the backslashes of an unquoted literal and reports
// whether it holds unescaped pattern characters (*, ?, [...]).
func unescape(s string) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, isGlob(s)
	}
	var b strings.Builder
	glob := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			b.WriteByte(s[i])
			continue
		}
		if c == '*' || c == '?' || c == '[' && strings.IndexByte(s[i:], ']') > 0 {
			glob = true
		}
		b.WriteByte(c)
	}
	return b.String(), glob
}

func isGlob(s string) bool {
	if strings.ContainsAny(s, "*?") {
		return true
	}
	i := strings.IndexByte(s, '[')
	return i >= 0 && strings.IndexByte(s[i:], ']') > 0
}

// Backslashes in double quotes escape $, `, ", \ and newline; in an
// unquoted heredoc body, the same but the double quote.
const (
	dquoteEscapable  = "$`\"\\"
	heredocEscapable = "$`\\"
)

func unescapeDquote(s string) string  { return unescapeIn(s, dquoteEscapable) }
func unescapeHeredoc(s string) string { return unescapeIn(s, heredocEscapable) }

// unescapeIn removes each backslash before one of the escapable bytes, and
// each backslash-newline pair; other backslashes stay as written.
func unescapeIn(s, escapable string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch {
			case s[i+1] == '\n':
				i++
				continue
			case strings.IndexByte(escapable, s[i+1]) >= 0:
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the escapes of a $'...' string, as bash does; $'\x72m' is
// "rm".
func ansiC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			} else {
				b.WriteString(`\c`)
			}
		case 'x', 'u', 'U':
			limit := 2
			switch e {
			case 'u':
				limit = 4
			case 'U':
				limit = 8
			}
			n, v := 0, rune(0)
			for n < limit && i+1 < len(s) && isHex(s[i+1]) {
				i++
				v = v*16 + rune(hexVal(s[i]))
				n++
			}
			switch {
			case n == 0:
				b.WriteByte('\\')
				b.WriteByte(e)
			case e == 'x':
				b.WriteByte(byte(v))
			case utf8.ValidRune(v):
				b.WriteRune(v)
			default:
				b.WriteRune(utf8.RuneError)
			}
		default:
			if e >= '0' && e <= '7' {
				v, n := int(e-'0'), 1
				for n < 3 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7' {
					i++
					v = v*8 + int(s[i]-'0')
					n++
				}
				b.WriteByte(byte(v))
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}
