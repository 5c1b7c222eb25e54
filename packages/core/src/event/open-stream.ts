import { newId } from '../util/id.js';
import type { EventFactory } from './create.js';
import type { AgentEvent, AgentEventOf, ErrorInfo } from './events.js';
import type { BlockStartEvent } from './guards.js';

/** What is open in a stream at one moment: the state {@link closeOpenStream} ends. */
export interface OpenStreamState {
  /** Blocks opened and not closed, in opening order (as their start events, or what the reducer keeps of them). */
  openBlocks(): readonly OpenBlockInfo[];
  /** Models of the calls started and not ended, outermost first. */
  openModelCalls(): readonly string[];
  /** Tool calls that have no result block yet, in call order. */
  unansweredCalls(): readonly { readonly id: string; readonly name: string }[];
  /** Records an event (the closing events are applied as they are produced). */
  apply(event: AgentEvent): void;
}

/** One open block, as much of it as closing needs. */
export interface OpenBlockInfo {
  readonly blockId: string;
  readonly kind: 'text' | 'thinking' | 'tool_call' | 'tool_result' | 'data';
  readonly toolCallId?: string;
}

/** How {@link closeOpenStream} ends what is open. */
export interface CloseOpenStreamOptions {
  /** The status of tool results cut short and the `finishReason` of model calls ended. */
  readonly status: 'error' | 'interrupted';
  /** Why, in words: it ends the text of the tool results written (`Tool call did not finish: <why>.`). */
  readonly why: string;
  /** Carried by the `MODEL_CALL_END` events written, so tracing and UIs see the failure. */
  readonly error?: ErrorInfo;
  /**
   * Answer every tool call that has no result (`TOOL_RESULT_START/END` with status `interrupted`), so the
   * conversation keeps the rule "no tool call without its result". Default `true`; a layer that
   * cuts a single model call passes `false` (the loop answers those calls itself).
   */
  readonly answerCalls?: boolean;
}

const BLOCK_KIND: Record<BlockStartEvent['type'], OpenBlockInfo['kind']> = {
  TEXT_BLOCK_START: 'text',
  THINKING_BLOCK_START: 'thinking',
  TOOL_CALL_START: 'tool_call',
  TOOL_RESULT_START: 'tool_result',
  DATA_BLOCK_START: 'data',
};

const BLOCK_END = {
  text: 'TEXT_BLOCK_END',
  thinking: 'THINKING_BLOCK_END',
  data: 'DATA_BLOCK_END',
} as const;

/**
 * The one way to end a stream that is cut short — by a timeout, a failed middleware, a closed
 * transport or an interrupt — without breaking the stream grammar: every open block is closed
 * (innermost first; a tool result cut short ends with `status`), every open model call gets its
 * `MODEL_CALL_END`, and (unless `answerCalls: false`) every tool call without a result is answered.
 * The events are applied to `open` as they are produced, so it is empty of them afterwards.
 * A middleware that cuts a stream must end it with this.
 *
 * @example
 * ```ts
 * onModelCall: (agent, ctx, input, next) => {
 *   const open = new OpenStream();
 *   return next(input).pipe(
 *     tap((e) => open.apply(e)),
 *     timeout({ each: 10_000 }),
 *     catchError((err) =>
 *       from(closeOpenStream(ctx, open, { status: 'error', why: 'the model stalled', error: toErrorInfo(err), answerCalls: false })),
 *     ),
 *   );
 * },
 * ```
 */
export function closeOpenStream(
  ctx: EventFactory,
  open: OpenStreamState,
  options: CloseOpenStreamOptions,
): AgentEvent[] {
  const { status, why, error } = options;
  const out: AgentEvent[] = [];
  const push = (e: AgentEvent) => {
    open.apply(e);
    out.push(e);
  };
  for (const block of [...open.openBlocks()].reverse()) push(closeBlock(ctx, block, options));
  for (const model of [...open.openModelCalls()].reverse()) {
    const usage = { inputTokens: 0, outputTokens: 0 };
    push(ctx.event('MODEL_CALL_END', { model, usage, finishReason: status, ...(error ? { error } : {}) }));
  }
  if (options.answerCalls !== false) {
    for (const call of [...open.unansweredCalls()]) {
      const blockId = newId('blk');
      push(ctx.event('TOOL_RESULT_START', { blockId, toolCallId: call.id, name: call.name }));
      const output = [{ type: 'text' as const, text: `Tool call was not executed: ${why}.` }];
      push(ctx.event('TOOL_RESULT_END', { blockId, toolCallId: call.id, status: 'interrupted', output }));
    }
  }
  return out;
}

