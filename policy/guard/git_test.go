package guard

import (
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// The guard reads git's subcommand from the one table of its global
// options (shellcmd.GitSplit), as policy's effects and matchers do (their
// TestGitSubcommandAgrees runs the same lines).
func TestGitSubcommandAgrees(t *testing.T) {
	for _, line := range []string{
		"git push --force origin main",
		"git --namespace foo push --force origin main",
		"git --super-prefix sub/ push --force",
		"git -C web push --force",
		"git -Cweb push --force",
		"git --git-dir .git --work-tree . push --force",
		"git --git-dir=.git push --force",
		"git --no-pager -P --bare push --force",
		"git -c user.name=x push --force",
		"git --config-env core.x=V push --force",
		"git --exec-path=/usr/lib/git-core push --force",
		"git --no-optional-locks --literal-pathspecs push --force",
	} {
		argv := strings.Fields(line)
		_, sub, _ := shellcmd.GitSplit(argv[1:])
		if got, _ := gitSubcommand(argv[1:]); got != sub || got != "push" {
			t.Errorf("%q: the guard reads %q, GitSplit %q", line, got, sub)
		}
	}
}
