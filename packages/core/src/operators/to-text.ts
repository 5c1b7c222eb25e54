import { defer, filter, map, type Observable, type OperatorFunction } from 'rxjs';
import type { AgentEvent } from '../event/events.js';

/** Options of {@link toText}. */
export interface ToTextOptions {
  /**
   * Count only this agent's text (subagent events forwarded into the stream are skipped).
   * Default: the source of the first `REPLY_START` (or of the first text delta, for a stream
   * joined mid-reply).
   */
  readonly source?: string;
}

/**
 * The text of the current reply as it grows: emits the accumulated text (all text blocks,
 * concatenated as `textOfMsg` does) after every text delta. A new reply (a `REPLY_START` with
 * another reply id) starts from `''`; a resumed reply keeps its id and so its text. Works on a
 * single reply and on a session stream of many.
 *
 * @example
 * ```ts
 * fromAgentEventStream(url).pipe(toText()).subscribe((text) => (bubble.textContent = text));
 * ```
 */
export function toText(options: ToTextOptions = {}): OperatorFunction<AgentEvent, string> {
  return (source$: Observable<AgentEvent>) =>
    defer(() => {
      let agent = options.source;
      let replyId: string | undefined;
      let text = '';
      return source$.pipe(
        filter((event) => {
          if (event.type === 'REPLY_START' || event.type === 'TEXT_BLOCK_DELTA') agent ??= event.source;
          if (event.source !== agent) return false;
          if (event.type === 'REPLY_START' && event.replyId !== replyId) {
            replyId = event.replyId;
            text = '';
            return false;
          }
          if (event.type !== 'TEXT_BLOCK_DELTA' || event.delta === '') return false;
          text += event.delta;
          return true;
        }),
        map(() => text),
      );
    });
}

/**
 * The old name of {@link toText}: `textOf` read like the text of a message, which is
 * `textOfMsg(msg)`; operators that turn the event stream into something are named `to...()`.
 *
 * @deprecated use `toText()`; `textOf` goes away in the next minor version.
 * @example
 * ```ts
 * events$.pipe(toText()); // was events$.pipe(textOf())
 * ```
 */
export const textOf: typeof toText = toText;

/**
 * The old name of {@link ToTextOptions}.
 *
 * @deprecated use `ToTextOptions`; `TextOfOptions` goes away in the next minor version.
 * @example
 * ```ts
 * const options: ToTextOptions = { source: 'assistant' };
 * ```
 */
export type TextOfOptions = ToTextOptions;
