package call

import (
	"os/exec"
	"strings"
	"testing"
)

// The hook's hot path builds no command tree and links nothing of
// onboarding or the network: package call must not pull them in.
func TestLeanDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/spf13/cobra", "github.com/agent-shell/agent-shell/setup",
			"github.com/agent-shell/agent-shell/policy/discover", "github.com/agent-shell/agent-shell/enforce", "net/http"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("package call depends on %s", dep)
			}
		}
	}
}
