/**
 * What a benchmark scenario is. A scenario file under `src/scenarios/` exports one `Scenario`
 * and is listed in `src/scenarios/index.ts`; the runner measures its contenders alternately in
 * one process and the report writes its section of docs/BENCHMARKS.md.
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
  /** One operation, awaited to completion. Its result is checked once by `check`. */
  run(): Promise<unknown>;
}

/** A target the scenario must meet: `contender`'s median at most `maxRatio` × `baseline`'s. */
export interface Requirement {
  readonly contender: string;
  readonly baseline: string;
  readonly maxRatio: number;
  /** The requirement in words, e.g. the sentence. */
  readonly text: string;
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
  setup(config: RunConfig): Promise<ScenarioInstance>;
}
