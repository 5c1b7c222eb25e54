import { catchError, concat, defer, forkJoin, map, mergeMap, type Observable, of, range, toArray } from 'rxjs';
import {
  type Agent,
  type AgentEvent,
  type ChatModel,
  checkOptionKeys,
  optionKeys,
  OptionsError,
  type Usage,
} from '@rxscope/core';
import type { Dataset, DatasetLineError, EvalCase } from '../dataset/eval-case.js';
import { replySample } from '../scorers/reply-sample.js';
import { applyScorer, errorScore, type Score, type Scorer } from '../scorers/scorer.js';
import { summarize, type EvalSummary } from './summary.js';

/**
 * Options of {@link runEval}.
 *
 * @example
 * ```ts
 * const options: RunEvalOptions = { dataset, agent: () => new Agent({ model }), scorers: [exactAnswer()], concurrency: 4, repeat: 3 };
 * ```
 */
export interface RunEvalOptions {
  /** A dataset (its unreadable lines are reported in the run) or plain cases. */
  readonly dataset: Dataset | readonly EvalCase[];
  /** Builds the agent that answers one case (`run` counts the repeats from 1): a new one each time. */
  readonly agent: (evalCase: EvalCase, run: number) => Agent;
  readonly scorers: readonly Scorer[];
  /** Cases answered at once. Default 4. */
  readonly concurrency?: number;
  /** How often each case is answered (the summary gets confidence intervals above 1). Default 1. */
  readonly repeat?: number;
  /** Names the run in results and comparisons. Default: the dataset's name, or `eval`. */
  readonly name?: string;
}

/**
 * One answered case: what was asked and answered, how the reply ended, and every scorer's score.
 * `error` is set when the reply failed or could not run; a cassette the agent no longer matches
 * says to re-record it, and then every score is an error too.
 *
 * @example
 * ```ts
 * if (result.error) console.error(`${result.caseId}: ${result.error}`);
 * ```
 */
export interface CaseResult {
  readonly caseId: string;
  /** Which repeat, from 1. */
  readonly run: number;
  readonly input: string;
  readonly answer: string;
  readonly toolCalls: readonly string[];
  readonly finishReason?: string;
  readonly error?: string;
  /**
   * What `error` is: `cassette_outdated` (the agent no longer makes the recorded requests:
   * re-record the cassette), `reply_failed` (the reply ended with an error, or without
   * `REPLY_END`), `reply_not_run` (the agent could not be built or its reply could not start).
   */
  readonly errorCode?: 'cassette_outdated' | 'reply_failed' | 'reply_not_run';
  readonly usage: Usage;
  readonly durationMs?: number;
  readonly scores: readonly Score[];
}

/**
 * A finished run, as the CLI writes it to JSON and compares it: its results (in dataset order),
 * its summary, and the dataset lines that could not be read.
 *
 * @example
 * ```ts
 * writeFileSync('results.json', JSON.stringify(run, null, 2));
 * ```
 */
export interface EvalRun {
  readonly name: string;
  readonly results: readonly CaseResult[];
  readonly summary: EvalSummary;
  readonly datasetErrors: readonly DatasetLineError[];
}

/**
 * What {@link runEval} emits: a `case` event per answered case (with the progress), then one
 * `done` event with the whole run.
 *
 * @example
 * ```ts
 * runEval(options).subscribe((e) => e.type === 'case' ? bar(e.done, e.total) : print(e.run.summary));
 * ```
 */
export type EvalEvent =
  | { readonly type: 'case'; readonly result: CaseResult; readonly done: number; readonly total: number }
  | { readonly type: 'done'; readonly run: EvalRun };

const KEYS = optionKeys<RunEvalOptions>({
  dataset: true,
  agent: true,
  scorers: true,
  concurrency: true,
  repeat: true,
  name: true,
});

