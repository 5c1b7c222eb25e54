import { newId } from '../util/id.js';
import type { Msg, ToolCallBlock } from '../message/blocks.js';
import type { AgentEvent, AgentEventOf } from './events.js';
import { entryFromBlock, toBlock, type Entry } from './reply-entries.js';

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
  return new ReplyFold(options);
}

/**
 * The reducer's state: the entries in message order, an index by block id and the order of the
 * tool calls. Methods are arrow properties: consumers pass `reducer.apply` around unbound.
 */
class ReplyFold implements ReplyReducer {
  private readonly entries: Entry[] = [];
  private readonly byBlock = new Map<string, Entry>();
  private readonly callOrder = new Map<string, number>();
  private modelCall: string | undefined;
  private id: string | undefined;
  private name: string | undefined;
  private createdAt: number | undefined;

  constructor(private readonly options: ReplyReducerOptions) {
    this.id = options.initial?.id ?? options.id;
    this.name = options.initial?.name ?? options.name;
    this.createdAt = options.initial?.createdAt;
    for (const block of options.initial?.content ?? []) this.entries.push(entryFromBlock(block, this.callOrder));
  }

  readonly apply = (event: AgentEvent): void => {
    if (this.options.source !== undefined && event.source !== this.options.source) return;
    this.name ??= event.source;
    this.createdAt ??= event.createdAt;
    this.id ??= event.replyId;
    switch (event.type) {
      case 'TEXT_BLOCK_START':
        this.open('text', event);
        break;
      case 'THINKING_BLOCK_START':
        this.open('thinking', event);
        break;
      case 'TOOL_CALL_START':
        this.callOrder.set(event.toolCallId, this.callOrder.size);
        this.open('tool_call', event, { toolCallId: event.toolCallId, name: event.name });
        break;
      case 'TOOL_RESULT_START':
        this.placeResult(this.open('tool_result', event, { toolCallId: event.toolCallId, name: event.name }));
        break;
      case 'DATA_BLOCK_START':
        this.open('data', event, { mediaType: event.mediaType, ...(event.url ? { url: event.url } : {}) });
        break;
      case 'TEXT_BLOCK_DELTA':
      case 'THINKING_BLOCK_DELTA':
      case 'TOOL_CALL_DELTA':
      case 'TOOL_RESULT_DELTA':
      case 'DATA_BLOCK_DELTA': {
        const entry = this.byBlock.get(event.blockId);
        if (entry?.open) entry.text += event.delta;
        break;
      }
      case 'TOOL_RESULT_END':
        this.closeResult(event);
        break;
      case 'TEXT_BLOCK_END':
      case 'THINKING_BLOCK_END':
      case 'TOOL_CALL_END':
      case 'DATA_BLOCK_END': {
        const entry = this.byBlock.get(event.blockId);
        if (entry) entry.open = false;
        break;
      }
      case 'HINT_BLOCK':
        this.addHint(event);
        break;
      case 'MODEL_CALL_START':
        this.modelCall = event.model;
        break;
      case 'MODEL_CALL_END':
        this.modelCall = undefined;
        break;
      default:
        break;
    }
  };

  readonly message = (): Msg => ({
    id: this.id ?? newId('msg'),
    role: 'assistant',
    name: this.name ?? 'assistant',
    // Text and thinking blocks that never received a delta (cut off at once) carry nothing.
    content: this.entries
      .filter((e) => e.open || !(e.kind === 'text' || e.kind === 'thinking') || e.text !== '')
      .map(toBlock),
    createdAt: this.createdAt ?? Date.now(),
  });

  readonly openBlocks = (): OpenBlock[] =>
    this.entries
      .filter((e) => e.open)
      .map((e) => ({
        blockId: e.blockId,
        kind: e.kind as OpenBlock['kind'],
        ...(e.toolCallId !== undefined ? { toolCallId: e.toolCallId } : {}),
        ...(e.name !== undefined ? { name: e.name } : {}),
      }));

  readonly openModelCall = (): string | undefined => this.modelCall;

  readonly openModelCalls = (): string[] => (this.modelCall === undefined ? [] : [this.modelCall]);

  readonly unansweredCalls = (): ToolCallBlock[] => {
    const answered = new Set(this.entries.filter((e) => e.kind === 'tool_result').map((e) => e.toolCallId));
    return this.entries
      .filter((e) => e.kind === 'tool_call' && !answered.has(e.toolCallId))
      .map((e) => toBlock(e) as ToolCallBlock);
  };

  readonly removeHint = (hintId: string): number => {
    let removed = 0;
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i]!;
      if (e.kind !== 'hint' || e.hintId !== hintId) continue;
      this.entries.splice(i, 1);
      this.byBlock.delete(e.blockId);
      removed++;
    }
    return removed;
  };

  readonly hasHint = (hintId: string): boolean => this.entries.some((e) => e.kind === 'hint' && e.hintId === hintId);

  private open(kind: Entry['kind'], e: { blockId: string }, extra: Partial<Entry> = {}): Entry {
    const entry: Entry = { kind, blockId: e.blockId, text: '', open: true, ...extra };
    this.entries.push(entry);
    this.byBlock.set(e.blockId, entry);
    return entry;
  }

  private addHint(event: AgentEventOf<'HINT_BLOCK'>): void {
    const entry: Entry = { kind: 'hint', blockId: event.blockId, text: event.text, open: false };
    if (event.hintId !== undefined) entry.hintId = event.hintId;
    if (event.hintSource !== undefined) entry.hintSource = event.hintSource;
    this.byBlock.set(event.blockId, entry);
    this.entries.push(entry);
  }

  /** Keeps the results of parallel calls in call order, whatever order they started in. */
  private placeResult(entry: Entry): void {
    const rank = this.callOrder.get(entry.toolCallId ?? '') ?? Number.MAX_SAFE_INTEGER;
    const entries = this.entries;
    let i = entries.length - 1;
    while (i > 0) {
      const prev = entries[i - 1]!;
      if (prev.kind !== 'tool_result' || (this.callOrder.get(prev.toolCallId ?? '') ?? -1) < rank) break;
      entries[i] = prev;
      entries[i - 1] = entry;
      i--;
    }
  }

  private closeResult(event: AgentEventOf<'TOOL_RESULT_END'>): void {
    let entry = this.byBlock.get(event.blockId);
    if (event.awaitingAnswer) {
      // A run stopped by a question: no result; the call stays unanswered until the resume.
      if (entry) this.entries.splice(this.entries.indexOf(entry), 1);
      this.byBlock.delete(event.blockId);
      return;
    }
    if (!entry) {
      // A result without a START (e.g. built by a middleware): record it anyway.
      entry = this.open('tool_result', event, {
        toolCallId: event.toolCallId,
        name: this.nameOfCall(event.toolCallId),
      });
      this.placeResult(entry);
    }
    entry.open = false;
    entry.status = event.status;
    entry.output = event.output;
  }

  private nameOfCall(toolCallId: string): string {
    return this.entries.find((e) => e.kind === 'tool_call' && e.toolCallId === toolCallId)?.name ?? 'unknown';
  }
}
