package policy

import "strings"

// globMatch reports whether s matches pattern, where `*` matches any run of
// characters (spaces and slashes included) and everything else is literal.
// The match is anchored at both ends and case-sensitive, as in the reference
// tool. Greedy left-to-right segment search keeps it O(len(s)·len(pattern))
// with no backtracking, whatever the pattern.
func globMatch(pattern, s string) bool {
	first, rest, found := strings.Cut(pattern, "*")
	if !found {
		return pattern == s
	}
	if !strings.HasPrefix(s, first) {
		return false
	}
	s = s[len(first):]
	for {
		seg, more, found := strings.Cut(rest, "*")
		if !found {
			// The last segment must end s and may not overlap what came before.
			return len(seg) <= len(s) && strings.HasSuffix(s, seg)
		}
		i := strings.Index(s, seg)
		if i < 0 {
			return false
		}
		s = s[i+len(seg):]
		rest = more
	}
}
