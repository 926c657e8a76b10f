package guard

import (
	"os"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// The guard reads git's subcommand from the one table of its global
// options (shellcmd.GitSplit), as policy's effects and matchers do (their
// TestGitSubcommandAgrees runs the same lines).
func TestGitSubcommandAgrees(t *testing.T) {
	for _, line := range gitPushSpellings(t) {
		argv := strings.Fields(line)
		_, sub, _ := shellcmd.GitSplit(argv[1:])
		if got, _ := gitSubcommand(argv[1:]); got != sub || got != "push" {
			t.Errorf("%q: the guard reads %q, GitSplit %q", line, got, sub)
		}
	}
}

// gitPushSpellings reads the lines of ../shellcmd/testdata/git-push-spellings.txt: one push behind each of git's
// global options.
func gitPushSpellings(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../shellcmd/testdata/git-push-spellings.txt")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	if len(lines) < 10 {
		t.Fatalf("%d spellings: the file is not the one the test needs", len(lines))
	}
	return lines
}
