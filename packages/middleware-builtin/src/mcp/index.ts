// @rxscope/middleware-builtin/mcp — Model Context Protocol: tools from MCP servers, agents served over MCP.
// A separate entry point so that the root entry never loads @modelcontextprotocol/sdk (an optional peer).

export { McpMiddleware } from './mcp-middleware.js';
export type { McpOptions, McpPromptEntry, McpResourceEntry, McpServerDisconnectedValue } from './mcp-options.js';
export { McpCatalog } from './catalog.js';
export { McpLogHub, MCP_LOG_LEVELS, withServerLogs } from './server-log.js';
export type { McpLogLevel, McpLogValue, McpRoot } from './server-log.js';
export { promptToMessages, readResourceTool, resourceToOutput } from './resource-tool.js';
export { McpConnection, McpOutputSchemaError, McpServerClosedError } from './connection.js';
export { McpUnauthorizedError } from './transport.js';
export { SessionStoreOAuthProvider } from './session-store-oauth.js';
export type { SessionStoreOAuthOptions } from './session-store-oauth.js';
export type { McpCallOptions, McpClientInfo, McpConnectionOptions } from './connection.js';
export { McpToolError, mcpTool, mcpToolName } from './mcp-tool.js';
export type { McpToolOrigin } from './mcp-tool.js';
export { mcpContentToBlocks, mcpResultToOutput } from './content.js';
export type { McpElicitation } from './elicitation.js';
export type { McpSamplingOptions, McpSamplingRequest } from './sampling.js';
export { jsonSchemaInput } from './json-schema-input.js';
export type { JsonSchemaObject } from './json-schema-input.js';
export { checkServerConfig } from './server-config.js';
export type { McpHttpServer, McpServerCommon, McpServerConfig, McpStdioServer } from './server-config.js';

// --- an agent served over MCP ---
export { serveAgentOverMcp } from './serve-agent.js';
export type {
  ServeAgentHttpTransport,
  ServeAgentOptions,
  ServedAgent,
  ServedAgentOverHttp,
  ServedAgentSource,
} from './serve-agent.js';
export { confirmByElicitation } from './elicit-confirmation.js';
export type { Elicit } from './elicit-confirmation.js';
export { runAgentForCall } from './agent-tool-handler.js';
export type { ServedCall } from './agent-tool-handler.js';
