package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The helper runs the mode its first argument names; anything else is a
// usage error (exit 2) that names the modes.
func TestModes(t *testing.T) {
	if os.Getenv("AGENT_SHELL_NET_TEST_MAIN") == "1" {
		os.Args = append([]string{"agent-shell-net"}, strings.Fields(os.Getenv("AGENT_SHELL_NET_TEST_ARGS"))...)
		main()
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]string{
		"":       "usage: agent-shell-net otlp|mcp",
		"smtp":   "usage: agent-shell-net otlp|mcp",
		"otlp":   "usage: agent-shell-net otlp --events DIR",
		"mcp -x": "flag provided but not defined: -x",
	} {
		c := exec.Command(self, "-test.run=^TestModes$")
		c.Env = append(os.Environ(), "AGENT_SHELL_NET_TEST_MAIN=1", "AGENT_SHELL_NET_TEST_ARGS="+args)
		out, err := c.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), want) {
			t.Errorf("agent-shell-net %s: %v\n%s", args, err, out)
		}
	}
}
