import { z } from 'zod';
import { defineTool, type Msg, type Tool, type ToolResultContent, createMsg } from '@rxscope/core';
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnection } from './connection.js';
import { mcpContentToBlocks } from './content.js';

/** Longest resource text handed to the model (a bigger one is cut, saying so). */
const MAX_TEXT = 100_000;

/**
 * The contents of a read resource as tool output: text as text (cut at 100,000 characters),
 * binary contents as data blocks.
 *
 * @example
 * ```ts
 * resourceToOutput({ contents: [{ uri: 'demo://a', text: 'hello' }] }); // [{ type: 'text', text: '[resource demo://a]\nhello' }]
 * ```
 */
export function resourceToOutput(result: ReadResourceResult): ToolResultContent[] {
  const out: ToolResultContent[] = [];
  for (const item of result.contents) {
    if ('text' in item && typeof item.text === 'string') {
      const text =
        item.text.length > MAX_TEXT ? `${item.text.slice(0, MAX_TEXT)}\n[cut at ${MAX_TEXT} characters]` : item.text;
      out.push({ type: 'text', text: `[resource ${item.uri}]\n${text}` });
    } else if ('blob' in item && typeof item.blob === 'string') {
      out.push({
        type: 'data',
        mediaType: item.mimeType ?? 'application/octet-stream',
        data: item.blob,
        url: item.uri,
      });
    }
  }
  return out.length ? out : [{ type: 'text', text: '(the resource is empty)' }];
}

/**
 * The tool that lets the model open a server's resources — the links tools return (`[resource
 * link ...: <uri>]`), the listed resources, a URI made from a template: `<server>__read_resource`
 * with `{uri}`. Read-only; offered for servers that declare resources.
 *
 * @example
 * ```ts
 * const tool = readResourceTool(connection, 'everything__read_resource');
 * ```
 */
export function readResourceTool(connection: McpConnection, name: string): Tool<{ uri: string }> {
  const listed = connection.catalog.resources.slice(0, 5).map((r) => r.uri);
  return defineTool({
    name,
    description:
      `Reads a resource of MCP server "${connection.name}" by URI: a resource link a tool returned, ` +
      `a listed resource or one from its templates${listed.length ? ` (e.g. ${listed.join(', ')})` : ''}.`,
    input: z.object({ uri: z.string().min(1).max(2048).describe('The resource URI') }),
    readOnly: true,
    execute: async ({ uri }, ctx) => resourceToOutput(await connection.catalog.read(uri, ctx.signal)),
  });
}

/**
 * A prompt of a server as messages, usable as a reply's input (`agent.reply(messages)`): each
 * message keeps its role; text stays text, images and audio become data blocks, embedded
 * resources become text headed by their URI.
 *
 * @example
 * ```ts
 * promptToMessages({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }] }); // [Msg user 'Hi']
 * ```
 */
export function promptToMessages(result: GetPromptResult): Msg[] {
  return result.messages.map((m) => createMsg(m.role, mcpContentToBlocks(m.content)));
}
