import type { ToolResultContent } from '../message/blocks.js';
import type { ToolOutput } from './tool.js';

function isContent(v: unknown): v is ToolResultContent {
  if (typeof v !== 'object' || v === null) return false;
  const t = (v as { type?: unknown }).type;
  return (
    (t === 'text' && typeof (v as { text?: unknown }).text === 'string') ||
    (t === 'data' && typeof (v as { mediaType?: unknown }).mediaType === 'string')
  );
}

/**
 * True for a tool value that is data rather than text or content blocks (an object, array,
 * number, boolean or null): `TOOL_RESULT_END.value` carries such a value as the tool returned it.
 *
 * @example
 * ```ts
 * isStructuredValue({ temp: 21 }); // true
 * isStructuredValue('21 degrees'); // false
 * ```
 */
export function isStructuredValue(value: unknown): boolean {
  if (value === undefined || typeof value === 'string') return false;
  if (isContent(value)) return false;
  if (Array.isArray(value) && value.length > 0 && value.every(isContent)) return false;
  return true;
}

/**
 * Converts one emitted tool value into result content (strings as text, blocks as they are,
 * anything else as JSON text).
 *
 * @example
 * ```ts
 * toolOutputToContent({ temp: 21 }); // [{ type: 'text', text: '{"temp":21}' }]
 * ```
 */
export function toolOutputToContent(value: ToolOutput): ToolResultContent[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (isContent(value)) return [value];
  if (Array.isArray(value) && value.length > 0 && value.every(isContent))
    return [...(value as readonly ToolResultContent[])];
  return [{ type: 'text', text: JSON.stringify(value) ?? 'null' }];
}

/**
 * Appends content, merging adjacent text so streamed chunks form one text block.
 *
 * @example
 * ```ts
 * appendContent([{ type: 'text', text: 'a' }], [{ type: 'text', text: 'b' }]); // [{ type: 'text', text: 'ab' }]
 * ```
 */
export function appendContent(into: ToolResultContent[], more: readonly ToolResultContent[]): ToolResultContent[] {
  for (const block of more) {
    const last = into[into.length - 1];
    if (block.type === 'text' && last?.type === 'text')
      into[into.length - 1] = { type: 'text', text: last.text + block.text };
    else into.push(block);
  }
  return into;
}

/**
 * Text of result content, for streaming as a delta (data blocks are summarised).
 *
 * @example
 * ```ts
 * contentToText([{ type: 'text', text: 'ok' }]); // 'ok'
 * ```
 */
export function contentToText(content: readonly ToolResultContent[]): string {
  return content.map((b) => (b.type === 'text' ? b.text : `[${b.mediaType}]`)).join('');
}
