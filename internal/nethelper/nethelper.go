// Package nethelper names agent-shell-net, the helper binary that holds
// what needs the network stack: the OTLP exporter (agent-shell export) and
// the MCP server (agent-shell mcp). It is a binary of its own so that
// agent-shell, started on every hook call and npm script, does not link
// (nor initialise) net/http and crypto/tls, which both import; so this
// package imports nothing, and cmd/agent-shell-net does the rest.
package nethelper

// Name is the helper's file name, beside agent-shell or on PATH.
const Name = "agent-shell-net"

// Modes are the helper's first argument: what it serves.
const (
	ModeOTLP = "otlp"
	ModeMCP  = "mcp"
)
