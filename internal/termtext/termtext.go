// Package termtext makes text that came from elsewhere (a command's output,
// a configuration file, a recorded event) safe to show on a terminal. One
// classification says what in it is dangerous or invisible; three
// renderings show it the way each reader needs:
//
//   - Strip, for output a model or a person reads as output: escape
//     sequences and controls dropped, line breaks and tabs kept.
//   - Escape, for text a human reviews: every dangerous or invisible
//     character shown as \xNN or \u{NNNN}, tabs kept.
//   - Line, for one cell of a table: everything on one line, with \n, \r,
//     \t, \xNN and \uNNNN.
//
// It imports nothing of ours but internal/textcut.
package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agent-shell/agent-shell/internal/textcut"
)

// Class is what a character is to a terminal.
type Class int

const (
	// Plain characters print as themselves.
	Plain Class = iota
	// Tab is the horizontal tab.
	Tab
	// Newline is a line feed or a carriage return.
	Newline
	// Control is any other C0 control, DEL or a C1 control: they can move
	// the cursor, clear the screen or start an escape sequence.
	Control
	// Separator is a Unicode line or paragraph separator (U+2028, U+2029),
	// which some renderers break lines at.
	Separator
	// Invisible is a formatting character: the bidirectional controls,
	// zero-width characters, the byte order mark, the soft hyphen (every
	// Cf character but the zero-width joiner emoji are built with). They
	// can hide or reorder what is shown.
	Invisible
)

// Classify is r's class. An invalid byte decoded as utf8.RuneError is
// Plain here: each rendering says how it shows invalid UTF-8.
func Classify(r rune) Class {
	switch {
	case r >= 0x20 && r < 0x7f:
		return Plain
	case r == '\t':
		return Tab
	case r == '\n' || r == '\r':
		return Newline
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return Control
	case r < 0xa0:
		return Plain
	case r == 0x2028 || r == 0x2029:
		return Separator
	case r != 0x200d && unicode.Is(unicode.Cf, r):
		return Invisible
	}
	return Plain
}

// plainASCII reports whether s is printable ASCII and keep, nothing to render.
func plainASCII(s string, keep func(c byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c >= 0x7f) && !keep(c) {
			return false
		}
	}
	return true
}

func lineBreakOrTab(c byte) bool { return c == '\n' || c == '\r' || c == '\t' }
func tab(c byte) bool            { return c == '\t' }
func none(byte) bool             { return false }

// Strip is s as output to read: CSI escape sequences (ESC [ ... final
// byte) are dropped whole, other controls and invisible characters are
// dropped, line breaks, separators and tabs are kept, and invalid UTF-8
// becomes U+FFFD.
func Strip(s string) string {
	if plainASCII(s, lineBreakOrTab) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch Classify(r) {
		case Control, Invisible:
		default:
			b.WriteRune(r) // an invalid byte as U+FFFD
		}
		i += size
	}
	return b.String()
}

// Escape is s for a human to review: every control (tab excepted), line
// break, separator and invisible character is shown as \xNN (below 0x80)
// or \u{NNNN}, as are an invalid byte (\xNN) and a U+FFFD in the text
// (\u{fffd}), so that what is shown cannot move the cursor, recolour,
// hide or reorder anything.
func Escape(s string) string {
	if plainASCII(s, tab) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == utf8.RuneError:
			b.WriteString(`\u{fffd}`)
		case Classify(r) == Plain || r == '\t':
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u{%04x}`, r)
		}
	}
	return b.String()
}

// Line is s on one line of a table: \n, \r and \t as those escapes, other
// controls as \xNN, separators and invisible characters as \uNNNN, and
// invalid UTF-8 as U+FFFD. With maxRunes > 0 the result is cut to that
// many runes, ending in "…".
func Line(s string, maxRunes int) string {
	if plainASCII(s, none) {
		return textcut.Runes(s, maxRunes)
	}
	var b strings.Builder
	for _, r := range s {
		switch Classify(r) {
		case Tab:
			b.WriteString(`\t`)
		case Newline:
			if r == '\n' {
				b.WriteString(`\n`)
			} else {
				b.WriteString(`\r`)
			}
		case Control:
			fmt.Fprintf(&b, `\x%02x`, r)
		case Separator, Invisible:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r) // invalid UTF-8 arrives here as U+FFFD
		}
		if maxRunes > 0 && b.Len() > 4*maxRunes+8 {
			break // enough to cut from
		}
	}
	return textcut.Runes(b.String(), maxRunes)
}
