import { createEvent, type EventOrigin } from '../../event/create.js';
import type { AgentEvent } from '../../event/events.js';
import { createReplyReducer, type ReplyReducer } from '../../event/reducer.js';
import type { RuntimeContext } from '../../middleware/context.js';
import { closeOpenStream } from '../../event/open-stream.js';

interface OpenReply {
  readonly origin: EventOrigin;
  readonly reducer: ReplyReducer;
}

/**
 * Keeps track of the replies of other agents forwarded through a reply (an agent used as a
 * tool streams its events through its caller's reply). When the enclosing reply or tool call is
 * cut off (interrupt, timeout), the nested replies are cut off with it and their events stop
 * mid-stream; {@link NestedReplies.close} produces what brings each of them back to a valid
 * shape — open blocks closed, unanswered calls answered, `REPLY_END {finishReason:
 * 'interrupted'}` — so that every `REPLY_START` a consumer saw, whatever its `source`, has its
 * `REPLY_END`.
 */
export class NestedReplies {
  /** Made when a nested reply starts: most replies forward none. */
  private open: Map<string, OpenReply> | undefined;

  /** `source`: the enclosing agent's name (its own events are not tracked here). */
  constructor(private readonly source: string) {}

  /** Follows one event passing through the enclosing reply. */
  observe(e: AgentEvent): void {
    if (e.source === this.source) return;
    if (e.type === 'REPLY_START') {
      const origin = { source: e.source, replyId: e.replyId };
      (this.open ??= new Map()).set(keyOf(origin), {
        origin,
        reducer: createReplyReducer({ source: e.source }),
      });
      return;
    }
    if (!this.open?.size) return;
    const key = keyOf(e);
    if (e.type === 'REPLY_END') this.open.delete(key);
    else this.open.get(key)?.reducer.apply(e);
  }

  /** True while a forwarded reply has started and not ended. */
  get active(): boolean {
    return (this.open?.size ?? 0) > 0;
  }

  /** The closing events of every open nested reply, the most recently started (innermost) first. */
  close(why: string): AgentEvent[] {
    const out: AgentEvent[] = [];
    if (!this.open) return out;
    for (const { origin, reducer } of [...this.open.values()].reverse()) {
      const ctx: Pick<RuntimeContext, 'event'> = { event: (type, fields) => createEvent(type, fields, origin) };
      out.push(...closeOpenStream(ctx, reducer, { status: 'interrupted', why }));
      out.push(createEvent('REPLY_END', { finishReason: 'interrupted' }, origin));
    }
    this.open.clear();
    return out;
  }
}

const keyOf = (e: EventOrigin): string => `${e.source}\u0000${e.replyId}`;
