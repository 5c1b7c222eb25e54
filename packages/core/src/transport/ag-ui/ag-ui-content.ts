import type { ContentPart } from '@ag-ui/core';
import type { ToolResultContent } from '../../message/blocks.js';

/**
 * A tool's output as AG-UI tool-result content: plain text when it is all text, else an ordered
 * list of parts where media travel as parts of their own (`image`, `audio`, `video`, or
 * `document`, by media type; base64 data or a URL as the source).
 *
 * @example
 * ```ts
 * toAgUiContent([{ type: 'text', text: 'Chart:' }, { type: 'data', mediaType: 'image/png', data: 'iVBOR...' }]);
 * // → [{ type: 'text', text: 'Chart:' }, { type: 'image', source: { type: 'data', value: 'iVBOR...', mimeType: 'image/png' } }]
 * ```
 */
export function toAgUiContent(output: readonly ToolResultContent[]): string | ContentPart[] {
  if (output.every((part) => part.type === 'text')) return output.map((part) => part.text).join('');
  return output.map((part): ContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const source =
      part.data !== undefined
        ? { type: 'data' as const, value: part.data, mimeType: part.mediaType }
        : { type: 'url' as const, value: part.url ?? '', mimeType: part.mediaType };
    return { type: mediaKind(part.mediaType), source };
  });
}

function mediaKind(mediaType: string): 'image' | 'audio' | 'video' | 'document' {
  if (mediaType.startsWith('image/')) return 'image';
  if (mediaType.startsWith('audio/')) return 'audio';
  if (mediaType.startsWith('video/')) return 'video';
  return 'document';
}
