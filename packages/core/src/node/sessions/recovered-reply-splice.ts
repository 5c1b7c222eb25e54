import { createEvent, type EventFactory } from '../../event/create.js';
import type { AgentEvent, AgentEventOf, AgentEventType, EventFields } from '../../event/events.js';
import { closeBlock, closeOpenStream, OpenStream } from '../../event/open-stream.js';
import { ReplyTracker } from '../reply-tracker.js';
import type { SessionEventBus } from './session-event-bus.js';

const WHY = 'the process running this reply stopped; the reply goes on from its last checkpoint';

/**
 * Joins, on a session's bus, the stream of a reply whose process died (its events up to the
 * crash, on the log) and the stream of its recovered attempt (same `replyId`), so that a client
 * following the session — or reconnecting with `Last-Event-ID` — reads one reply that obeys the
 * stream grammar:
 * - the recovered attempt's `REPLY_START` is dropped (the dead attempt's is on the log);
 * - in its place, what the dead attempt left open is closed: its text, thinking, tool-call and
 *   data blocks (`*_END`), its model call (`MODEL_CALL_END {finishReason: 'interrupted'}`) and
 *   the replies of subagents it was running (ended `interrupted`);
 * - a tool result block the dead attempt left open stays open: the recovered attempt's result
 *   for that call (run again, recovered, or answered `interrupted`) continues it under the same
 *   block id;
 * - before `REPLY_END`, a tool call of the dead attempt that nothing answered (its model call was
 *   made again) gets an `interrupted` result, and a result block still open is closed.
 * Without a reply left open on the bus (or with another reply open) it passes events through.
 */
export class RecoveredReplySplice implements EventFactory {
  private readonly deadReply: { readonly replyId: string; readonly source: string } | undefined;
  private readonly outer = new OpenStream();
  private readonly nested = new ReplyTracker();
  /** Tool result blocks the dead attempt left open, by tool call id. */
  private readonly keptResults = new Map<string, string>();
  /** The recovered attempt's block id → the dead attempt's block it continues. */
  private readonly rekeyed = new Map<string, string>();
  private joined = false;

  constructor(
    deadAttempt: readonly AgentEvent[],
    private readonly sessionId: string,
  ) {
    const start = deadAttempt[0];
    if (start?.type !== 'REPLY_START') return;
    this.deadReply = { replyId: start.replyId, source: start.source };
    for (const event of deadAttempt.slice(1)) {
      if (this.isOuter(event)) this.follow(event);
      else this.nested.apply(event);
    }
  }

  /** Reads the reply left open on the session's bus (nothing when the bus cannot say). */
  static async of(bus: SessionEventBus, sessionId: string): Promise<RecoveredReplySplice> {
    return new RecoveredReplySplice((await bus.openReplyEvents?.(sessionId)) ?? [], sessionId);
  }

  /** The events to append for one event of the recovered attempt (none, it, or more). */
  next(event: AgentEvent): AgentEvent[] {
    const dead = this.deadReply;
    if (!dead) return [event];
    if (!this.joined) {
      if (event.type !== 'REPLY_START' || event.replyId !== dead.replyId || event.source !== dead.source)
        return [event];
      this.joined = true;
      return this.closeDeadAttempt();
    }
    if (!this.isOuter(event)) return [event];
    if (event.type === 'TOOL_RESULT_START') {
      const kept = this.keptResults.get(event.toolCallId);
      if (kept !== undefined) {
        this.keptResults.delete(event.toolCallId);
        this.rekeyed.set(event.blockId, kept);
        return [];
      }
    }
    const out = this.rekey(event);
    if (out.type === 'REPLY_END') {
      const suspended = out.finishReason.startsWith('awaiting_') || out.finishReason === 'shutdown';
      return [...this.closeLeftovers(!suspended), out];
    }
    this.follow(out);
    return [out];
  }

  private isOuter(event: AgentEvent): boolean {
    return event.replyId === this.deadReply?.replyId && event.source === this.deadReply.source;
  }

  private follow(event: AgentEvent): void {
    this.outer.apply(event);
  }

  private rekey(event: AgentEvent): AgentEvent {
    if (!('blockId' in event)) return event;
    const blockId = this.rekeyed.get(event.blockId);
    if (blockId === undefined) return event;
    if (event.type === 'TOOL_RESULT_END') this.rekeyed.delete(event.blockId);
    return { ...event, blockId };
  }

  private closeDeadAttempt(): AgentEvent[] {
    const out = this.nested.end('interrupted', WHY, this.sessionId);
    for (const block of [...this.outer.openBlocks()].reverse()) {
      if (block.kind === 'tool_result') this.keptResults.set(block.toolCallId ?? '', block.blockId);
      else out.push(this.apply(closeBlock(this, block, { status: 'interrupted', why: WHY })));
    }
    for (const model of [...this.outer.openModelCalls()].reverse()) {
      const usage = { inputTokens: 0, outputTokens: 0 };
      out.push(this.apply(this.event('MODEL_CALL_END', { model, usage, finishReason: 'interrupted' })));
    }
    return out;
  }

  /** Closes the result blocks nobody continued and (unless suspended) answers the calls nobody answered. */
  private closeLeftovers(answerCalls: boolean): AgentEvent[] {
    this.keptResults.clear();
    return closeOpenStream(this, this.outer, { status: 'interrupted', why: WHY, answerCalls });
  }

  private apply(event: AgentEvent): AgentEvent {
    this.follow(event);
    return event;
  }

  /** Builds an event of the dead reply (the splice is the `EventFactory` of what it closes). */
  event<T extends AgentEventType>(type: T, fields: EventFields[T]): AgentEventOf<T> {
    return createEvent(type, fields, this.deadReply!);
  }
}
