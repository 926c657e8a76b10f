// Command agent-shell-mcp is agent-shell's MCP server over stdio, run by
// `agent-shell mcp`. It is a binary of its own so that the agent-shell
// binary, run on every hook call, does not link (nor initialise) net/http
// and crypto/tls, which the MCP SDK imports. Install it beside agent-shell.
package main

import (
	"os"

	"github.com/agent-shell/agent-shell/internal/mcpserver"
)

func main() {
	os.Exit(mcpserver.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
