import { closeOpenStream } from '../event/open-stream.js';
import { ReplyContext } from '../agent/loop/reply-context.js';
import type { AgentEvent, ReplyFinishReason } from '../event/events.js';
import { createReplyReducer, type ReplyReducer } from '../event/reducer.js';
import { toErrorInfo } from '../model/model-error.js';

interface OpenReply {
  readonly replyId: string;
  readonly source: string;
  readonly reducer: ReplyReducer;
}

/**
 * Follows the replies of an event stream (several, nested for subagents) so that a stream cut
 * off from outside (a failed transport, a hard cancel) can still be ended by the grammar: every
 * open block closed, every call answered, one `REPLY_END` per open reply, innermost first.
 * Internal to the Node transport.
 */
export class ReplyTracker {
  private readonly open: OpenReply[] = [];

  apply(event: AgentEvent): void {
    if (event.type === 'REPLY_START') {
      if (!this.open.some((r) => r.replyId === event.replyId)) {
        this.open.push({
          replyId: event.replyId,
          source: event.source,
          reducer: createReplyReducer({ source: event.source }),
        });
      }
      return;
    }
    const reply = this.open.find((r) => r.replyId === event.replyId);
    if (!reply) return;
    if (event.type === 'REPLY_END') this.open.splice(this.open.indexOf(reply), 1);
    else reply.reducer.apply(event);
  }

  /** True while some reply started and has not ended. */
  get inReply(): boolean {
    return this.open.length > 0;
  }

  /** The reply ids started and not ended, outermost first. */
  openReplies(): string[] {
    return this.open.map((r) => r.replyId);
  }

  /**
   * The events that end every open reply (`finishReason` `error` with `error`, or
   * `interrupted`), innermost first; the tracker forgets them.
   */
  end(finishReason: Extract<ReplyFinishReason, 'error' | 'interrupted'>, why: unknown, sessionId = ''): AgentEvent[] {
    const info = toErrorInfo(why);
    const out: AgentEvent[] = [];
    for (const reply of this.open.splice(0).reverse()) {
      const ctx = new ReplyContext(reply.source, reply.replyId, sessionId, new AbortController().signal, {});
      out.push(...closeOpenStream(ctx, reply.reducer, { status: finishReason, why: info.message }));
      out.push(ctx.event('REPLY_END', finishReason === 'error' ? { finishReason, error: info } : { finishReason }));
    }
    return out;
  }
}
