import { concatMap, defer, map, type Observable, of, throwError, toArray } from 'rxjs';
import { type Agent, checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import type { EvalCase } from '../dataset/eval-case.js';
import { EvalError } from '../eval-error.js';
import { replySample, type ReplySample } from './reply-sample.js';
import type { Scorer, ScoreVerdict } from './scorer.js';

/**
 * Options of {@link llmJudge}.
 *
 * @example
 * ```ts
 * const options: LlmJudgeOptions = { agent: () => new Agent({ model: judgeModel }), rubric: 'Does the answer cite the file it relies on?' };
 * ```
 */
export interface LlmJudgeOptions {
  /**
   * Builds the judge for one reply: an rxscope agent, so your retry, budget, timeout and tracing
   * middlewares apply to judging too. A new one per reply (agents keep a conversation).
   */
  readonly agent: () => Agent;
  /** What a good reply is; the judge scores the reply against it. */
  readonly rubric: string;
  /** The score at which a reply passes. Default 0.7. */
  readonly passAt?: number;
  readonly name?: string;
}

const MAX_SHOWN = 4_000;
const clip = (text: string) => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (cut)` : text);

/** The prompt the judge gets for one reply. */
export function judgePrompt(rubric: string, sample: ReplySample, evalCase: EvalCase): string {
  const calls = sample.toolCalls.map(
    (c) => `- ${c.name} ${clip(JSON.stringify(c.input) ?? '')} → ${c.status ?? 'no result'}`,
  );
  return [
    "You grade an AI assistant's reply against a rubric.",
    `Rubric:\n${rubric}`,
    `Question:\n${clip(evalCase.input)}`,
    ...(evalCase.expected?.answer !== undefined ? [`Reference answer:\n${clip(evalCase.expected.answer)}`] : []),
    `Tool calls:\n${calls.length ? calls.join('\n') : '(none)'}`,
    `Reply:\n${clip(sample.answer)}`,
    'Answer with JSON only: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}',
  ].join('\n\n');
}

/** The verdict in a judge's answer, or why there is none. */
export function parseVerdict(text: string): { score: number; reason: string } | string {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return 'no JSON object in the answer';
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch (e) {
    return `not JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
  const v = value as { score?: unknown; reason?: unknown };
  if (typeof v.score !== 'number' || !(v.score >= 0 && v.score <= 1)) return '"score" is not a number from 0 to 1';
  if (typeof v.reason !== 'string') return '"reason" is not a string';
  return { score: v.score, reason: v.reason };
}

/**
 * An LLM judge: asks an rxscope agent to grade the reply against a rubric and to answer
 * `{"score", "reason"}`. An answer that cannot be read is sent back once with what is wrong; a
 * second one gives an error score naming the judge and its answer. Deterministic when the judge's
 * model is a `ReplayChatModel` or a scripted model. Unsubscribing cancels the judge's reply.
 *
 * @example
 * ```ts
 * const judge = llmJudge({
 *   agent: () => new Agent({ model: new OpenAIChatModel({ model: 'gpt-4o-mini' }), middlewares: [new RetryMiddleware()] }),
 *   rubric: 'The answer names the function that was fixed and says why the tests now pass.',
 * });
 * ```
 */
export function llmJudge(options: LlmJudgeOptions): Scorer {
  checkOptionKeys(
    'llmJudge',
    options,
    optionKeys<LlmJudgeOptions>({ agent: true, rubric: true, passAt: true, name: true }),
  );
  if (typeof options.agent !== 'function') {
    throw new OptionsError(
      'invalid_option',
      'llmJudge.agent',
      'llmJudge: agent must be a function returning a new Agent.',
    );
  }
  if (typeof options.rubric !== 'string' || options.rubric.trim() === '') {
    throw new OptionsError('invalid_option', 'llmJudge.rubric', 'llmJudge: rubric must be a non-empty string.');
  }
  const passAt = options.passAt ?? 0.7;
  const name = options.name ?? 'judge';
  return {
    name,
    score: (sample, evalCase): Observable<ScoreVerdict> =>
      defer(() => {
        const judge = options.agent();
        const ask = (prompt: string) =>
          judge.reply(prompt).pipe(
            toArray(),
            concatMap((events) => {
              const answer = replySample(events);
              if (answer.end?.finishReason === 'error') {
                return throwError(
                  () => new Error(`the judge's reply failed: ${answer.end?.error?.message ?? 'no reason'}`),
                );
              }
              return of(answer.answer);
            }),
          );
        return ask(judgePrompt(options.rubric, sample, evalCase)).pipe(
          concatMap((first) => {
            const verdict = parseVerdict(first);
            if (typeof verdict !== 'string') return of(verdict);
            return ask(
              `Your answer could not be read (${verdict}). Answer with JSON only: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}`,
            ).pipe(
              map((second) => {
                const again = parseVerdict(second);
                if (typeof again === 'string') {
                  throw new EvalError(
                    'judge_unparsable',
                    `judge "${name}" answered twice without a readable verdict (${again}); its last answer: ${JSON.stringify(clip(second).slice(0, 200))}`,
                  );
                }
                return again;
              }),
            );
          }),
          map((v) => ({ score: v.score, pass: v.score >= passAt, reason: v.reason })),
        );
      }),
  };
}
