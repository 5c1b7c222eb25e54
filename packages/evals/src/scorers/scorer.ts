import { catchError, defer, from, isObservable, map, type Observable, of, take, throwIfEmpty } from 'rxjs';
import type { EvalCase } from '../dataset/eval-case.js';
import type { ReplySample } from './reply-sample.js';

/**
 * What a scorer returns for one reply: a score from 0 to 1, whether it passes (default: score is
 * 1), and why.
 *
 * @example
 * ```ts
 * const verdict: ScoreVerdict = { score: 0.5, reason: '1 of 2 expected calls made' };
 * ```
 */
export interface ScoreVerdict {
  readonly score: number;
  readonly pass?: boolean;
  readonly reason?: string;
}

/**
 * A scorer: a name and a function from a reply (its {@link ReplySample}) and its case to a
 * verdict, given at once, as a promise or as an observable (its first value counts; unsubscribing
 * cancels it, as a judge's model request).
 *
 * @example
 * ```ts
 * const short: Scorer = { name: 'short', score: (sample) => ({ score: sample.answer.length <= 200 ? 1 : 0 }) };
 * ```
 */
export interface Scorer {
  readonly name: string;
  score(sample: ReplySample, evalCase: EvalCase): ScoreVerdict | PromiseLike<ScoreVerdict> | Observable<ScoreVerdict>;
}

/**
 * One scorer's score of one reply, as results hold it. `error` is set when the scorer threw or
 * gave no valid verdict (then `score` is 0 and `pass` false): the case's other scores and the run
 * go on.
 *
 * @example
 * ```ts
 * const failed = result.scores.filter((s) => !s.pass).map((s) => `${s.scorer}: ${s.error ?? s.reason}`);
 * ```
 */
export interface Score {
  readonly scorer: string;
  readonly score: number;
  readonly pass: boolean;
  readonly reason?: string;
  readonly error?: string;
}

/**
 * An error score: the scorer could not score (`error` says why).
 *
 * @example
 * ```ts
 * errorScore('judge', 'the judge answered twice with no JSON');
 * ```
 */
export function errorScore(scorer: string, error: string): Score {
  return { scorer, score: 0, pass: false, error };
}

/** A verdict checked and turned into a score; a malformed one is an error score naming what is wrong. */
function toScore(name: string, verdict: unknown): Score {
  const v = verdict as Partial<ScoreVerdict> | null | undefined;
  if (!v || typeof v !== 'object' || typeof v.score !== 'number' || !(v.score >= 0 && v.score <= 1)) {
    return errorScore(
      name,
      `scorer "${name}" returned ${JSON.stringify(verdict) ?? String(verdict)}, not {score: a number from 0 to 1}`,
    );
  }
  return {
    scorer: name,
    score: v.score,
    pass: typeof v.pass === 'boolean' ? v.pass : v.score === 1,
    ...(typeof v.reason === 'string' ? { reason: v.reason } : {}),
  };
}

/**
 * Runs one scorer on one reply and never fails: a throw, a rejection, an error or an empty
 * observable, or a malformed verdict gives an error score with the reason.
 *
 * @example
 * ```ts
 * const score = await lastValueFrom(applyScorer(exactAnswer(), sample, evalCase));
 * ```
 */
export function applyScorer(scorer: Scorer, sample: ReplySample, evalCase: EvalCase): Observable<Score> {
  return defer(() => {
    const out = scorer.score(sample, evalCase);
    return isObservable(out)
      ? out
      : out && typeof (out as PromiseLike<unknown>).then === 'function'
        ? from(out as PromiseLike<ScoreVerdict>)
        : of(out as ScoreVerdict);
  }).pipe(
    take(1),
    throwIfEmpty(() => new Error('it completed without a verdict')),
    map((v) => toScore(scorer.name, v)),
    catchError((e: unknown) =>
      of(errorScore(scorer.name, `scorer "${scorer.name}" failed: ${e instanceof Error ? e.message : String(e)}`)),
    ),
  );
}
