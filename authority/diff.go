package authority

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agent-shell/agent-shell/internal/termtext"
	"github.com/agent-shell/agent-shell/internal/udiff"
)

// Bounds on a diff, so that a huge or hostile change still prints a
// readable (if cut) review.
const (
	maxDiffLines = 2000 // lines of output in all
	maxFileLines = 400  // lines of output per file
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
			w.file("new file: "+termtext.Escape(p), nil, b)
		case !inB:
			w.file("deleted file: "+termtext.Escape(p), a, nil)
		default:
			w.file("changed file: "+termtext.Escape(p), a, b)
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
	shown := 0
	udiff.Lines(a, b, func(s string) bool {
		if shown >= maxFileLines {
			return false
		}
		shown++
		w.line(s)
		return true
	})
	if shown >= maxFileLines {
		w.line(fmt.Sprintf("... (this file's diff is cut at %d lines)", maxFileLines))
	}
}

func isBinary(b []byte) bool {
	return strings.IndexByte(string(b), 0) >= 0 || !utf8.Valid(b)
}
