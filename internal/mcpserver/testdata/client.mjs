// A real MCP client (the official TypeScript SDK) for mcp_test.go: it starts
// the server given on the command line over stdio, lists its tools, calls
// each with the arguments in the JSON file argv[2], and prints one JSON
// object: {"tools": [...], "results": {"call name": CallToolResult}}.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [server, callsFile, cwd, ...args] = process.argv.slice(2);
const calls = JSON.parse(readFileSync(callsFile, "utf8"));
const transport = new StdioClientTransport({ command: server, args, cwd, env: process.env, stderr: "inherit" });
const client = new Client({ name: "agent-shell-test", version: "1.0.0" });
await client.connect(transport);
const out = { server: client.getServerVersion(), tools: [], results: {} };
const listed = await client.listTools();
for (const t of listed.tools) {
  out.tools.push({ name: t.name, readOnly: t.annotations?.readOnlyHint ?? false, input: Object.keys(t.inputSchema?.properties ?? {}) });
}
for (const c of calls) {
  out.results[c.label] = await client.callTool({ name: c.tool, arguments: c.arguments });
}
await client.close();
process.stdout.write(JSON.stringify(out));
