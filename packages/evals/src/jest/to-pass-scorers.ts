import { forkJoin, isObservable, lastValueFrom, type Observable, toArray } from 'rxjs';
import { isList } from '../is-list.js';
import type { AgentEvent } from '@rxscope/core';
import type { EvalCase } from '../dataset/eval-case.js';
import { replySample } from '../scorers/reply-sample.js';
import { applyScorer, type Scorer } from '../scorers/scorer.js';

/**
 * The jest matcher `toPassScorers`: passes when every scorer passes the reply (its events, or a
 * reply stream such as `agent.reply(...)`, which it runs). The failure message lists each
 * scorer's score and reason. Register it with `expect.extend({ toPassScorers })`.
 *
 * @example
 * ```ts
 * import { toPassScorers } from '@rxscope/evals/jest';
 * expect.extend({ toPassScorers });
 * await expect(agent.reply('What is 2 + 3?')).toPassScorers([numericAnswer({ value: 5 })]);
 * ```
 */
export async function toPassScorers(
  this: { readonly isNot?: boolean } | void,
  reply: readonly AgentEvent[] | Observable<AgentEvent>,
  scorers: readonly Scorer[],
  evalCase: Partial<EvalCase> = {},
): Promise<{ pass: boolean; message: () => string }> {
  if (!isList(scorers) || scorers.length === 0) throw new TypeError('toPassScorers: give at least one scorer.');
  const events = isObservable(reply) ? await lastValueFrom(reply.pipe(toArray()), { defaultValue: [] }) : reply;
  if (!isList(events)) throw new TypeError('toPassScorers: expected a reply stream or an array of its events.');
  const sample = replySample(events);
  const full: EvalCase = { id: 'reply', input: '', metadata: {}, ...evalCase };
  const scores = await lastValueFrom(forkJoin(scorers.map((s) => applyScorer(s, sample, full))), {
    defaultValue: [],
  });
  const pass = scores.every((s) => s.pass);
  const lines = scores.map(
    (s) => `  ${s.pass ? '✓' : '✗'} ${s.scorer} ${s.score.toFixed(2)}: ${s.error ?? s.reason ?? ''}`,
  );
  return {
    pass,
    message: () =>
      `${pass ? 'expected the reply not to pass every scorer' : 'expected the reply to pass every scorer'}:\n${lines.join('\n')}`,
  };
}
