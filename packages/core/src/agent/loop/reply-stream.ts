import { concatMap, from, Observable, of } from 'rxjs';
import type { AgentEvent, ReplyEndEvent } from '../../event/events.js';
import { closeOpenStream } from '../../event/open-stream.js';
import { createReplyReducer } from '../../event/reducer.js';
import { toErrorInfo } from '../../model/model-error.js';
import { Relay } from '../operator-relay.js';
import type { ReplyContext } from './reply-context.js';

/** What {@link replyStream} wraps: one reply's `onAgent` chain and who to tell when it is over. */
export interface ReplyStreamParts {
  /** The agent's name: events of this source are the reply's own (others are nested agents'). */
  readonly source: string;
  readonly sessionId: string;
  readonly ctx: ReplyContext;
  /** Aborted when the subscriber leaves before `REPLY_END`: cancels the model call and tools. */
  readonly controller: AbortController;
  /** The `onAgent` chain around the reply run. */
  readonly chain: Observable<AgentEvent>;
  /** An `onAgent` layer exists: fold the events, to close what it left open if it fails. */
  readonly foldOuter: boolean;
  /** Events that go out right after `REPLY_START` (the notice about rejected pending calls). */
  readonly head: readonly AgentEvent[];
  /** Where a failure after `REPLY_END` goes (the stream has ended; it cannot carry it). */
  readonly reportError: (error: unknown) => void;
  /** Called once when the stream is over (completed, failed or unsubscribed), with its end. */
  readonly finished: (end: ReplyEndEvent | undefined) => void;
}

/**
 * The stream `agent.reply()` returns, around the reply's `onAgent` chain: it notes `REPLY_START`
 * and `REPLY_END`; a failure of an `onAgent` layer itself (the loop ends its own failures as
 * events) becomes a well-formed end — `REPLY_START` if none went out, the open blocks closed,
 * `REPLY_END {finishReason: 'error'}`; unsubscribing before the end aborts the reply.
 *
 * @example
 * ```ts
 * return replyStream({ source: agent.name, sessionId, ctx, controller, chain, foldOuter, head: [], reportError, finished });
 * ```
 */
export function replyStream(parts: ReplyStreamParts): Observable<AgentEvent> {
  const { source, ctx, controller } = parts;
  let endEvent: ReplyEndEvent | undefined;
  let ended = false;
  let started = false;
  const outer = parts.foldOuter ? createReplyReducer({ source }) : undefined;
  // One relay instead of tap + catchError + finalize: every event of the reply passes it.
  const events = new Observable<AgentEvent>((subscriber) => {
    new Relay<AgentEvent>(subscriber, {
      next: (e, down) => {
        if (e.source === source) {
          outer?.apply(e);
          if (e.type === 'REPLY_START') started = true;
          else if (e.type === 'REPLY_END') {
            ended = true;
            endEvent = e;
          }
        }
        down.next(e);
      },
      error: (err, down) => {
        if (ended) {
          parts.reportError(err);
          down.complete();
          return;
        }
        ended = true;
        const closing: AgentEvent[] = started ? [] : [ctx.event('REPLY_START', { sessionId: parts.sessionId })];
        if (outer)
          closing.push(
            ...closeOpenStream(ctx, outer, { status: 'error', why: `the reply failed: ${toErrorInfo(err).message}` }),
          );
        endEvent = ctx.event('REPLY_END', { finishReason: 'error', error: toErrorInfo(err) });
        closing.push(endEvent);
        for (const e of closing) down.next(e);
        down.complete();
      },
    }).subscribeTo(parts.chain);
    return () => {
      if (!ended) controller.abort(new Error('reply cancelled'));
      parts.finished(endEvent);
    };
  });
  const head = parts.head;
  if (!head.length) return events;
  // The notice about rejected pending calls goes right after REPLY_START.
  let first = true;
  return events.pipe(
    concatMap((e) => (first && e.type === 'REPLY_START' ? ((first = false), from([e, ...head])) : of(e))),
  );
}
