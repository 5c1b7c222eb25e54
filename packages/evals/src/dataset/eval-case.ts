import type { Cassette } from '@rxscope/middleware-builtin/recording';

/**
 * A tool call a case expects: the tool's name and, optionally, what its arguments must match (see
 * {@link ArgumentMatcher}).
 *
 * @example
 * ```ts
 * const call: ExpectedToolCall = { name: 'read_file', input: { path: 'src/sum.js' } };
 * ```
 */
export interface ExpectedToolCall {
  readonly name: string;
  readonly input?: ArgumentMatcher;
}

/**
 * How a tool call's arguments are matched: a plain object matches when every key it has matches
 * the argument of that key (deeply, extra arguments allowed); a `RegExp` is tested on the
 * arguments' JSON; a function decides.
 *
 * @example
 * ```ts
 * const byObject: ArgumentMatcher = { path: 'README.md' };
 * const byPattern: ArgumentMatcher = /"path":"src\//;
 * const byFunction: ArgumentMatcher = (input) => String((input as { path?: string }).path).endsWith('.ts');
 * ```
 */
export type ArgumentMatcher = Readonly<Record<string, unknown>> | RegExp | ((input: unknown) => boolean);

/**
 * What a case expects, for the scorers that compare with it: the final answer, the tool calls,
 * and anything else a scorer of your own reads.
 *
 * @example
 * ```ts
 * const expected: EvalExpected = { answer: '5', tools: [{ name: 'read_file' }] };
 * ```
 */
export interface EvalExpected {
  /** The final answer (the reply's text). */
  readonly answer?: string;
  /** The tool calls, in order. */
  readonly tools?: readonly ExpectedToolCall[];
  readonly [key: string]: unknown;
}

/**
 * One case of a dataset: what the agent is asked, what is expected, and free metadata. A case built
 * from a recording carries its cassette, so the agent factory can replay it.
 *
 * @example
 * ```ts
 * const c: EvalCase = { id: 'sum-1', input: 'What is 2 + 3?', expected: { answer: '5' }, metadata: { tag: 'math' } };
 * ```
 */
export interface EvalCase {
  /** Unique within its dataset; names the case in results and comparisons. */
  readonly id: string;
  /** The user message the reply answers. */
  readonly input: string;
  readonly expected?: EvalExpected;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The recording the case was built from (replay it with `ReplayChatModel`). */
  readonly cassette?: Cassette;
}

/**
 * A line of a JSONL dataset that could not be read: its number (from 1) and why.
 *
 * @example
 * ```ts
 * for (const e of dataset.errors) console.error(`${dataset.name}:${e.line}: ${e.reason}`);
 * ```
 */
export interface DatasetLineError {
  readonly line: number;
  readonly reason: string;
}

/**
 * Cases to run, with the lines of the source that could not be read (the rest still run).
 *
 * @example
 * ```ts
 * const dataset: Dataset = { name: 'smoke', cases: [{ id: 'a', input: 'hi', metadata: {} }], errors: [] };
 * ```
 */
export interface Dataset {
  readonly name: string;
  readonly cases: readonly EvalCase[];
  readonly errors: readonly DatasetLineError[];
}
