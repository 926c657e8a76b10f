package policy

import (
	"strings"
	"testing"
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

// The reference's test 22: twenty `a*` then `b` against a hundred `a`. A
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
