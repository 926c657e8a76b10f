package shellcmd

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusCommands reads the command column of a corpus TSV (see
// testdata/corpus/README.md), undoing its escapes.
func corpusCommands(t testing.TB, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("open corpus: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for first := true; sc.Scan(); first = false {
		if first {
			continue // header
		}
		cmd, _, _ := strings.Cut(sc.Text(), "\t")
		out = append(out, unescapeTSV(cmd))
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read corpus %s: %v", file, err)
	}
	return out
}

func unescapeTSV(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
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
		if c.Unknown != "" && !l.Unknown() {
			t.Fatalf("Parse(%q): command %d is unknown but the line is not", src, i)
		}
		if len(c.Layers) == 0 || !equalStrings(c.Layers[len(c.Layers)-1], c.Argv) {
			t.Fatalf("Parse(%q): command %d: last layer %q is not Argv %q", src, i, c.Layers, c.Argv)
		}
		if c.Depth < 0 || c.Depth > MaxDepth {
			t.Fatalf("Parse(%q): command %d at depth %d", src, i, c.Depth)
		}
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
