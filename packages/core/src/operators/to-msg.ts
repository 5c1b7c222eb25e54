import { defer, map, type Observable, type OperatorFunction, reduce } from 'rxjs';
import type { AgentEvent } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import { createReplyReducer, type ReplyReducerOptions } from '../event/reducer.js';

/**
 * Folds a reply's events into the reply {@link Msg} (emitted once, when the stream completes),
 * with the reducer the agent itself uses.
 *
 * @example
 * ```ts
 * const msg = await lastValueFrom(agent.reply('hi').pipe(toMsg()));
 * ```
 */
export function toMsg(options: ReplyReducerOptions = {}): OperatorFunction<AgentEvent, Msg> {
  return (source: Observable<AgentEvent>) =>
    defer(() => {
      const reducer = createReplyReducer(options);
      return source.pipe(
        reduce((r, e) => {
          r.apply(e);
          return r;
        }, reducer),
        map((r) => r.message()),
      );
    });
}

/**
 * The old name of {@link toMsg}: the operator is named for the type it emits, `Msg`.
 *
 * @deprecated use `toMsg()`; `toMessage` goes away in the next minor version.
 * @example
 * ```ts
 * const msg = await lastValueFrom(agent.reply('hi').pipe(toMsg())); // was .pipe(toMessage())
 * ```
 */
export const toMessage: typeof toMsg = toMsg;
