import { type Observable, concatMap, distinct, map, merge, scan, takeWhile } from 'rxjs';
import type { AgentEvent } from '@rxscope/core';

type Item = { readonly event: AgentEvent } | { readonly replyId: string };

interface Acc {
  readonly replyId?: string;
  /** Events seen before the reply id was known. */
  readonly early: readonly AgentEvent[];
  /** What to emit for this item. */
  readonly out: readonly AgentEvent[];
}

/**
 * The events of one reply, cut out of a session's event stream: from the moment of subscribing
 * up to and including the reply's `REPLY_END`, then completes.
 *
 * `replyId$` is the request that starts (or resumes) the reply and answers with its id — a
 * POST. The session stream may deliver the reply's first events before that answer arrives,
 * so events are held until the id is known, then the reply's own are emitted in order. An event
 * delivered twice (a reconnection that replays the session log after a replay gap) is emitted once.
 *
 * @example
 * ```ts
 * const reply$ = eventsOfReply(session.events$, http.post<{ replyId: string }>(url, { text }).pipe(map((r) => r.replyId)));
 * ```
 */
export function eventsOfReply(session$: Observable<AgentEvent>, replyId$: Observable<string>): Observable<AgentEvent> {
  return merge(
    session$.pipe(map((event): Item => ({ event }))),
    replyId$.pipe(map((replyId): Item => ({ replyId }))),
  ).pipe(
    scan(
      (acc: Acc, item: Item): Acc => {
        if ('replyId' in item)
          return { replyId: item.replyId, early: [], out: acc.early.filter((e) => e.replyId === item.replyId) };
        if (acc.replyId === undefined) return { early: [...acc.early, item.event], out: [] };
        return { ...acc, out: item.event.replyId === acc.replyId ? [item.event] : [] };
      },
      { early: [], out: [] },
    ),
    concatMap((acc) => acc.out),
    distinct((e) => e.id),
    takeWhile((e) => e.type !== 'REPLY_END', true),
  );
}
