package policy

import (
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"npm run X", "npm run X", true},
		{"npm run X", "npm run XY", false},
		{"npm run deploy*", "npm run deployprod", true},
		{"npm run deploy*", "npm run deploy", true},
		{"echo hello.world", "echo helloXworld", false}, // . is literal
		{"npm test", "npm test-utils", false},
		{"git status *", "git status --short", true},
		{"git status *", "git status", false}, // needs the space
		{"npm run lint*", "npm run lint -- --fix", true},
		{"*", "anything at all", true},
		{"*", "", true},
		{"a*b*c", "abc", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "acb", false},
		{"ab*ba", "aba", false}, // the last segment cannot overlap the first
		{"a*a", "a", false},
		{"a*a", "aa", true},
		{"*.go", "main.go", true},
		{"rm -rf *", "RM -rf /", false}, // case-sensitive
		{"x**y", "xy", true},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

// The reference tool's own check: twenty `a*` then `b` against a hundred `a`. A
// backtracking matcher would not finish within the test timeout.
func TestGlobMatchHasNoBacktracking(t *testing.T) {
	if globMatch(strings.Repeat("a*", 20)+"b", strings.Repeat("a", 100)) {
		t.Fatal("matched")
	}
}

func FuzzGlobMatch(f *testing.F) {
	f.Add("rm -rf *", "rm -rf /")
	f.Add("a*b*c", "aXbYc")
	f.Add("*", "")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		got := globMatch(pattern, s)
		if !strings.Contains(pattern, "*") && got != (pattern == s) {
			t.Fatalf("literal pattern %q vs %q: %v", pattern, s, got)
		}
		if strings.Contains(pattern, "*") {
			// A pattern matches itself with each * standing for nothing.
			if !globMatch(pattern, strings.ReplaceAll(pattern, "*", "")) {
				t.Fatalf("%q does not match its own literal parts", pattern)
			}
		}
		if got {
			first, _, _ := strings.Cut(pattern, "*")
			if !strings.HasPrefix(s, first) {
				t.Fatalf("%q matched %q without its prefix", pattern, s)
			}
		}
	})
}

// tmpl writes a template readably: · is a Hole, … a Spread.
func tmpl(s string) string {
	return strings.NewReplacer("·", string(shellcmd.Hole), "…", string(shellcmd.Spread)).Replace(s)
}

func TestGlobMeets(t *testing.T) {
	for _, tt := range []struct {
		pattern, template string
		want              bool
	}{
		// No markers: globMatch.
		{"rm -f -r *", "rm -f -r x", true},
		{"rm -f -r *", "rm x", false},
		// A marker takes what the pattern needs.
		{"rm -f -r *", "rm…", true},
		{"rm -f -r *", "rm… x", true},
		{"git push -f*", "git push…", true},
		{"git reset --hard*", "git reset…", true},
		{"rm -rf *", "rm -r… x", true},
		{"rm -f -r /", "rm -f -r ·", true},
		{"rm -f -r /", "rm -f -r x/·", false}, // the static x/ rules / out
		{"git push -f*", "git push origin HEAD:·", false},
		{"git push -f*", "rm…", false}, // another program
		{"rm -f -r *", "rm… notes.txt", true},
		{"a*b", "·", true},
		{"ab", "a·b", true},
		{"ab", "a·c", false},
		{"a*c*e", "a·d·", true}, // acde
		{"a*c", "a·d", false},
		{"*x", "·y", false},
		{"", "…", true},
		{"", "x", false},
		{"x", "", false},
		{"**", "", true},
	} {
		if got := globMeets(tt.pattern, tmpl(tt.template)); got != tt.want {
			t.Errorf("globMeets(%q, %q) = %v, want %v", tt.pattern, tt.template, got, tt.want)
		}
	}
}

// TestGlobMeetsTooLong: past the table's bound the answer is yes.
func TestGlobMeetsTooLong(t *testing.T) {
	long := "x" + strings.Repeat("·y", 3000)
	if !globMeets("x*"+strings.Repeat("z*", 1000)+"y", tmpl(long)) {
		t.Error("a pair past maxMeetCells does not meet")
	}
}

// FuzzGlobMeets checks globMeets against globMatch: without markers they
// agree, and a template meets every pattern one of its values matches (a
// value here: each marker replaced by one of the pattern's own pieces).
func FuzzGlobMeets(f *testing.F) {
	f.Add("rm -f -r *", "rm \x01 x", uint8(0))
	f.Add("git push -f*", "git push origin \x00", uint8(1))
	f.Add("a*b*c", "a\x00c", uint8(2))
	f.Fuzz(func(t *testing.T, pattern, template string, pick uint8) {
		if strings.IndexAny(template, shapeMarkers) < 0 {
			if globMeets(pattern, template) != globMatch(pattern, template) {
				t.Fatalf("globMeets(%q, %q) differs from globMatch", pattern, template)
			}
			return
		}
		pieces := append(strings.Split(pattern, "*"), "", " ", pattern)
		value := ""
		for i := 0; i < len(template); i++ {
			if isMarker(template[i]) {
				value += pieces[(int(pick)+i)%len(pieces)]
			} else {
				value += template[i : i+1]
			}
		}
		if globMatch(pattern, value) && !globMeets(pattern, template) {
			t.Fatalf("globMeets(%q, %q) is false, but the value %q matches", pattern, template, value)
		}
	})
}
