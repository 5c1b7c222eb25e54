import type { ToolCall } from '@langchain/core/messages/tool';
import { ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import type { DataBlock, ToolResultContent } from '../../message/blocks.js';
import { jsonSchemaInput } from '../json-schema-input.js';
import { defineTool, type Tool, type ToolOutput } from '../tool.js';
import { RxscopeError } from '../../error/rxscope-error.js';

/**
 * Refusal of {@link fromLangChainTool} or {@link fromLangChainTools}: what was given is not a
 * LangChain tool, list or toolkit. Code `langchain_tool_invalid`.
 *
 * @example
 * ```ts
 * try { fromLangChainTools(notATool); } catch (e) { if (e instanceof LangChainToolError) console.log(e.message); }
 * ```
 */
export class LangChainToolError extends RxscopeError {
  override readonly name = 'LangChainToolError';
  readonly code = 'langchain_tool_invalid';
}

/**
 * What {@link fromLangChainTools} takes: a list of LangChain tools, or a toolkit (anything with
 * `getTools()`, like LangChain's `BaseToolkit` and the community toolkits).
 *
 * @example
 * ```ts
 * const list: LangChainTools = [search, calculator];
 * const kit: LangChainTools = new SqlToolkit(db, llm);
 * ```
 */
export type LangChainTools = readonly StructuredToolInterface[] | { getTools(): StructuredToolInterface[] };

/**
 * A LangChain tool as an rxscope tool, as it is: `tool()`, `DynamicStructuredTool`,
 * `DynamicTool`, any `StructuredTool` subclass (community tools, the MCP tools of
 * `@langchain/mcp-adapters`), whether its schema is zod 3, zod 4 or JSON Schema.
 *
 * - The model sees the tool's name, description and JSON Schema (LangChain's own `toJsonSchema`).
 * - Arguments are validated against that JSON Schema before the tool runs, so a bad call gets an
 *   error result naming the field (LangChain then validates again with the tool's own schema).
 * - The call runs through `tool.invoke()` as a LangChain tool call, with the call's `AbortSignal`
 *   as `signal` (cancelling the reply cancels the tool) and the call id as `toolCall.id`.
 * - The result: a string as text; a `ToolMessage`'s content (text, and images or files as data
 *   blocks; `status: 'error'` becomes an error result); any other value as JSON. An artifact
 *   (`responseFormat: 'content_and_artifact'`) stays out of what the model reads.
 *
 * The tool is neither read-only nor concurrency-safe and asks no approval: set those on the
 * result as you would on any tool (`{ ...fromLangChainTool(search), readOnly: true }`).
 * `returnDirect` is not honoured (the agent's loop decides when to answer).
 *
 * A LangChain tool put straight into `tools` is refused with an error naming this function.
 *
 * @example
 * ```ts
 * import { tool } from '@langchain/core/tools';
 * import { fromLangChainTool } from '@rxscope/core/langchain';
 *
 * const weather = tool(async ({ city }) => `Sunny in ${city}`, {
 *   name: 'weather',
 *   description: 'Current weather of a city',
 *   schema: z.object({ city: z.string() }),
 * });
 * const agent = new Agent({ name: 'assistant', model, tools: [fromLangChainTool(weather)] });
 * ```
 */
export function fromLangChainTool(tool: StructuredToolInterface): Tool<Record<string, unknown>> {
  if (typeof tool !== 'object' || tool === null || typeof tool.invoke !== 'function') {
    throw new LangChainToolError(
      `fromLangChainTool() takes a LangChain tool (tool(), DynamicStructuredTool, DynamicTool, a StructuredTool), got ${tool === null ? 'null' : typeof tool}.`,
    );
  }
  const { $schema: dialect, ...parameters } = toJsonSchema(tool.schema) as Record<string, unknown>;
  return defineTool({
    name: tool.name,
    description: tool.description,
    // Keeps `$schema` for the validator (it picks the draft); the model gets the schema without it.
    input: jsonSchemaInput<Record<string, unknown>>({ type: 'object', ...parameters, ...dialectOf(dialect) }),
    execute: async (args, toolCtx) => {
      const call: ToolCall = { type: 'tool_call', id: toolCtx.callId, name: tool.name, args };
      const result: unknown = await tool.invoke(call, { signal: toolCtx.signal });
      return langChainToolOutput(result);
    },
  });
}

/**
 * Every tool of a list or a toolkit as rxscope tools (see {@link fromLangChainTool}).
 *
 * @example
 * ```ts
 * const tools = fromLangChainTools(toolkit); // or fromLangChainTools([search, calculator])
 * const agent = new Agent({ name: 'assistant', model, tools });
 * ```
 */
export function fromLangChainTools(toolsOrToolkit: LangChainTools): Tool<Record<string, unknown>>[] {
  const tools: readonly StructuredToolInterface[] | undefined = Array.isArray(toolsOrToolkit)
    ? (toolsOrToolkit as readonly StructuredToolInterface[])
    : typeof (toolsOrToolkit as { getTools?: unknown })?.getTools === 'function'
      ? (toolsOrToolkit as { getTools(): StructuredToolInterface[] }).getTools()
      : undefined;
  if (!tools) {
    throw new LangChainToolError(
      'fromLangChainTools() takes an array of LangChain tools or a toolkit (with getTools()).',
    );
  }
  return tools.map((tool) => fromLangChainTool(tool));
}

const dialectOf = (dialect: unknown) => (typeof dialect === 'string' ? { $schema: dialect } : {});

/**
 * What a LangChain tool returned, as the value of an rxscope tool: a `ToolMessage`'s content
 * (throwing its text when its status is `error`), content blocks as text and data blocks, a string
 * as it is, anything else as it is (it reaches the model as JSON).
 *
 * @example
 * ```ts
 * langChainToolOutput(new ToolMessage({ content: 'ok', tool_call_id: 'c1' })); // 'ok'
 * langChainToolOutput([{ type: 'text', text: 'a' }]); // [{ type: 'text', text: 'a' }]
 * ```
 */
export function langChainToolOutput(result: unknown): ToolOutput {
  if (ToolMessage.isInstance(result)) {
    const content = langChainContent(result.content);
    if (result.status === 'error') {
      throw new Error(typeof content === 'string' ? content : JSON.stringify(result.content));
    }
    return content;
  }
  return langChainContent(result);
}

function langChainContent(content: unknown): ToolOutput {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || !content.every((b) => typeof b === 'object' && b !== null && 'type' in b)) {
    return content as ToolOutput;
  }
  const blocks = (content as Record<string, unknown>[]).map(toContentBlock);
  return blocks.length === 0 ? '' : blocks;
}

