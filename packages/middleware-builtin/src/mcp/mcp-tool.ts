import type { Tool, ToolContext, ToolResultContent } from '@rxscope/core';
import { RxscopeError } from '@rxscope/core';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { runMcpCall } from './mcp-call-run.js';
import type { McpConnection } from './connection.js';
import { mcpResultToOutput } from './content.js';
import { jsonSchemaInput, modelParameters } from './json-schema-input.js';

/**
 * The error of a call the server answered with `isError: true` (the tool ran and failed): its
 * text is what the model sees in the error result.
 *
 * @example
 * ```ts
 * new McpToolError('files', 'read_file', [{ type: 'text', text: 'ENOENT' }]).message; // 'ENOENT'
 * ```
 */
export class McpToolError extends RxscopeError {
  override readonly name = 'McpToolError';
  readonly code = 'mcp_tool_failed';
  constructor(
    readonly server: string,
    readonly tool: string,
    readonly output: readonly ToolResultContent[],
  ) {
    super(output.map((b) => (b.type === 'text' ? b.text : `[${b.mediaType}]`)).join('\n') || `tool "${tool}" failed`);
  }
}

/** Where an rxscope tool made from an MCP tool comes from. */
export interface McpToolOrigin {
  readonly server: string;
  /** The tool's name on its server. */
  readonly tool: string;
}

const INVALID = /[^a-zA-Z0-9_-]/g;

/**
 * The rxscope name of a server's tool: `<server>__<tool>` (or the tool's own name without the
 * prefix), with characters models reject replaced by `_` and cut to 64 characters.
 *
 * @example
 * ```ts
 * mcpToolName('files', 'read.file', true); // 'files__read_file'
 * ```
 */
export function mcpToolName(server: string, tool: string, prefix: boolean): string {
  return (prefix ? `${server}__${tool}` : tool).replace(INVALID, '_').slice(0, 64);
}

/**
 * An MCP server's tool as an rxscope {@link Tool}: its JSON Schema is what the model sees and
 * what the arguments are validated against (ajv) before anything is sent; `readOnlyHint` makes
 * it `readOnly`, and with `idempotentHint` also `concurrencySafe`; a call passes its signal
 * (cancelling the MCP request) and streams the server's progress notifications as live
 * progress; the result's images, audio and binary resources become data blocks. A server's
 * elicitation during the call suspends the reply with `REQUIRE_USER_CONFIRM` (see `runMcpCall`).
 *
 * @example
 * ```ts
 * const tool = mcpTool(connection, connection.tools[0]!, 'everything__echo');
 * const agent = new Agent({ model, tools: [tool] });
 * ```
 */
export function mcpTool(connection: McpConnection, info: McpToolInfo, name: string): Tool<Record<string, unknown>> {
  const { schema } = jsonSchemaInput(info.inputSchema);
  const readOnly = info.annotations?.readOnlyHint === true;
  const description =
    info.description ??
    info.title ??
    info.annotations?.title ??
    `Tool "${info.name}" of MCP server "${connection.name}".`;
  return {
    name,
    description,
    inputSchema: schema,
    schema: { name, description, parameters: modelParameters(info.inputSchema) },
    readOnly,
    concurrencySafe: readOnly && info.annotations?.idempotentHint === true,
    external: false,
    execute: async (input: Record<string, unknown>, ctx: ToolContext) => {
      const result = await runMcpCall(connection, info.name, input, ctx);
      const output = mcpResultToOutput(result);
      if (result.isError) throw new McpToolError(connection.name, info.name, output);
      // A tool with an output schema: its structured value is the result (checked against the schema on arrival).
      if (info.outputSchema && result.structuredContent !== undefined) return result.structuredContent;
      return output;
    },
  };
}
