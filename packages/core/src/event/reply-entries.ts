import { newId } from '../util/id.js';
import type { ContentBlock, ToolResultContent, ToolResultStatus } from '../message/blocks.js';

/** One block of the message being folded, mutable while its events arrive. */
export interface Entry {
  kind: 'text' | 'thinking' | 'tool_call' | 'tool_result' | 'data' | 'hint';
  blockId: string;
  text: string;
  open: boolean;
  toolCallId?: string;
  name?: string;
  status?: ToolResultStatus;
  output?: readonly ToolResultContent[];
  mediaType?: string;
  url?: string;
  hintId?: string;
  hintSource?: string;
}

/** The content block an entry stands for, as it is now. */
export function toBlock(e: Entry): ContentBlock {
  switch (e.kind) {
    case 'text':
      return { type: 'text', text: e.text };
    case 'thinking':
      return { type: 'thinking', thinking: e.text };
    case 'hint':
      return {
        type: 'hint',
        text: e.text,
        ...(e.hintId !== undefined ? { id: e.hintId } : {}),
        ...(e.hintSource !== undefined ? { source: e.hintSource } : {}),
      };
    case 'tool_call':
      return { type: 'tool_call', id: e.toolCallId ?? e.blockId, name: e.name ?? 'unknown', arguments: e.text };
    case 'tool_result':
      return {
        type: 'tool_result',
        toolCallId: e.toolCallId ?? '',
        name: e.name ?? 'unknown',
        status: e.status ?? 'interrupted',
        output: e.output ?? (e.text ? [{ type: 'text', text: e.text }] : []),
      };
    case 'data':
      return {
        type: 'data',
        mediaType: e.mediaType ?? 'application/octet-stream',
        ...(e.text ? { data: e.text } : {}),
        ...(e.url ? { url: e.url } : {}),
      };
  }
}

/** An entry for a block of a message being continued (its call order recorded). */
export function entryFromBlock(block: ContentBlock, callOrder: Map<string, number>): Entry {
  const base = { blockId: newId('blk'), open: false };
  switch (block.type) {
    case 'text':
      return { ...base, kind: 'text', text: block.text };
    case 'thinking':
      return { ...base, kind: 'thinking', text: block.thinking };
    case 'hint':
      return {
        ...base,
        kind: 'hint',
        text: block.text,
        ...(block.id !== undefined ? { hintId: block.id } : {}),
        ...(block.source !== undefined ? { hintSource: block.source } : {}),
      };
    case 'tool_call':
      callOrder.set(block.id, callOrder.size);
      return { ...base, kind: 'tool_call', text: block.arguments, toolCallId: block.id, name: block.name };
    case 'tool_result':
      return {
        ...base,
        kind: 'tool_result',
        text: '',
        toolCallId: block.toolCallId,
        name: block.name,
        status: block.status,
        output: block.output,
      };
    case 'data':
      return {
        ...base,
        kind: 'data',
        text: block.data ?? '',
        mediaType: block.mediaType,
        ...(block.url ? { url: block.url } : {}),
      };
  }
}
