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

// Runes shortens s to at most n runes (n <= 0: no limit), the last of them
// "…" when it cut: for a table's cell, where width is counted in runes.
func Runes(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, runes := 0, 0
	for runes < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		runes++
	}
	return s[:i] + "…"
}
