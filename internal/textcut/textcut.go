// Package textcut cuts text to a budget of bytes without splitting a UTF-8
// sequence: the one way agent-shell shortens what it records and quotes.
package textcut

import "unicode/utf8"

// Cut returns s cut to at most max bytes, at the start of a rune, and
// whether it cut. In invalid UTF-8, where the bytes before the cut may not
// start any rune, it backs up no further than one rune could be long and
// otherwise cuts at max.
func Cut(s string, max int) (string, bool) {
	if max < 0 {
		max = 0
	}
	if len(s) <= max {
		return s, false
	}
	for back := max; back > max-utf8.UTFMax && back >= 0; back-- {
		if utf8.RuneStart(s[back]) {
			return s[:back], true
		}
	}
	return s[:max], true
}
