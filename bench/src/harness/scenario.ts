/**
 * What a benchmark scenario is. A scenario file under `src/scenarios/` exports one scenario and
 * is listed in `src/scenarios/index.ts`. Two kinds:
 *
 * - a timed {@link Scenario}: contenders measured alternately in one process by the runner, with
 *   ratios (and differences) against a baseline;
 * - a {@link CustomScenario}: measures what per-operation timings cannot (memory under
 *   concurrency, leaks over a long run), usually in a fresh child process per contender, and
 *   returns its own tables and checks.
 */

/** Sizes of a run. `--quick` keeps the harness working in CI; its numbers mean nothing. */
export interface RunConfig {
  readonly quick: boolean;
  /** Unmeasured calls of each contender before measuring (JIT, connection pools, caches). */
  readonly warmup: number;
  /** Measured rounds; each round runs every contender once, in a rotated order. */
  readonly rounds: number;
  /** Measured operations per contender per round. */
  readonly batch: number;
}

/** One way of doing the scenario's operation. */
export interface Contender {
  /** Short id, e.g. `openai`. */
  readonly name: string;
  /** What it is, for the report, e.g. `openai client, chat.completions.create({stream: true})`. */
  readonly label: string;
  /**
   * One operation, awaited to completion. Its result is checked once by `check`. In a
   * `selfTimed` scenario it resolves to a {@link SelfTimed} value.
   */
  run(): Promise<unknown>;
  /** Operations per round of this contender, instead of `RunConfig.batch` (long operations next to short ones). */
  readonly batch?: number;
}

/** What `run()` resolves to in a `selfTimed` scenario: the time the operation measured itself. */
export interface SelfTimed {
  readonly elapsedMs: number;
}

/** A target the scenario must meet: `contender`'s median at most `maxRatio` × `baseline`'s. */
export interface Requirement {
  readonly contender: string;
  readonly baseline: string;
  readonly maxRatio: number;
  /** The requirement in words, e.g. the sentence. */
  readonly text: string;
}

/** Any other target, evaluated by the scenario itself (`analyze`) or a custom scenario. */
export interface Check {
  /** The target in words. */
  readonly text: string;
  /** Where we stand, e.g. `+0.31 ms`. */
  readonly value: string;
  /** The limit, e.g. `≤ +0.5 ms`. */
  readonly limit: string;
  readonly met: boolean;
}

/** A table of a report: a title, column headers, rows of cells (Markdown allowed). */
export interface Table {
  readonly title: string;
  readonly columns: readonly string[];
  /** Per column: right-aligned (numbers). Default: the first column left, the others right. */
  readonly align?: readonly ('left' | 'right')[];
  readonly rows: readonly (readonly string[])[];
}

/** Tables, checks and notes a scenario derives from its measurements. */
export interface Analysis {
  readonly tables?: readonly Table[];
  readonly checks?: readonly Check[];
  readonly notes?: readonly string[];
}

/** A scenario set up and ready to measure. */
export interface ScenarioInstance {
  readonly contenders: readonly Contender[];
  /** Throws when a contender's result is not the expected one (run once per contender before measuring). */
  check?(name: string, result: unknown): void;
  /** Facts for the report: package versions, server settings. */
  readonly notes?: readonly string[];
  teardown(): Promise<void>;
}

export interface Scenario {
  readonly kind?: 'timed';
  /** Id used by `--scenario` and as the section marker in docs/BENCHMARKS.md. */
  readonly id: string;
  readonly title: string;
  /** What is measured and how, in Markdown (one paragraph). */
  readonly description: string;
  /** Contender every ratio is computed against. */
  readonly baseline: string;
  readonly requirements?: readonly Requirement[];
  /** Override of the default sizes (e.g. fewer, longer operations). */
  readonly sizes?: Partial<Record<'quick' | 'full', Partial<Omit<RunConfig, 'quick'>>>>;
  /** Report the difference to the baseline (ms above it) besides the ratio: for "overhead above the floor". */
  readonly overhead?: boolean;
  /**
   * Unmeasured operations of a contender right after the forced GC that precedes each of its
   * batches (the first operation after a full GC may still pay for a grown young generation;
   * this matters for batches of one or two long operations). Default 0.
   */
  readonly rewarm?: number;
  /** Contenders time themselves: `run()` resolves to {@link SelfTimed} (e.g. time to the first token). */
  readonly selfTimed?: boolean;
  setup(config: RunConfig): Promise<ScenarioInstance>;
  /** Derived tables and checks (ns per event, ratios between contenders...). */
  analyze?(result: TimedResultView): Analysis;
}

/** The measurements `Scenario.analyze` sees. */
export interface TimedResultView {
  readonly config: RunConfig;
  readonly contenders: readonly {
    readonly name: string;
    readonly ms: { readonly median: number; readonly p25: number; readonly p75: number };
    readonly roundMedians: readonly number[];
    readonly cpuMs: { readonly median: number };
  }[];
}

/** Context given to a custom scenario. */
export interface CustomContext {
  readonly config: RunConfig;
  /** Contender names given with `--only`, if any. */
  readonly only?: readonly string[];
  /** Progress lines for the terminal. */
  log(line: string): void;
}

/** What a custom scenario measured. */
export interface CustomResult extends Analysis {
  /** Facts for the report (package versions, sizes). */
  readonly notes?: readonly string[];
  /** Raw figures, for `--json`. */
  readonly data?: unknown;
}

export interface CustomScenario {
  readonly kind: 'custom';
  readonly id: string;
  readonly title: string;
  /** What is measured and how, in Markdown (one paragraph). */
  readonly description: string;
  /** Sizes the scenario reads from `RunConfig` (only `quick` usually matters). */
  readonly sizes?: Partial<Record<'quick' | 'full', Partial<Omit<RunConfig, 'quick'>>>>;
  run(ctx: CustomContext): Promise<CustomResult>;
}

export type AnyScenario = Scenario | CustomScenario;
