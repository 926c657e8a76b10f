package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/internal/nethelper"
)

func newMCPCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve read-only MCP tools over stdio: explain_policy, query_log, discover_feedback_loops, discover_environment",
		Long: `Runs agent-shell's MCP server over stdio, for an agent to ask before it acts.
Its tools are read-only:

  explain_policy(command, cwd?, agent?)  the decision path, as policy explain --json
  query_log(last?, failures?, actor?, script?, session?, event?, limit?)
                                         recorded events (at most 500)
  discover_feedback_loops()              test, build, lint, install and task commands,
                                         with where they were found (the policy --init scan)
  discover_environment()                 toolchains, package manager, workspaces,
                                         task runners, CI workflows

The server runs in the agent-shell-net helper, installed beside agent-shell
(go install .../cmd/agent-shell-net), so that the hook and the shim do not
carry the MCP SDK. agent-shell init --mcp registers it in .mcp.json.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			helper, err := findNetHelper("agent-shell mcp")
			if err != nil {
				return err
			}
			return syscall.Exec(helper, []string{nethelper.Name, nethelper.ModeMCP, "--version", version()}, os.Environ())
		}),
	}
}

// findNetHelper looks for agent-shell-net beside this executable, then in
// PATH; what names the command that needs it.
func findNetHelper(what string) (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), nethelper.Name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath(nethelper.Name)
	if err != nil {
		return "", fmt.Errorf("%s needs the %s helper beside agent-shell or in PATH (go install github.com/agent-shell/agent-shell/cmd/%s@<the same version>)", what, nethelper.Name, nethelper.Name)
	}
	return p, nil
}