/** One LangChain content block (text, `image_url`, or a standard image/audio/file block) as rxscope content. */
function toContentBlock(block: Record<string, unknown>): ToolResultContent {
  if (block['type'] === 'text' && typeof block['text'] === 'string') return { type: 'text', text: block['text'] };
  if (block['type'] === 'image_url') {
    const ref = block['image_url'];
    const url = typeof ref === 'string' ? ref : (ref as { url?: unknown } | undefined)?.url;
    if (typeof url === 'string') return fromUrl(url, 'image/*');
  }
  if (block['type'] === 'image' || block['type'] === 'audio' || block['type'] === 'file') {
    const declared = block['mimeType'] ?? block['mime_type'];
    const mediaType = typeof declared === 'string' ? declared : `${block['type']}/*`;
    const data = block['data'] ?? block['base64'];
    if (typeof data === 'string') return { type: 'data', mediaType, data };
    if (typeof block['url'] === 'string') return fromUrl(block['url'], mediaType);
  }
  return { type: 'text', text: JSON.stringify(block) };
}

function fromUrl(url: string, fallbackType: string): DataBlock {
  const inline = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return inline
    ? { type: 'data', mediaType: inline[1]!, data: inline[2]! }
    : { type: 'data', mediaType: fallbackType, url };
}
