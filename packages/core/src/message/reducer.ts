import type { AgentEvent, AgentEventOf } from '../event/events.js';
import { newId } from '../util/id.js';
import type { ContentBlock, Msg, ToolCallBlock, ToolResultContent, ToolResultStatus } from './blocks.js';

interface Entry {
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

/** A block that was opened and not yet closed, as the reducer sees it. */
export interface OpenBlock {
  readonly blockId: string;
  readonly kind: 'text' | 'thinking' | 'tool_call' | 'tool_result' | 'data';
  readonly toolCallId?: string;
  readonly name?: string;
}

/** Options of {@link createReplyReducer}. */
export interface ReplyReducerOptions {
  /** Id of the message being built (default: the reply id, so every consumer gets the same id). */
  readonly id?: string;
  /** Author name written into the message (default: the `source` of the first event). */
  readonly name?: string;
  /** Fold only events from this source (subagent events forwarded into the stream are skipped). */
  readonly source?: string;
  /** A message to continue (a resumed reply continues the message it suspended). */
  readonly initial?: Msg;
}

/**
 * Folds a reply's event stream into the reply {@link Msg}, incrementally. The agent builds the
 * conversation with this same reducer, so a consumer that folds the events it received gets the
 * message the agent stored.
 */
export interface ReplyReducer {
  /** Applies one event; events that carry no content are ignored. */
  apply(event: AgentEvent): void;
  /** The message so far (a fresh immutable snapshot). */
  message(): Msg;
  /** Blocks opened and not closed, in opening order. */
  openBlocks(): OpenBlock[];
  /** The model call started and not ended, if any. */
  openModelCall(): string | undefined;
  /** The same as a list (empty or one model), so a reducer can be ended with `closeOpenStream`. */
  openModelCalls(): string[];
  /** Tool calls (closed or not) that have no result block yet, in call order. */
  unansweredCalls(): ToolCallBlock[];
  /** Removes the hint blocks added with this id (`HINT_BLOCK {hintId}`); returns how many. */
  removeHint(hintId: string): number;
  /** True when a hint block with this id is in the message. */
  hasHint(hintId: string): boolean;
}

/**
 * Creates a {@link ReplyReducer}.
 *
 * @example
 * ```ts
 * const reducer = createReplyReducer();
 * agent.reply('hi').subscribe({ next: (e) => reducer.apply(e), complete: () => render(reducer.message()) });
 * ```
 */
export function createReplyReducer(options: ReplyReducerOptions = {}): ReplyReducer {
  const entries: Entry[] = [];
  const byBlock = new Map<string, Entry>();
  const callOrder = new Map<string, number>();
  let modelCall: string | undefined;
  let id = options.initial?.id ?? options.id;
  let name = options.initial?.name ?? options.name;
  let createdAt = options.initial?.createdAt;

  for (const block of options.initial?.content ?? []) entries.push(entryFromBlock(block, callOrder));

  const open = (kind: Entry['kind'], e: { blockId: string }, extra: Partial<Entry> = {}): Entry => {
    const entry: Entry = { kind, blockId: e.blockId, text: '', open: true, ...extra };
    entries.push(entry);
    byBlock.set(e.blockId, entry);
    return entry;
  };
  const append = (e: { blockId: string; delta: string }) => {
    const entry = byBlock.get(e.blockId);
    if (entry?.open) entry.text += e.delta;
  };
  const close = (e: { blockId: string }): Entry | undefined => {
    const entry = byBlock.get(e.blockId);
    if (entry) entry.open = false;
    return entry;
  };
  const placeResult = (entry: Entry) => {
    // Keep the results of parallel calls in call order, whatever order they started in.
    const rank = callOrder.get(entry.toolCallId ?? '') ?? Number.MAX_SAFE_INTEGER;
    let i = entries.length - 1;
    while (i > 0) {
      const prev = entries[i - 1]!;
      if (prev.kind !== 'tool_result' || (callOrder.get(prev.toolCallId ?? '') ?? -1) < rank) break;
      entries[i] = prev;
      entries[i - 1] = entry;
      i--;
    }
  };

  const apply = (event: AgentEvent): void => {
    if (options.source !== undefined && event.source !== options.source) return;
    name ??= event.source;
    createdAt ??= event.createdAt;
    id ??= event.replyId;
    switch (event.type) {
      case 'TEXT_BLOCK_START':
        open('text', event);
        break;
      case 'THINKING_BLOCK_START':
        open('thinking', event);
        break;
      case 'TOOL_CALL_START':
        callOrder.set(event.toolCallId, callOrder.size);
        open('tool_call', event, { toolCallId: event.toolCallId, name: event.name });
        break;
      case 'TOOL_RESULT_START':
        placeResult(open('tool_result', event, { toolCallId: event.toolCallId, name: event.name }));
        break;
      case 'DATA_BLOCK_START':
        open('data', event, { mediaType: event.mediaType, ...(event.url ? { url: event.url } : {}) });
        break;
      case 'TEXT_BLOCK_DELTA':
      case 'THINKING_BLOCK_DELTA':
      case 'TOOL_CALL_DELTA':
      case 'TOOL_RESULT_DELTA':
      case 'DATA_BLOCK_DELTA':
        append(event);
        break;
      case 'TOOL_RESULT_END':
        closeResult(event);
        break;
      case 'TEXT_BLOCK_END':
      case 'THINKING_BLOCK_END':
      case 'TOOL_CALL_END':
      case 'DATA_BLOCK_END':
        close(event);
        break;
      case 'HINT_BLOCK': {
        const entry: Entry = { kind: 'hint', blockId: event.blockId, text: event.text, open: false };
        if (event.hintId !== undefined) entry.hintId = event.hintId;
        if (event.hintSource !== undefined) entry.hintSource = event.hintSource;
        byBlock.set(event.blockId, entry);
        entries.push(entry);
        break;
      }
      case 'MODEL_CALL_START':
        modelCall = event.model;
        break;
      case 'MODEL_CALL_END':
        modelCall = undefined;
        break;
      default:
        break;
    }
  };

  const closeResult = (event: AgentEventOf<'TOOL_RESULT_END'>) => {
    let entry = byBlock.get(event.blockId);
    if (!entry) {
      // A result without a START (e.g. built by a middleware): record it anyway.
      entry = open('tool_result', event, { toolCallId: event.toolCallId, name: nameOfCall(event.toolCallId) });
      placeResult(entry);
    }
    entry.open = false;
    entry.status = event.status;
    entry.output = event.output;
  };

  const nameOfCall = (toolCallId: string) =>
    entries.find((e) => e.kind === 'tool_call' && e.toolCallId === toolCallId)?.name ?? 'unknown';

  return {
    apply,
    message: () => ({
      id: id ?? newId('msg'),
      role: 'assistant',
      name: name ?? 'assistant',
      // Text and thinking blocks that never received a delta (cut off at once) carry nothing.
      content: entries
        .filter((e) => e.open || !(e.kind === 'text' || e.kind === 'thinking') || e.text !== '')
        .map(toBlock),
      createdAt: createdAt ?? Date.now(),
    }),
    openBlocks: () =>
      entries
        .filter((e) => e.open)
        .map((e) => ({
          blockId: e.blockId,
          kind: e.kind as OpenBlock['kind'],
          ...(e.toolCallId !== undefined ? { toolCallId: e.toolCallId } : {}),
          ...(e.name !== undefined ? { name: e.name } : {}),
        })),
    openModelCall: () => modelCall,
    openModelCalls: () => (modelCall === undefined ? [] : [modelCall]),
    unansweredCalls: () => {
      const answered = new Set(entries.filter((e) => e.kind === 'tool_result').map((e) => e.toolCallId));
      return entries
        .filter((e) => e.kind === 'tool_call' && !answered.has(e.toolCallId))
        .map((e) => toBlock(e) as ToolCallBlock);
    },
    removeHint: (hintId) => {
      let removed = 0;
      for (let i = entries.length - 1; i >= 0; i--) {
        const e = entries[i]!;
        if (e.kind !== 'hint' || e.hintId !== hintId) continue;
        entries.splice(i, 1);
        byBlock.delete(e.blockId);
        removed++;
      }
      return removed;
    },
    hasHint: (hintId) => entries.some((e) => e.kind === 'hint' && e.hintId === hintId),
  };
}

function toBlock(e: Entry): ContentBlock {
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

function entryFromBlock(block: ContentBlock, callOrder: Map<string, number>): Entry {
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
