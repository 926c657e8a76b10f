package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/setup"
)

func newUninstallCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall",
		Short: "Remove every agent's hook registration and the npm setting init made",
		Long: `Removes what init and hook install wrote to put agent-shell in the agents' and
npm's way, and only that: each agent's hook entries that run agent-shell (the
rest of each file is kept; a file left with nothing is removed), opencode's
plugin and amp's delegate, and .npmrc's script-shell=agent-shell (a
script-shell it replaced comes back). The policy, the recorded events, the
.gitignore entry and the authorization record stay: delete
.github/hooks/agent-shell/ and .agent-shell/ to drop them too.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			h, err := a.here()
			if err != nil {
				return err
			}
			root, ok := h.Root, h.InRepo
			if !ok {
				return fmt.Errorf("%s is not inside a git repository", h.Cwd)
			}
			hooks, err := hostapi.Uninstall(root)
			for _, f := range hooks {
				fmt.Fprintf(a.stdout, "removed agent-shell from %s\n", rel(f))
			}
			if err != nil {
				return err
			}
			npm, err := setup.Uninstall(root)
			for _, f := range npm {
				fmt.Fprintf(a.stdout, "removed agent-shell from %s\n", rel(f))
			}
			if err != nil {
				return err
			}
			if len(hooks)+len(npm) == 0 {
				fmt.Fprintln(a.stdout, "no registration of agent-shell found; nothing changed")
			}
			return nil
		}),
	}
}
