package shellcmd

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/internal/corpustsv"
)

// corpusCommands reads the command column of a corpus TSV (see
// testdata/corpus/README.md).
func corpusCommands(t testing.TB, file string) []string {
	t.Helper()
	rows, err := corpustsv.Read(file)
	if err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.Fields[0])
	}
	return out
}

// TestCorpus parses every command of the peer corpora: no panic, no
// internal error, and the invariants of FuzzParse hold. It logs how many
// lines do not parse (-v shows them).
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.tsv")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	total, parseErrs, unknown := 0, 0, 0
	for _, file := range files {
		cmds := corpusCommands(t, file)
		fileErrs := 0
		for _, cmd := range cmds {
			l := Parse(cmd)
			checkLine(t, cmd, l)
			switch {
			case l.Err != nil:
				fileErrs++
				t.Logf("%s: parse error: %q: %v", filepath.Base(file), cmd, l.Err)
			case l.Unknown():
				unknown++
			}
		}
		t.Logf("%s: %d commands, %d parse errors", filepath.Base(file), len(cmds), fileErrs)
		total += len(cmds)
		parseErrs += fileErrs
	}
	t.Logf("corpus: %d commands, %d parse errors, %d parsed but unknown", total, parseErrs, unknown)
}

// checkLine asserts the invariants every parsed line keeps.
func checkLine(t testing.TB, src string, l *Line) {
	t.Helper()
	if errors.Is(l.Err, ErrInternal) {
		t.Fatalf("Parse(%q): %v", src, l.Err)
	}
	if l.Err != nil && !l.Unknown() {
		t.Fatalf("Parse(%q): parse error %v but not unknown", src, l.Err)
	}
	for i, c := range l.Commands {
		if len(c.Argv) == 0 && c.Unknown == "" {
			t.Fatalf("Parse(%q): command %d has no Argv and no Unknown", src, i)
		}
		if c.Unknown != "" && !c.Guessed && !l.Unknown() {
			t.Fatalf("Parse(%q): command %d is unknown but the line is not", src, i)
		}
		if c.Guessed && i == 0 {
			t.Fatalf("Parse(%q): the first command is guessed", src)
		}
		if len(c.Layers) == 0 || !equalStrings(c.Layers[len(c.Layers)-1], c.Argv) {
			t.Fatalf("Parse(%q): command %d: last layer %q is not Argv %q", src, i, c.Layers, c.Argv)
		}
		if c.Depth < 0 || c.Depth > MaxDepth {
			t.Fatalf("Parse(%q): command %d at depth %d", src, i, c.Depth)
		}
		if c.DirUnknown && c.Dirs != nil || len(c.Dirs) > maxDirs {
			t.Fatalf("Parse(%q): command %d: DirUnknown %v with %d Dirs", src, i, c.DirUnknown, len(c.Dirs))
		}
		for _, d := range c.Dirs {
			if d == "" || hasExpansion(d) || strings.ContainsAny(d, "*?[") || strings.HasPrefix(d, "~") && d != "~" && !strings.HasPrefix(d, "~/") {
				t.Fatalf("Parse(%q): command %d: Dirs %q holds %q", src, i, c.Dirs, d)
			}
		}
		checkShapes(t, src, i, c)
		for _, layer := range append(c.Layers, c.Argv) {
			once := Canonical(layer)
			if twice := Canonical(once); !equalStrings(once, twice) {
				t.Fatalf("Canonical is not idempotent on %q: %q then %q", layer, once, twice)
			}
		}
	}
	for _, p := range l.Pipelines {
		if len(p) < 2 {
			t.Fatalf("Parse(%q): pipeline with %d stages", src, len(p))
		}
		for _, stage := range p {
			for _, k := range stage {
				if k < 0 || k >= len(l.Commands) {
					t.Fatalf("Parse(%q): pipeline index %d out of range", src, k)
				}
			}
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkShapes checks a command's Shapes: there exactly when it is
// dynamic, one per layer, each word's shape its text when static, a
// trailing lone Spread at most.
func checkShapes(t testing.TB, src string, i int, c Command) {
	t.Helper()
	if c.Dynamic != (c.Shapes != nil) {
		t.Fatalf("Parse(%q): command %d: Dynamic %v with Shapes %q", src, i, c.Dynamic, c.Shapes)
	}
	if c.Shapes != nil && len(c.Shapes) != len(c.Layers) {
		t.Fatalf("Parse(%q): command %d: %d shapes for %d layers", src, i, len(c.Shapes), len(c.Layers))
	}
	for k, shape := range c.Shapes {
		layer := c.Layers[k]
		if len(shape) == len(layer)+1 && shape[len(layer)] == string(Spread) {
			shape = shape[:len(layer)]
		}
		if len(shape) != len(layer) {
			t.Fatalf("Parse(%q): command %d: shape %q of layer %q", src, i, shape, layer)
		}
		for j, w := range shape {
			if strings.IndexAny(w, markers) < 0 && w != layer[j] {
				t.Fatalf("Parse(%q): command %d: static shape %q of word %q", src, i, w, layer[j])
			}
		}
	}
}
