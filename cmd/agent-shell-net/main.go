// Command agent-shell-net is agent-shell's helper for what needs the
// network stack (see package nethelper): `agent-shell export` runs
// `agent-shell-net otlp ARGS` to send events over OTLP, and
// `agent-shell mcp` runs `agent-shell-net mcp ARGS` to serve MCP.
package main

import (
	"fmt"
	"os"

	"github.com/agent-shell/agent-shell/internal/mcpserver"
	"github.com/agent-shell/agent-shell/internal/nethelper"
	"github.com/agent-shell/agent-shell/telemetry/otlp/otlphttp"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case nethelper.ModeOTLP:
			os.Exit(otlphttp.Main(os.Args[2:], os.Stdout, os.Stderr, os.Getenv))
		case nethelper.ModeMCP:
			os.Exit(mcpserver.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
		}
	}
	fmt.Fprintf(os.Stderr, "usage: %s otlp|mcp ARGS (agent-shell export and agent-shell mcp run it)\n", nethelper.Name)
	os.Exit(2)
}
