// Package udiff is agent-shell's one line diff: unified form, three lines
// of context, every line shown terminal-safe (termtext.Escape), and a
// bounded cost on hostile input. It imports nothing of ours but
// internal/termtext.
package udiff

import (
	"fmt"
	"strings"

	"github.com/agent-shell/agent-shell/internal/termtext"
)

const (
	context   = 3
	maxMatrix = 2 << 20 // cells of the line-matching table
)

// Unified is the diff of a and b in unified form under a "--- nameA" and
// "+++ nameB" header, or "" when they are equal.
func Unified(nameA, nameB string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	Lines(a, b, func(s string) bool {
		out.WriteString(s)
		out.WriteByte('\n')
		return true
	})
	return out.String()
}

// Lines gives line the hunks of the diff of a and b one output line at a
// time (a hunk header, then ' ', '-' or '+' and the line, escaped, and
// "\\ No newline at end of file" after a last line without one), until
// line returns false.
func Lines(a, b []byte, line func(string) bool) {
	al, bl := splitLines(a), splitLines(b)
	ops := diffOps(al, bl)
	for _, h := range hunks(ops) {
		if !line(h.header()) {
			return
		}
		for _, o := range ops[h.from:h.to] {
			var text string
			switch o.kind {
			case ' ', '-':
				text = al[o.a]
			default:
				text = bl[o.b]
			}
			if !line(string(o.kind) + termtext.Escape(strings.TrimSuffix(text, "\n"))) {
				return
			}
			if !strings.HasSuffix(text, "\n") && !line(`\ No newline at end of file`) {
				return
			}
		}
	}
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
	if n > 0 && m > 0 && n*m <= maxMatrix {
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

// hunks groups the changes of ops with context kept lines around each;
// changes closer than twice that share a hunk.
func hunks(ops []op) []hunk {
	var out []hunk
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		from := max(0, i-context)
		// Extend while the next change is near.
		end := i
		for k := i; k < len(ops); k++ {
			if ops[k].kind != ' ' {
				end = k
				continue
			}
			if k-end > 2*context {
				break
			}
		}
		to := min(len(ops), end+1+context)
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
