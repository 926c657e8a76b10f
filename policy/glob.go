package policy

import (
	"strings"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// globMatch reports whether s matches pattern, where `*` matches any run of
// characters (spaces and slashes included) and everything else is literal.
// The match is anchored at both ends and case-sensitive, as in the reference
// tool (docs/README.md, "Terms"). Greedy left-to-right segment search keeps it O(len(s)·len(pattern))
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

// maxMeetCells bounds the table meets fills: past it, two long texts are
// not compared and may meet.
const maxMeetCells = 1 << 22

// globMeets reports whether some text matches both a glob pattern (`*`
// any run of characters, as globMatch) and a template whose Hole and
// Spread markers (see shellcmd.Shapes) also stand for any run: whether the
// pattern matches some run-time value of a command. Past maxMeetCells it
// answers true: a deny can only get safer.
func globMeets(pattern, template string) bool {
	g := wildcards{strings.IndexByte(pattern, '*'), strings.LastIndexByte(pattern, '*'), func(i int) bool { return pattern[i] == '*' }}
	return meets(pattern, g, template)
}

// literalMeets reports whether a template may be the text s, `*` and all.
func literalMeets(s, template string) bool {
	return meets(s, wildcards{-1, -1, func(int) bool { return false }}, template)
}

// prefixMeets reports whether a template may be the text s, or s then a
// space and more.
func prefixMeets(s, template string) bool {
	more := s + " *"
	end := len(more) - 1
	return literalMeets(s, template) || meets(more, wildcards{end, end, func(i int) bool { return i == end }}, template)
}

// containsMeets reports whether a template may hold the text s.
func containsMeets(s, template string) bool {
	p := "*" + s + "*"
	return meets(p, wildcards{0, len(p) - 1, func(i int) bool { return i == 0 || i == len(p)-1 }}, template)
}

// wildcards says which characters of a pattern stand for any run: first
// and last are the first and last of them (-1: none), wild tells any.
type wildcards struct {
	first, last int
	wild        func(int) bool
}

// meets reports whether some text matches both pattern, whose wildcards
// stand for any run, and template.
func meets(pattern string, g wildcards, template string) bool {
	if !literalEndsAgree(pattern, g, template) {
		return false
	}
	wild := g.wild
	n, m := len(pattern), len(template)
	if (n+1)*(m+1) > maxMeetCells {
		return true
	}
	// next[j] says whether pattern[i+1:] and template[j:] meet, cur[j]
	// the same for pattern[i:]; the last row is an exhausted pattern,
	// which meets what markers alone can stand for.
	next, cur := make([]bool, m+1), make([]bool, m+1)
	next[m] = true
	for j := m - 1; j >= 0; j-- {
		next[j] = isMarker(template[j]) && next[j+1]
	}
	for i := n - 1; i >= 0; i-- {
		w := wild(i)
		for j := m; j >= 0; j-- {
			switch {
			case w: // it stops here, or takes what template[j] stands for
				cur[j] = next[j] || j < m && cur[j+1]
			case j < m && isMarker(template[j]): // the marker stops here, or takes pattern[i]
				cur[j] = cur[j+1] || next[j]
			default:
				cur[j] = j < m && pattern[i] == template[j] && next[j+1]
			}
		}
		cur, next = next, cur
	}
	return next[0]
}

func isMarker(c byte) bool { return c == shellcmd.Hole || c == shellcmd.Spread }

// shapeMarkers are the markers of a template, for strings.IndexAny.
const shapeMarkers = string(shellcmd.Hole) + string(shellcmd.Spread)

// literalEndsAgree compares what both texts must start and end with, up to
// their first and from their last wildcard: most pairs differ there.
func literalEndsAgree(pattern string, g wildcards, template string) bool {
	pi, pj := g.first, g.last
	ti := strings.IndexAny(template, shapeMarkers)
	if pi < 0 && ti < 0 {
		return pattern == template
	}
	pp, tp := literalPart(pattern, pi), literalPart(template, ti)
	k := min(len(pp), len(tp))
	if pp[:k] != tp[:k] {
		return false
	}
	ps, ts := pattern[pj+1:], template[strings.LastIndexAny(template, shapeMarkers)+1:]
	k = min(len(ps), len(ts))
	return ps[len(ps)-k:] == ts[len(ts)-k:]
}

// literalPart is s up to its first wildcard at i, all of s when i < 0.
func literalPart(s string, i int) string {
	if i < 0 {
		return s
	}
	return s[:i]
}
