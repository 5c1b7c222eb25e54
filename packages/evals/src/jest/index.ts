// @rxscope/evals/jest — the toPassScorers matcher. Register: expect.extend({ toPassScorers }).
import type { AgentEvent } from '@rxscope/core';
import type { Observable } from 'rxjs';
import type { EvalCase } from '../dataset/eval-case.js';
import type { Scorer } from '../scorers/scorer.js';

export { toPassScorers } from './to-pass-scorers.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    interface Matchers<R> {
      /** See `toPassScorers` of `@rxscope/evals/jest`. */
      toPassScorers(scorers: readonly Scorer[], evalCase?: Partial<EvalCase>): Promise<R>;
    }
  }
}

/**
 * The values `toPassScorers` accepts: a reply's events, or a reply stream it runs.
 *
 * @example
 * ```ts
 * const reply: ReplyUnderTest = agent.reply('What is 2 + 3?');
 * await expect(reply).toPassScorers([numericAnswer({ value: 5 })]);
 * ```
 */
export type ReplyUnderTest = readonly AgentEvent[] | Observable<AgentEvent>;
