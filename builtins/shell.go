package builtins

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"mvdan.cc/sh/v3/syntax"
)

func shellModule() *starlarkstruct.Module {
	m := &starlarkstruct.Module{Name: "shell", Members: starlark.StringDict{
		"split": starlark.NewBuiltin("shell.split", shellSplit),
		"quote": starlark.NewBuiltin("shell.quote", shellQuote),
		"join":  starlark.NewBuiltin("shell.join", shellJoin),
	}}
	m.Freeze()
	return m
}

func shellSplit(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "s", &s); err != nil {
		return nil, err
	}
	words, err := SplitWords(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	out := make([]starlark.Value, len(words))
	for i, w := range words {
		out[i] = starlark.String(w)
	}
	return starlark.NewList(out), nil
}

// SplitWords splits a command line into words as a POSIX shell would, with quotes removed,
// using mvdan.cc/sh/v3/syntax (bash dialect). s must be at most MaxString bytes and one
// simple command (or nothing: then no words): operators (; | && || & redirections),
// compound commands, and anything the shell would expand ($X, $(...), backticks,
// arithmetic, globs, braces, a leading ~, $'...') are errors, since the words could not be
// known statically. Leading assignments are kept as words ("FOO=1"). At most MaxList words.
func SplitWords(s string) ([]string, error) {
	if len(s) > MaxString {
		return nil, fmt.Errorf("input is %d bytes, more than %d", len(s), MaxString)
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return nil, fmt.Errorf("NUL byte at offset %d", i)
	}
	// The parser reads \r\n as \n and a lone \r as a blank, where a shell keeps both as
	// ordinary characters: hide each \r behind a private-use rune s does not contain, and
	// put it back in the words.
	restore := func(x string) string { return x }
	restoreQuoted := restore
	if strings.IndexByte(s, '\r') >= 0 {
		r := absentPrivateRune(s)
		ph := string(r)
		s = strings.ReplaceAll(s, "\r", ph)
		restore = func(x string) string { return strings.ReplaceAll(x, ph, "\r") }
		// In a quoted excerpt (%q) the placeholder reads \uXXXX.
		restoreQuoted = strings.NewReplacer(ph, "\r", fmt.Sprintf(`\u%04x`, r), `\r`).Replace
	}
	words, err := splitWords(s)
	if err != nil {
		return nil, errors.New(restoreQuoted(err.Error()))
	}
	for i, w := range words {
		words[i] = restore(w)
	}
	return words, nil
}

// absentPrivateRune returns a rune of the Unicode private use area that s does not contain
// (there are more of them than a MaxString string can hold).
func absentPrivateRune(s string) rune {
	const lo, hi = 0xE000, 0xF8FF
	var seen [hi - lo + 1]bool
	for _, r := range s {
		if lo <= r && r <= hi {
			seen[r-lo] = true
		}
	}
	for i, ok := range seen {
		if !ok {
			return rune(lo + i)
		}
	}
	return utf8.RuneError // unreachable: MaxString bytes hold fewer than 6400 such runes
}

func splitWords(s string) ([]string, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	if err != nil {
		return nil, err
	}
	switch len(f.Stmts) {
	case 0:
		return []string{}, nil
	case 1:
	default:
		return nil, fmt.Errorf("%d commands; want one simple command", len(f.Stmts))
	}
	st := f.Stmts[0]
	switch {
	case st.Negated:
		return nil, fmt.Errorf("'!' negation; want one simple command")
	case st.Background || st.Coprocess || st.Disown:
		return nil, fmt.Errorf("background command; want one simple command")
	case len(st.Redirs) > 0:
		r := st.Redirs[0]
		return nil, fmt.Errorf("redirection %q; want one simple command", source(s, r.Pos(), r.End()))
	}
	sp := splitter{src: s}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range cmd.Assigns {
			if err := sp.assign(a); err != nil {
				return nil, err
			}
		}
		for _, w := range cmd.Args {
			if err := sp.word(w); err != nil {
				return nil, err
			}
		}
	case *syntax.DeclClause:
		sp.add(cmd.Variant.Value)
		for _, a := range cmd.Args {
			if err := sp.assign(a); err != nil {
				return nil, err
			}
		}
	case nil:
	default:
		return nil, fmt.Errorf("%q is not a simple command", clipRaw(source(s, cmd.Pos(), cmd.End())))
	}
	if sp.err != nil {
		return nil, sp.err
	}
	if sp.words == nil {
		sp.words = []string{}
	}
	return sp.words, nil
}

type splitter struct {
	src   string
	words []string
	err   error
}

func (sp *splitter) add(w string) {
	if len(sp.words) >= MaxList && sp.err == nil {
		sp.err = fmt.Errorf("more than %d words", MaxList)
	}
	sp.words = append(sp.words, w)
}

func (sp *splitter) static(n syntax.Node) error {
	return fmt.Errorf("%q cannot be split statically", clipRaw(source(sp.src, n.Pos(), n.End())))
}

func (sp *splitter) assign(a *syntax.Assign) error {
	if a.Index != nil || a.Array != nil {
		return sp.static(a)
	}
	if a.Naked {
		if a.Value != nil {
			return sp.word(a.Value)
		}
		sp.add(a.Name.Value)
		return nil
	}
	var b strings.Builder
	b.WriteString(a.Name.Value)
	if a.Append {
		b.WriteString("+=")
	} else {
		b.WriteString("=")
	}
	if a.Value != nil {
		if err := sp.text(&b, a.Value, true); err != nil {
			return err
		}
	}
	sp.add(b.String())
	return nil
}