function check(options: RunEvalOptions): void {
  checkOptionKeys('runEval', options, KEYS);
  const fail = (key: string, message: string) => {
    throw new OptionsError('invalid_option', `runEval.${key}`, `runEval: ${message}`);
  };
  if (!options.dataset) fail('dataset', 'dataset is required (a Dataset or an array of cases).');
  if (typeof options.agent !== 'function') fail('agent', 'agent must be a function (evalCase, run) => Agent.');
  if (!Array.isArray(options.scorers) || options.scorers.length === 0) fail('scorers', 'give at least one scorer.');
  const names = options.scorers.map((s) => s?.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (names.some((n) => typeof n !== 'string' || n === '')) fail('scorers', 'every scorer needs a name.');
  if (duplicate) fail('scorers', `two scorers are named "${duplicate}"; give one a name of its own.`);
  for (const key of ['concurrency', 'repeat'] as const) {
    const v = options[key];
    if (v !== undefined && !(Number.isInteger(v) && v >= 1 && v <= 1000))
      fail(key, `${key} must be an integer from 1 to 1000.`);
  }
}

/**
 * What a replayed model says of the calls the reply did not make (`ReplayChatModel.verify()`:
 * the agent now makes fewer model calls than were recorded); `undefined` for any other model.
 */
function unplayedCalls(model: ChatModel | undefined): string | undefined {
  const replay = model as { verify?: unknown } | undefined;
  if (typeof replay?.verify !== 'function') return undefined;
  try {
    (replay.verify as () => void).call(model);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Answers one case once and scores the reply. */
function runCase(options: RunEvalOptions, evalCase: EvalCase, run: number): Observable<CaseResult> {
  const failed = (error: string, errorCode: 'cassette_outdated' | 'reply_not_run'): CaseResult => ({
    caseId: evalCase.id,
    run,
    input: evalCase.input,
    answer: '',
    toolCalls: [],
    error,
    errorCode,
    usage: { inputTokens: 0, outputTokens: 0 },
    scores: options.scorers.map((s) => errorScore(s.name, error)),
  });
  let agent: Agent | undefined;
  return defer(() => (agent = options.agent(evalCase, run)).reply(evalCase.input)).pipe(
    toArray(),
    mergeMap((events: AgentEvent[]) => {
      const sample = replySample(events);
      const err = sample.end?.error;
      const outdated = err?.code === 'cassette_mismatch' ? err.message : unplayedCalls(agent?.model);
      if (outdated !== undefined) {
        return of(
          failed(
            `the cassette no longer matches the agent's requests; re-record it (${outdated})`,
            'cassette_outdated',
          ),
        );
      }
      const base = {
        caseId: evalCase.id,
        run,
        input: evalCase.input,
        answer: sample.answer,
        toolCalls: sample.toolCalls.map((c) => c.name),
        ...(sample.end ? { finishReason: sample.end.finishReason } : {}),
        ...(err
          ? { error: err.message, errorCode: 'reply_failed' as const }
          : sample.end
            ? {}
            : { error: 'the reply ended without REPLY_END', errorCode: 'reply_failed' as const }),
        usage: sample.usage,
        ...(sample.durationMs !== undefined ? { durationMs: sample.durationMs } : {}),
      };
      return forkJoin(options.scorers.map((s) => applyScorer(s, sample, evalCase))).pipe(
        map((scores): CaseResult => ({ ...base, scores })),
      );
    }),
    catchError((e: unknown) =>
      of(failed(`the reply could not run: ${e instanceof Error ? e.message : String(e)}`, 'reply_not_run')),
    ),
  );
}

/**
 * Runs every case of a dataset through a fresh agent (`repeat` times each, `concurrency` at once),
 * scores each reply with every scorer, and emits each result as it comes, then the whole run with
 * its summary. A scorer that throws gives that case an error score and the run goes on; a reply
 * that fails is a result with `error`. Unsubscribing stops every case still running, their model
 * requests included.
 *
 * @example
 * ```ts
 * const last = await lastValueFrom(
 *   runEval({
 *     dataset: parseJsonlDataset(text, { name: 'math' }),
 *     agent: () => new Agent({ model, tools }),
 *     scorers: [exactAnswer(), trajectory({ mode: 'any-order' })],
 *     concurrency: 4,
 *     repeat: 3,
 *   }),
 * );
 * if (last.type === 'done') console.log(formatSummary(last.run));
 * ```
 */
export function runEval(options: RunEvalOptions): Observable<EvalEvent> {
  check(options);
  const dataset: Dataset = Array.isArray(options.dataset)
    ? { name: options.name ?? 'eval', cases: options.dataset as readonly EvalCase[], errors: [] }
    : (options.dataset as Dataset);
  const repeat = options.repeat ?? 1;
  const cases = dataset.cases;
  const total = cases.length * repeat;
  return defer(() => {
    const results: CaseResult[] = [];
    const jobs = range(0, total).pipe(
      mergeMap((k) => runCase(options, cases[Math.floor(k / repeat)]!, (k % repeat) + 1), options.concurrency ?? 4),
      map((result): EvalEvent => {
        results.push(result);
        return { type: 'case', result, done: results.length, total };
      }),
    );
    const finish = defer(() => {
      const order = new Map(cases.map((c, i) => [c.id, i]));
      const sorted = [...results].sort((a, b) => order.get(a.caseId)! - order.get(b.caseId)! || a.run - b.run);
      const run: EvalRun = {
        name: options.name ?? dataset.name,
        results: sorted,
        summary: summarize(
          sorted.flatMap((r) => r.scores),
          {
            scorers: options.scorers.map((s) => s.name),
            cases: cases.length,
            repeat,
            caseErrors: sorted.filter((r) => r.error !== undefined).length,
          },
        ),
        datasetErrors: dataset.errors,
      };
      return of<EvalEvent>({ type: 'done', run });
    });
    return concat(jobs, finish);
  });
}
