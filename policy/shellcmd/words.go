package shellcmd

import (
	"strings"
	"unicode"
)

// Word helpers the policy's effects and the guard both read commands with.

// TrimSpace trims Unicode spaces at both ends of a command line, U+FEFF
// included, as JavaScript's trim does.
func TrimSpace(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
}

// DynamicWord reports a word whose value is only known at run time: an
// expansion or substitution kept as source text, or find's {} placeholder.
func DynamicWord(w string) bool {
	return strings.ContainsAny(w, "$`") || strings.Contains(w, "{}")
}

// HasDotDot reports whether a slash-separated path has a ".." segment.
func HasDotDot(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// FindRoots are find's starting points: the arguments before its first
// expression word. With none, find searches ".".
func FindRoots(args []string) []string {
	var roots []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" {
			break
		}
		roots = append(roots, a)
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	return roots
}
