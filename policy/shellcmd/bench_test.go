package shellcmd

import "testing"

// benchLine is a realistic compound command of five simple commands.
const benchLine = "cd web && FOO=1 npm ci && npm test -- --coverage | tee out.log; git status --short"

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		l := Parse(benchLine)
		if len(l.Commands) != 5 {
			b.Fatalf("%d commands", len(l.Commands))
		}
	}
}

// BenchmarkParseCanonical is what a deny matcher pays per line: parse,
// then canonicalize every layer of every command.
func BenchmarkParseCanonical(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		l := Parse(benchLine)
		for _, c := range l.Commands {
			for _, layer := range c.Layers {
				Canonical(layer)
			}
		}
	}
}

// BenchmarkParseNested covers the slower paths: a shell body, sudo, find.
func BenchmarkParseNested(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Parse(`sudo -u root bash -lc 'find . -name "*.o" -exec rm -f {} \; && echo "$(date)" > log'`)
	}
}