func (sp *splitter) word(w *syntax.Word) error {
	var b strings.Builder
	if err := sp.text(&b, w, false); err != nil {
		return err
	}
	sp.add(b.String())
	return nil
}

// text writes the unquoted text of w; afterEquals is set for an assignment's value (where
// a leading ~ would also be expanded).
func (sp *splitter) text(b *strings.Builder, w *syntax.Word, afterEquals bool) error {
	if sp.mayBraceExpand(w) {
		return sp.static(w)
	}
	openBracket := false // an unquoted [ seen: a later ] makes a glob
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			for j := 0; j < len(v); j++ {
				c := v[j]
				switch c {
				case '\\':
					if j+1 < len(v) {
						j++
						c = v[j]
						if c == '\n' {
							continue // a line continuation the parser left after an escaped backslash
						}
					}
				case '*', '?':
					return sp.static(w)
				case '[':
					openBracket = true
				case ']':
					if openBracket {
						return sp.static(w)
					}
				case '~':
					atStart := i == 0 && j == 0
					if atStart || (j > 0 && (v[j-1] == '=' || v[j-1] == ':') && (afterEquals || strings.Contains(v[:j], "="))) {
						return sp.static(w)
					}
				}
				b.WriteByte(c)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return sp.static(p)
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return sp.static(p)
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return sp.static(q)
				}
				v := lit.Value
				for j := 0; j < len(v); j++ {
					c := v[j]
					if c == '\\' && j+1 < len(v) && strings.IndexByte("$`\"\\\n", v[j+1]) >= 0 {
						j++
						c = v[j]
						if c == '\n' {
							continue // a line continuation, as above
						}
					}
					b.WriteByte(c)
				}
			}
		default:
			return sp.static(part)
		}
	}
	return nil
}

// mayBraceExpand reports whether bash might brace-expand w: an unquoted, unescaped { before an
// unquoted } with a comma or ".." between them (quoted ones too, to be safe). {} and {a} are
// literal, so "find -exec rm {} ;" splits.
func (sp *splitter) mayBraceExpand(w *syntax.Word) bool {
	var shape strings.Builder // w's text with quoted or escaped braces blanked
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			for j := 0; j < len(p.Value); j++ {
				if p.Value[j] == '\\' {
					shape.WriteString("xx")
					j++
					continue
				}
				shape.WriteByte(p.Value[j])
			}
		case *syntax.SglQuoted:
			shape.WriteString(strings.NewReplacer("{", "x", "}", "x").Replace(p.Value))
		default:
			shape.WriteString(strings.NewReplacer("{", "x", "}", "x").Replace(source(sp.src, part.Pos(), part.End())))
		}
	}
	t := shape.String()
	open, close := strings.IndexByte(t, '{'), strings.LastIndexByte(t, '}')
	return open >= 0 && close > open && (strings.Contains(t[open:close], ",") || strings.Contains(t[open:close], ".."))
}

func source(s string, from, to syntax.Pos) string {
	a, z := int(from.Offset()), int(to.Offset())
	if a < 0 || z > len(s) || a > z {
		return ""
	}
	return s[a:z]
}

func clipRaw(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

func shellQuote(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "s", &s); err != nil {
		return nil, err
	}
	if err := checkString(b.Name(), "s", s, MaxString); err != nil {
		return nil, err
	}
	q, err := QuoteWord(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.String(q), nil
}

func shellJoin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "words", &v); err != nil {
		return nil, err
	}
	words, err := stringList(b.Name(), "words", v)
	if err != nil {
		return nil, err
	}
	var out strings.Builder
	for i, w := range words {
		if err := checkString(b.Name(), fmt.Sprintf("words[%d]", i), w, MaxString); err != nil {
			return nil, err
		}
		q, err := QuoteWord(w)
		if err != nil {
			return nil, fmt.Errorf("%s: words[%d]: %v", b.Name(), i, err)
		}
		if out.Len()+len(q)+1 > MaxOutput {
			return nil, fmt.Errorf("%s: result is more than %d bytes", b.Name(), MaxOutput)
		}
		if i > 0 {
			out.WriteByte(' ')
		}
		out.WriteString(q)
	}
	return starlark.String(out.String()), nil
}

// QuoteWord quotes s as one shell word: bare if it has only [A-Za-z0-9_./:=@%+,-] and
// could not be read as a reserved word or an assignment, a pair of single quotes if it is
// empty, else in single quotes, each single quote inside written as quote, backslash, quote,
// quote (close, escaped quote, reopen). A NUL byte cannot be quoted.
func QuoteWord(s string) (string, error) {
	if s == "" {
		return "''", nil
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "", fmt.Errorf("a shell word cannot contain a NUL byte")
	}
	if bareWord(s) {
		return s, nil
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", nil
}

func bareWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("_./:=@%+,-", c) >= 0:
		default:
			return false
		}
	}
	if name, _, ok := strings.Cut(s, "="); ok && syntax.ValidName(strings.TrimSuffix(name, "+")) {
		return false // NAME=x or NAME+=x would be an assignment in command position
	}
	if syntax.IsKeyword(s) {
		return false
	}
	switch s {
	case "declare", "local", "export", "readonly", "typeset", "nameref", "let":
		return false // parsed as declaration or arithmetic clauses in command position
	}
	return true
}
