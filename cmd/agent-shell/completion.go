package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/telemetry"
)

// addCompletions tells the shell's completion (agent-shell completion
// bash|zsh|fish) what to offer: agent names for every --agent, session ids
// for --session and log verify, event types for --event, replay's
// --fail-on-change values.
func addCompletions(c *cobra.Command, a *app) {
	fixed := func(values []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		}
	}
	sessions := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return a.sessionIDs(), cobra.ShellCompDirectiveNoFileComp
	}
	for name, complete := range map[string]func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective){
		"agent": fixed(hostapi.Names()), "session": sessions, "event": fixed(telemetry.EventTypes),
		"fail-on-change": fixed([]string{"loosen", "any"}),
	} {
		if c.Flags().Lookup(name) != nil {
			_ = c.RegisterFlagCompletionFunc(name, complete)
		}
	}
	if c.Name() == "verify" && c.Parent() != nil && c.Parent().Name() == "log" {
		c.ValidArgsFunction = sessions
	}
	for _, sub := range c.Commands() {
		addCompletions(sub, a)
	}
}

// sessionIDs are the ids of this repository's session files.
func (a *app) sessionIDs() []string {
	dir, err := a.eventsDir()
	if err != nil {
		return nil
	}
	files, _, err := telemetry.ListFiles(dir)
	if err != nil {
		return nil
	}
	ids := make([]string, 0, len(files))
	for _, f := range files {
		ids = append(ids, strings.TrimSuffix(filepath.Base(f), ".jsonl"))
	}
	return ids
}
