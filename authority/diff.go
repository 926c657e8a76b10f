package authority

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on a diff, so that a huge or hostile change still prints a
// readable (if cut) review.
const (
	diffContext   = 3
	maxDiffLines  = 2000    // lines of output in all
	maxFileLines  = 400     // lines of output per file
	maxDiffMatrix = 2 << 20 // cells of the line-matching table per file
)

// Diff describes how the files of next differ from those of prev, one file
// after the other in path order: "new file", "deleted file", or a unified
// line diff with three lines of context. Every control character and every
// character that reorders text on a terminal (bidirectional overrides) is
// shown escaped, so that what a human reviews is what the files hold. The
// output is bounded; it is "" when the trees are equal.
func Diff(prev, next Tree) string {
	paths := map[string]bool{}
	for p := range prev {
		paths[p] = true
	}
	for p := range next {
		paths[p] = true
	}
	all := make(Tree, len(paths))
	for p := range paths {
		all[p] = nil
	}
	w := &diffWriter{max: maxDiffLines}
	for _, p := range all.Paths() {
		a, inA := prev[p]
		b, inB := next[p]
		switch {
		case inA && inB && string(a) == string(b):
			continue
		case !inA:
			w.file("new file: "+Escape(p), nil, b)
		case !inB:
			w.file("deleted file: "+Escape(p), a, nil)
		default:
			w.file("changed file: "+Escape(p), a, b)
		}
		if w.full() {
			break
		}
	}
	return w.String()
}

type diffWriter struct {
	strings.Builder
	lines, max int
	cut        bool
}

func (w *diffWriter) full() bool { return w.cut }

func (w *diffWriter) line(s string) {
	if w.cut {
		return
	}
	if w.lines >= w.max {
		w.WriteString("... (the diff is cut here: too long to show)\n")
		w.cut = true
		return
	}
	w.WriteString(s)
	w.WriteByte('\n')
	w.lines++
}

// file writes one file's header and changes; a or b is nil for a file
// that is new or deleted.
func (w *diffWriter) file(header string, a, b []byte) {
	w.line(header)
	if isBinary(a) || isBinary(b) {
		w.line(fmt.Sprintf("  binary file: %d bytes before, %d bytes now", len(a), len(b)))
		return
	}
	al, bl := splitLines(a), splitLines(b)
	ops := diffOps(al, bl)
	shown := 0
	emit := func(s string) bool {
		if shown >= maxFileLines {
			return false
		}
		shown++
		w.line(s)
		return true
	}
	for _, h := range hunks(ops) {
		if !emit(h.header()) {
			break
		}
		ok := true
		for _, o := range ops[h.from:h.to] {
			var text string
			switch o.kind {
			case ' ', '-':
				text = al[o.a]
			default:
				text = bl[o.b]
			}
			if !emit(string(o.kind) + Escape(strings.TrimSuffix(text, "\n"))) {
				ok = false
				break
			}
			if !strings.HasSuffix(text, "\n") && !emit(`\ No newline at end of file`) {
				ok = false
				break
			}
		}
		if !ok {
			break
		}
	}
	if shown >= maxFileLines {
		w.line(fmt.Sprintf("... (this file's diff is cut at %d lines)", maxFileLines))
	}
}

func isBinary(b []byte) bool {
	return strings.IndexByte(string(b), 0) >= 0 || !utf8.Valid(b)
}

// splitLines splits text after each newline; the last line may lack one.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// op is one line of an edit script: kept (' '), removed ('-') or added
// ('+'); a and b index the old and new lines.
type op struct {
	kind byte
	a, b int
}

// diffOps turns a into b line by line: the common head and tail are kept,
// and the middle is matched by a longest common subsequence, or, when the
// middle is too large to match, replaced whole (still a correct diff, only
// not the shortest).
func diffOps(a, b []string) []op {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	var ops []op
	for i := 0; i < head; i++ {
		ops = append(ops, op{' ', i, i})
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	n, m := len(ma), len(mb)
	if n > 0 && m > 0 && n*m <= maxDiffMatrix {
		// lcs[i][j] is the length of the longest common subsequence of
		// ma[i:] and mb[j:].
		w := m + 1
		lcs := make([]uint32, (n+1)*w)
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n && j < m {
			switch {
			case ma[i] == mb[j]:
				ops = append(ops, op{' ', head + i, head + j})
				i++
				j++
			case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
				ops = append(ops, op{'-', head + i, head + j})
				i++
			default:
				ops = append(ops, op{'+', head + i, head + j})
				j++
			}
		}
		for ; i < n; i++ {
			ops = append(ops, op{'-', head + i, head + m})
		}
		for ; j < m; j++ {
			ops = append(ops, op{'+', head + n, head + j})
		}
	} else {
		for i := 0; i < n; i++ {
			ops = append(ops, op{'-', head + i, head})
		}
		for j := 0; j < m; j++ {
			ops = append(ops, op{'+', head + n, head + j})
		}
	}
	for k := 0; k < tail; k++ {
		ops = append(ops, op{' ', len(a) - tail + k, len(b) - tail + k})
	}
	return ops
}

// hunk is a run of ops[from:to] around changes, with its context.
type hunk struct {
	from, to                   int
	aStart, aLines, bStart, bN int
}

func (h hunk) header() string {
	return fmt.Sprintf("@@ -%s +%s @@", span(h.aStart, h.aLines), span(h.bStart, h.bN))
}

// span is a unified diff range: 1-based start, and the count unless it is
// one; an empty range names the line before it.
func span(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// hunks groups the changes of ops with diffContext kept lines around each;
// changes closer than twice that share a hunk.
func hunks(ops []op) []hunk {
	var out []hunk
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		from := max(0, i-diffContext)
		// Extend while the next change is near.
		end := i
		for k := i; k < len(ops); k++ {
			if ops[k].kind != ' ' {
				end = k
				continue
			}
			if k-end > 2*diffContext {
				break
			}
		}
		to := min(len(ops), end+1+diffContext)
		h := hunk{from: from, to: to, aStart: ops[from].a, bStart: ops[from].b}
		for _, o := range ops[from:to] {
			if o.kind != '+' {
				h.aLines++
			}
			if o.kind != '-' {
				h.bN++
			}
		}
		out = append(out, h)
		i = to
	}
	return out
}

// Escape shows s with every control character (tab excepted), every
// invisible formatting character and every bidirectional control escaped
// as \xNN or \u{NNNN}, so that text printed for a human to review cannot
// move the cursor, recolour, hide or reorder what is shown.
func Escape(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && needsEscape(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsEscape(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	case r == utf8.RuneError:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true // bidirectional controls
	}
	return unicode.Is(unicode.Cf, r) && r != 0x200d // formatting (zero width) characters, but the emoji joiner
}
