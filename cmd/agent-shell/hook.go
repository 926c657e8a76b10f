package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/hostapi"
)

func newHookCmd(a *app) *cobra.Command {
	var agent, event string
	cmd := &cobra.Command{
		Use:   "hook --agent NAME",
		Short: "Handle one hook call of an agent: decide on tool calls, record every event",
		Long: `Reads one hook payload of the named agent on stdin and answers in that agent's
own protocol. A pre-tool event is decided by the project's policy; every event
is recorded after the answer is written. Anything that cannot be read or
decided on a pre-tool event is that agent's own deny.

Agents: ` + strings.Join(hostapi.Names(), ", "),
		Example: `  agent-shell hook --agent claude < payload.json
  agent-shell hook install --agent claude`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			ad, err := a.adapter(agent)
			if err != nil {
				return err
			}
			return exitCode(a.call.Hook(ad, event))
		}),
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent that calls: "+strings.Join(hostapi.Names(), ", "))
	cmd.Flags().StringVar(&event, "event", "", "the agent's `NAME` for the event, for agents whose payloads do not carry it")
	cmd.Flags().Int64Var(&a.call.MaxPayload, "max-payload", hostapi.DefaultMaxPayload, "refuse (deny) a payload over `BYTES`")
	_ = cmd.MarkFlagRequired("agent")

	var installAgents []string
	install := &cobra.Command{
		Use:   "install --agent NAME[,NAME...]",
		Short: "Register agent-shell in the agents' hook configuration of this repository",
		Args:  cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			h, err := a.here()
			if err != nil {
				return err
			}
			for _, name := range installAgents {
				ad, err := a.adapter(name)
				if err != nil {
					return err
				}
				files, err := ad.Install(h.Root)
				if err != nil {
					return fmt.Errorf("install %s hooks: %w", ad.Name(), err)
				}
				if len(files) == 0 {
					fmt.Fprintf(a.stdout, "%s hooks already registered; nothing changed\n", ad.Name())
				}
				for _, f := range files {
					fmt.Fprintf(a.stdout, "wrote %s\n", rel(f))
				}
			}
			return nil
		}),
	}
	install.Flags().StringSliceVar(&installAgents, "agent", nil, "the agents, comma-separated: "+strings.Join(hostapi.Names(), ", "))
	_ = install.MarkFlagRequired("agent")
	cmd.AddCommand(install)
	return cmd
}

// adapter is the named agent's adapter; an unknown name is a usage error.
func (a *app) adapter(name string) (hostapi.Adapter, error) {
	ad, err := a.call.Adapter(name)
	if err != nil {
		return nil, &runtimeError{err: err, code: exitUsage}
	}
	return ad, nil
}

// The compatible entries of the reference tool: Copilot's preToolUse and
// postToolUse hooks, or any agent's with --agent or a payload that names it.
func newPolicyCheckCmd(a *app) *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:   "policy-check",
		Short: "Pre-tool hook (Copilot's by default): allow or deny a tool call by the project's policy",
		Long: `Reads a pre-tool hook payload on stdin and answers in the agent's format:
Copilot's {"permissionDecision": ...} by default (always exit 0: Copilot
ignores exit codes on preToolUse). Another agent is taken from --agent or
recognized from its payload. Anything that cannot be read or decided is
denied. The decision is recorded after the answer is written.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			return exitCode(a.call.Alias(agent, "preToolUse", hostapi.KindPreTool))
		}),
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent that calls (default: recognized from the payload, else copilot)")
	cmd.Flags().Int64Var(&a.call.MaxPayload, "max-payload", hostapi.DefaultMaxPayload, "refuse (deny) a payload over `BYTES`")
	return cmd
}

func newRecordCmd(a *app) *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:   "record",
		Short: "Post-tool hook (Copilot's by default): record a tool call in the flight recorder",
		Long: `Reads a post-tool hook payload on stdin and appends a tool_use event with a
redacted summary of the tool's result. It always exits 0.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			a.call.Alias(agent, "postToolUse", hostapi.KindPostTool)
			return exitCode(0)
		}),
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent that calls (default: recognized from the payload, else copilot)")
	cmd.Flags().Int64Var(&a.call.MaxPayload, "max-payload", hostapi.DefaultMaxPayload, "ignore a payload over `BYTES`")
	return cmd
}
