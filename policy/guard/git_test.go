package guard

import (
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/internal/corpustsv"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// The guard reads git's subcommand from the one table of its global
// options (shellcmd.GitSplit), as policy's effects and matchers do (their
// TestGitSubcommandAgrees runs the same lines).
func TestGitSubcommandAgrees(t *testing.T) {
	// One push behind each of git's global options.
	rows, err := corpustsv.Read("../shellcmd/testdata/git-push-spellings.tsv")
	if err != nil || len(rows) < 10 {
		t.Fatalf("%d spellings: %v", len(rows), err)
	}
	for _, row := range rows {
		line := row.Fields[0]
		argv := strings.Fields(line)
		_, sub, _ := shellcmd.GitSplit(argv[1:])
		if got, _ := gitSubcommand(argv[1:]); got != sub || got != "push" {
			t.Errorf("%q: the guard reads %q, GitSplit %q", line, got, sub)
		}
	}
}
