// @rxscope/harness/mcp — the workspace's tools.json (MCP servers, allow/ask/deny lists).
// A separate entry point so that @rxscope/harness never loads @modelcontextprotocol/sdk (an optional peer).

export { loadWorkspaceMcp } from './tools-json.js';
export type { LoadWorkspaceMcpOptions, ToolsJson, WorkspaceMcp } from './tools-json.js';
