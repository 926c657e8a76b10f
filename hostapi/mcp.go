package hostapi

import (
	"fmt"
	"path/filepath"
)

// MCPServerName is the name agent-shell's MCP server is registered under.
const MCPServerName = "agent-shell"

// MCPConfigFile is Claude Code's project MCP configuration, relative to the
// repository root.
const MCPConfigFile = ".mcp.json"

// RegisterMCP adds agent-shell's MCP server (`agent-shell mcp`, over
// stdio) to the project's .mcp.json (Claude Code's project-scoped MCP
// servers), keeping every other key and server. An existing agent-shell
// entry is left as it is. It reports whether the file changed.
func RegisterMCP(root string) (bool, error) {
	path := filepath.Join(root, MCPConfigFile)
	var bad error
	changed, err := mergeJSONFile(path, func(doc map[string]any) bool {
		servers, ok := object(doc, "mcpServers")
		if !ok {
			bad = fmt.Errorf("%s: \"mcpServers\" is not an object; fix or move it, it was left unchanged", path)
			return false
		}
		if _, ok := servers[MCPServerName]; ok {
			return false
		}
		servers[MCPServerName] = map[string]any{"type": "stdio", "command": "agent-shell", "args": []any{"mcp"}}
		return true
	})
	if bad != nil {
		return false, bad
	}
	return changed, err
}
