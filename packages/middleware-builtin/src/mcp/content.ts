import type { ToolResultContent } from '@rxscope/core';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/**
 * One content item of an MCP tool result as rxscope tool output: text stays text; images and
 * audio become data blocks (so the model receives them as media); an embedded resource becomes
 * text (with its URI) or, when binary, a data block; a resource link becomes a line of text
 * naming the resource. Unknown kinds are kept as JSON text rather than dropped.
 *
 * @example
 * ```ts
 * mcpContentToBlocks({ type: 'image', data: 'iVBOR...', mimeType: 'image/png' });
 * // [{ type: 'data', mediaType: 'image/png', data: 'iVBOR...' }]
 * ```
 */
export function mcpContentToBlocks(item: ContentBlock): ToolResultContent[] {
  switch (item.type) {
    case 'text':
      return [{ type: 'text', text: item.text }];
    case 'image':
    case 'audio':
      return [{ type: 'data', mediaType: item.mimeType, data: item.data }];
    case 'resource': {
      const r = item.resource;
      if ('text' in r && typeof r.text === 'string') {
        return [{ type: 'text', text: `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}]\n${r.text}` }];
      }
      if ('blob' in r && typeof r.blob === 'string') {
        return [{ type: 'data', mediaType: r.mimeType ?? 'application/octet-stream', data: r.blob, url: r.uri }];
      }
      return [{ type: 'text', text: `[resource ${r.uri}]` }];
    }
    case 'resource_link': {
      const extra = [item.mimeType, item.description].filter(Boolean).join(', ');
      return [{ type: 'text', text: `[resource link ${item.name}: ${item.uri}${extra ? ` (${extra})` : ''}]` }];
    }
    default:
      return [{ type: 'text', text: JSON.stringify(item) }];
  }
}

/**
 * The output of an MCP tool result: its content blocks in order (text items joined by a line
 * break), or, when the server sent only `structuredContent`, that value as JSON text.
 *
 * @example
 * ```ts
 * mcpResultToOutput({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] });
 * // [{ type: 'text', text: 'a\nb' }]
 * ```
 */
export function mcpResultToOutput(result: CallToolResult): ToolResultContent[] {
  const out: ToolResultContent[] = [];
  for (const item of result.content ?? []) {
    for (const block of mcpContentToBlocks(item)) {
      const last = out[out.length - 1];
      if (block.type === 'text' && last?.type === 'text')
        out[out.length - 1] = { type: 'text', text: `${last.text}\n${block.text}` };
      else out.push(block);
    }
  }
  if (out.length === 0 && result.structuredContent !== undefined) {
    out.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  }
  if (out.length === 0) out.push({ type: 'text', text: '' });
  return out;
}
