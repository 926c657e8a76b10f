package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/agent-shell/agent-shell/call"
	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/internal/project"
	"github.com/agent-shell/agent-shell/setup"
)

func newInitCmd(a *app) *cobra.Command {
	var f setup.Flags
	var withMCP bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Set agent-shell up in this repository: agent hooks, a starter policy, npm, .gitignore",
		Long: `Detects the repository (its git root, package managers and agents) and sets
up what is missing: each agent's hooks (flight recording and policy checks:
one registration serves both), an agent-shell.toml taking in the built-in
safety pack when there is no policy (existing policy files are never
touched), script-shell=agent-shell in
.npmrc, and .agent-shell/ in .gitignore. Existing files are merged, keeping
every other key and line; a file that cannot be read is left unchanged and
is an error. Running it again changes nothing.

On a terminal with no flags it asks (the agents, the features, then a
confirmation). Any flag means it asks nothing: with a feature flag only the
named features are set up, otherwise every missing one; a --no-* flag beats
its twin. With no terminal and no flags it sets up every missing feature for
the agents it finds (Copilot when none) and says so on stderr.

With --mcp it also registers agent-shell's MCP server (agent-shell mcp) in
.mcp.json, Claude Code's project MCP servers, keeping the other servers; it
is never registered without the flag. --mcp alone does only that.

Agents: ` + strings.Join(hostapi.Names(), ", "),
		Example: `  agent-shell init
  agent-shell init --agent copilot,claude --yes
  agent-shell init --agent claude --no-npm`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			n := cmd.Flags().NFlag()
			if withMCP {
				n--
			}
			f.Given = n > 0
			for i, n := range f.Agents {
				f.Agents[i] = call.AgentName(n)
			}
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			if withMCP && n == 0 {
				return a.registerMCP(cwd)
			}
			err = setup.Run(setup.Options{
				Dir:      cwd,
				Getenv:   a.getenv,
				Stdout:   a.stdout,
				Stderr:   a.stderr,
				Terminal: a.initTerminal(),
				Flags:    f,
			})
			var usage *setup.UsageError
			switch {
			case errors.As(err, &usage):
				return &runtimeError{err: err, code: exitUsage}
			case errors.Is(err, setup.ErrCanceled):
				return exitCode(130) // setup said so; 130 is the shell's Ctrl-C status
			}
			if err == nil && withMCP {
				err = a.registerMCP(cwd)
			}
			return err
		}),
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.Agents, "agent", nil, "the agents to hook into, comma-separated (default: the ones found, else copilot): "+strings.Join(hostapi.Names(), ", "))
	fl.BoolVar(&f.FlightRecorder, "flight-recorder", false, "record every tool call (installs the agents' hooks)")
	fl.BoolVar(&f.NoFlightRecorder, "no-flight-recorder", false, "do not set up flight recording")
	fl.BoolVar(&f.Policy, "policy", false, "check commands before they run (the hooks, and the safety pack when there is no policy)")
	fl.BoolVar(&f.NoPolicy, "no-policy", false, "do not set up the policy")
	fl.BoolVar(&f.NPM, "npm", false, "record npm scripts: script-shell=agent-shell in .npmrc (replaces another script-shell)")
	fl.BoolVar(&f.NoNPM, "no-npm", false, "leave .npmrc alone")
	fl.BoolVar(&withMCP, "mcp", false, "also register agent-shell's MCP server in .mcp.json (alone: only that)")
	fl.BoolVarP(&f.Yes, "yes", "y", false, "set up every missing feature without asking (replaces another script-shell in .npmrc)")
	return cmd
}

// initTerminal returns the terminal init may ask on: stdin and stdout must
// both be one (a piped stdout would swallow the prompt).
func (a *app) initTerminal() *setup.Terminal {
	in, ok := a.stdin.(*os.File)
	out, ok2 := a.stdout.(*os.File)
	if !ok || !ok2 || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return nil
	}
	return &setup.Terminal{In: in, Out: out}
}

// registerMCP adds agent-shell mcp to the repository's .mcp.json.
func (a *app) registerMCP(cwd string) error {
	root, ok := project.RepoRoot(cwd)
	if !ok {
		return errors.New("run agent-shell init --mcp inside a git repository")
	}
	changed, err := hostapi.RegisterMCP(root)
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(a.stdout, "Registered the MCP server agent-shell (agent-shell mcp) in %s.\n", hostapi.MCPConfigFile)
	} else {
		fmt.Fprintf(a.stdout, "%s already registers the MCP server agent-shell.\n", hostapi.MCPConfigFile)
	}
	return nil
}