/**
 * The end event of one open block (given as its start event or as {@link OpenBlockInfo}): `TOOL_RESULT_END {status}` saying why for a tool result cut
 * short, the plain `*_END` for other blocks. {@link closeOpenStream} uses it for each open block;
 * a layer that closes only some blocks (and re-opens others) uses it directly.
 *
 * @example
 * ```ts
 * const end = closeBlock(ctx, { blockId: 'b1', kind: 'text' }, { status: 'error', why: 'cut short' });
 * // → TEXT_BLOCK_END {blockId: 'b1'}
 * ```
 */
export function closeBlock(
  ctx: EventFactory,
  open: OpenBlockInfo | BlockStartEvent,
  options: Pick<CloseOpenStreamOptions, 'status' | 'why'>,
): AgentEvent {
  const block = 'type' in open ? openBlockOf(open) : open;
  const blockId = block.blockId;
  if (block.kind === 'tool_call') return ctx.event('TOOL_CALL_END', { blockId, toolCallId: block.toolCallId ?? '' });
  if (block.kind !== 'tool_result') return ctx.event(BLOCK_END[block.kind], { blockId });
  const output = [{ type: 'text' as const, text: `Tool call did not finish: ${options.why}.` }];
  return ctx.event('TOOL_RESULT_END', { blockId, toolCallId: block.toolCallId ?? '', status: options.status, output });
}

/**
 * Follows what a stream has open — blocks, model calls, tool calls without a result — so a layer
 * that cuts the stream can end it with {@link closeOpenStream}. Feed it every event that left the
 * layer. It keeps the start events, so a layer can also re-open what it closed.
 *
 * @example
 * ```ts
 * const open = new OpenStream();
 * next(input).pipe(tap((e) => open.apply(e)));
 * // later, when cutting the stream:
 * const closing = closeOpenStream(ctx, open, { status: 'error', why: 'the model call timed out', answerCalls: false });
 * ```
 */
export class OpenStream implements OpenStreamState {
  private readonly blocks = new Map<string, BlockStartEvent>();
  private readonly calls: AgentEventOf<'MODEL_CALL_START'>[] = [];
  private readonly toolCalls = new Map<string, { readonly id: string; readonly name: string }>();

  apply(e: AgentEvent): void {
    switch (e.type) {
      case 'MODEL_CALL_START':
        this.calls.push(e);
        break;
      case 'MODEL_CALL_END':
        this.calls.pop();
        break;
      case 'TOOL_CALL_START':
        this.toolCalls.set(e.toolCallId, { id: e.toolCallId, name: e.name });
        this.blocks.set(e.blockId, e);
        break;
      case 'TOOL_RESULT_START':
        this.toolCalls.delete(e.toolCallId);
        this.blocks.set(e.blockId, e);
        break;
      case 'TEXT_BLOCK_START':
      case 'THINKING_BLOCK_START':
      case 'DATA_BLOCK_START':
        this.blocks.set(e.blockId, e);
        break;
      case 'TEXT_BLOCK_END':
      case 'THINKING_BLOCK_END':
      case 'TOOL_CALL_END':
      case 'TOOL_RESULT_END':
      case 'DATA_BLOCK_END':
        this.blocks.delete(e.blockId);
        break;
      default:
        break;
    }
  }

  /** True while the block is open. */
  isOpen(blockId: string): boolean {
    return this.blocks.has(blockId);
  }

  /** The start events of the open blocks, in opening order. */
  blockStarts(): readonly BlockStartEvent[] {
    return [...this.blocks.values()];
  }

  /** The start event of the innermost open model call, if any. */
  modelCallStart(): AgentEventOf<'MODEL_CALL_START'> | undefined {
    return this.calls[this.calls.length - 1];
  }

  openBlocks(): readonly OpenBlockInfo[] {
    return this.blockStarts().map(openBlockOf);
  }

  openModelCalls(): readonly string[] {
    return this.calls.map((c) => c.model);
  }

  unansweredCalls(): readonly { readonly id: string; readonly name: string }[] {
    return [...this.toolCalls.values()];
  }
}

/** What closing needs of a block's start event. */
function openBlockOf(start: BlockStartEvent): OpenBlockInfo {
  const kind = BLOCK_KIND[start.type];
  return start.type === 'TOOL_RESULT_START' || start.type === 'TOOL_CALL_START'
    ? { blockId: start.blockId, kind, toolCallId: start.toolCallId }
    : { blockId: start.blockId, kind };
}
