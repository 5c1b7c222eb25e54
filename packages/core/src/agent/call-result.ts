import { defer, lastValueFrom, map, type Observable, reduce } from 'rxjs';
import type { AgentEvent, ReplyEndEvent } from '../event/events.js';
import { createReplyReducer } from '../event/reducer.js';
import { AgentError } from './errors.js';

/**
 * What `agent.call()` resolves with: the reply message (with `replyId`, `finishReason`, `usage`
 * and `stopReason` in its metadata), or the structured output when `withOutput`; rejects with
 * an {@link AgentError} for an error end (and for a reply asked for an output that has none).
 * `events` starts the reply: input refused at once (an invalid `userId`) rejects the promise.
 */
export function callResult(
  events: () => Observable<AgentEvent>,
  source: string,
  withOutput: boolean,
): Promise<unknown> {
  // reduce() always emits, so the stream is never empty.
  // eslint-disable-next-line rxjs-x/no-ignored-default-value
  return lastValueFrom(
    defer(() => {
      const reducer = createReplyReducer({ source });
      let end: ReplyEndEvent | undefined;
      return events().pipe(
        reduce((count, e) => {
          reducer.apply(e);
          if (e.type === 'REPLY_END' && e.source === source) end = e;
          return count + 1;
        }, 0),
        map(() => {
          if (!end) throw new AgentError({ name: 'Error', message: 'the reply ended without REPLY_END' }, '');
          if (end.finishReason === 'error')
            throw new AgentError(end.error ?? { name: 'Error', message: 'unknown error' }, end.replyId);
          if (withOutput) {
            if (!('output' in end)) {
              const message = `the reply ended (${end.finishReason}) without an output`;
              throw new AgentError(
                { name: 'OutputMissingError', message, code: 'output_missing' },
                end.replyId,
                end.finishReason,
              );
            }
            return end.output;
          }
          const msg = reducer.message();
          const stopReason = end.stopReason ? { stopReason: end.stopReason } : {};
          return {
            ...msg,
            metadata: {
              ...msg.metadata,
              replyId: end.replyId,
              finishReason: end.finishReason,
              usage: end.usage,
              ...stopReason,
            },
          };
        }),
      );
    }),
  );
}
