import { loadavg } from 'node:os';
import type {
  Analysis,
  AnyScenario,
  Check,
  Contender,
  CustomScenario,
  Requirement,
  RunConfig,
  Scenario,
  SelfTimed,
  Table,
} from './scenario.js';
import { median, summarize, type Summary } from './stats.js';

export interface ContenderResult {
  readonly name: string;
  readonly label: string;
  /** Milliseconds per operation, over every measured operation. */
  readonly ms: Summary;
  /** Median of each round, in round order. */
  readonly roundMedians: readonly number[];
  /** CPU time (user + system) of this process per operation, one value per round. */
  readonly cpuMs: Summary;
}

export interface Ratio {
  readonly contender: string;
  readonly baseline: string;
  /** Median of the contender / median of the baseline. */
  readonly ofMedians: number;
  /** Per-round ratios of the round medians (paired: both measured moments apart). */
  readonly paired: Summary;
  /** Median CPU time per operation of the contender / the baseline's. */
  readonly cpu: number;
  /** Median of the contender − median of the baseline, ms. */
  readonly overMs: number;
  /** Per-round differences of the round medians, ms (paired). */
  readonly pairedOverMs: Summary;
  /** Median CPU time per operation of the contender − the baseline's, ms. */
  readonly cpuOverMs: number;
}

export interface RequirementResult extends Requirement {
  readonly ratio: number;
  readonly met: boolean;
}

/** Load average (1 minute) when a scenario started and when it ended. */
export interface Load {
  readonly start: number;
  readonly end: number;
}

export interface TimedScenarioResult {
  readonly kind: 'timed';
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly baseline: string;
  readonly overhead: boolean;
  readonly selfTimed: boolean;
  readonly config: RunConfig;
  readonly contenders: readonly ContenderResult[];
  readonly ratios: readonly Ratio[];
  readonly requirements: readonly RequirementResult[];
  readonly tables: readonly Table[];
  readonly checks: readonly Check[];
  readonly notes: readonly string[];
  readonly startedAt: string;
  readonly durationMs: number;
  readonly load: Load;
}

export interface CustomScenarioResult {
  readonly kind: 'custom';
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly config: RunConfig;
  readonly tables: readonly Table[];
  readonly checks: readonly Check[];
  readonly notes: readonly string[];
  readonly data?: unknown;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly load: Load;
}

export type ScenarioResult = TimedScenarioResult | CustomScenarioResult;

/**
 * A full, synchronous GC between batches. Not plain `gc()`: that is V8's memory-reducing GC, which
 * also flushes compiled code, so the next operations run several times slower while the JIT
 * recompiles (measured: a 2 ms operation takes 10–30 ms right after it). `{type: 'major'}`
 * collects the whole heap without that.
 */
const exposed = (globalThis as { gc?: (options?: { type: 'major' | 'minor'; execution: 'sync' | 'async' }) => void })
  .gc;
const gc = exposed ? () => exposed({ type: 'major', execution: 'sync' }) : undefined;

/** Runs a scenario of either kind. */
export function runAny(
  scenario: AnyScenario,
  config: RunConfig,
  progress: (done: number, total: number) => void,
  log: (line: string) => void,
  only?: readonly string[],
): Promise<ScenarioResult> {
  return scenario.kind === 'custom'
    ? runCustom(scenario, config, log, only)
    : runScenario(scenario, config, progress, only);
}

/** Runs a custom scenario and stamps its result with the date, duration and load. */
export async function runCustom(
  scenario: CustomScenario,
  config: RunConfig,
  log: (line: string) => void = () => {},
  only?: readonly string[],
): Promise<CustomScenarioResult> {
  const startedAt = new Date();
  const load0 = loadavg()[0]!;
  const t0 = performance.now();
  const r = await scenario.run({ config, log, ...(only?.length ? { only } : {}) });
  return {
    kind: 'custom',
    id: scenario.id,
    title: scenario.title,
    description: scenario.description,
    config,
    tables: r.tables ?? [],
    checks: r.checks ?? [],
    notes: r.notes ?? [],
    ...(r.data !== undefined ? { data: r.data } : {}),
    startedAt: startedAt.toISOString(),
    durationMs: performance.now() - t0,
    load: { start: load0, end: loadavg()[0]! },
  };
}

/**
 * Sets a scenario up, checks each contender's result once, warms every contender up, then runs
 * `rounds` rounds; each round runs `batch` operations of every contender, in an order rotated
 * from round to round so that no contender always runs first or last. With `--expose-gc`, a full
 * GC runs before each batch so that one contender's garbage is not collected on another's time. Besides wall
 * time per operation it records this process's CPU time per operation of each batch, which
 * other processes on the machine disturb less. In a `selfTimed` scenario the time of an
 * operation is the one it reports (e.g. to its first token), not the wall time of `run()`.
 */
export async function runScenario(
  scenario: Scenario,
  config: RunConfig,
  progress: (done: number, total: number) => void = () => {},
  only?: readonly string[],
): Promise<TimedScenarioResult> {
  const startedAt = new Date();
  const load0 = loadavg()[0]!;
  const t0 = performance.now();
  const instance = await scenario.setup(config);
  try {
    const contenders = only?.length ? instance.contenders.filter((c) => only.includes(c.name)) : instance.contenders;
    if (!contenders.length) throw new Error(`scenario ${scenario.id} has no contender named ${only?.join(', ')}`);
    const timeOf = (result: unknown, wallMs: number): number => {
      if (!scenario.selfTimed) return wallMs;
      const ms = (result as SelfTimed | undefined)?.elapsedMs;
      if (typeof ms !== 'number' || !Number.isFinite(ms))
        throw new Error(`${scenario.id}: a self-timed contender returned no elapsedMs`);
      return ms;
    };
    for (const c of contenders) {
      const result = await c.run();
      try {
        timeOf(result, 0);
        instance.check?.(c.name, result);
      } catch (e) {
        throw new Error(`${scenario.id}/${c.name} returned a wrong result: ${(e as Error).message}`, { cause: e });
      }
    }
    for (let i = 0; i < config.warmup; i++) for (const c of contenders) await c.run();

    const samples = new Map<Contender, number[]>(contenders.map((c) => [c, []]));
    const rounds = new Map<Contender, number[]>(contenders.map((c) => [c, []]));
    const cpu = new Map<Contender, number[]>(contenders.map((c) => [c, []]));
    for (let r = 0; r < config.rounds; r++) {
      for (let k = 0; k < contenders.length; k++) {
        const c = contenders[(r + k) % contenders.length]!;
        const batch = c.batch ?? config.batch;
        const times: number[] = [];
        gc?.();
        if (gc) for (let w = 0; w < (scenario.rewarm ?? 0); w++) await c.run();
        const cpu0 = process.cpuUsage();
        for (let b = 0; b < batch; b++) {
          const start = performance.now();
          const result = await c.run();
          times.push(timeOf(result, performance.now() - start));
        }
        const used = process.cpuUsage(cpu0);
        cpu.get(c)!.push((used.user + used.system) / 1000 / batch);
        samples.get(c)!.push(...times);
        rounds.get(c)!.push(median(times));
      }
      progress(r + 1, config.rounds);
    }

    const results: ContenderResult[] = contenders.map((c) => ({
      name: c.name,
      label: c.label,
      ms: summarize(samples.get(c)!),
      roundMedians: rounds.get(c)!,
      cpuMs: summarize(cpu.get(c)!),
    }));
    const byName = new Map(results.map((r) => [r.name, r]));
    const base = byName.get(scenario.baseline);
    const ratios: Ratio[] = base
      ? results
          .filter((r) => r !== base)
          .map((r) => ({
            contender: r.name,
            baseline: base.name,
            ofMedians: r.ms.median / base.ms.median,
            paired: summarize(r.roundMedians.map((m, i) => m / base.roundMedians[i]!)),
            cpu: r.cpuMs.median / base.cpuMs.median,
            overMs: r.ms.median - base.ms.median,
            pairedOverMs: summarize(r.roundMedians.map((m, i) => m - base.roundMedians[i]!)),
            cpuOverMs: r.cpuMs.median - base.cpuMs.median,
          }))
      : [];
    const requirements: RequirementResult[] = (scenario.requirements ?? []).flatMap((req) => {
      const a = byName.get(req.contender);
      const b = byName.get(req.baseline);
      if (!a || !b) return [];
      const ratio = a.ms.median / b.ms.median;
      return [{ ...req, ratio, met: ratio <= req.maxRatio }];
    });
    const analysis: Analysis = scenario.analyze?.({ config, contenders: results }) ?? {};
    return {
      kind: 'timed',
      id: scenario.id,
      title: scenario.title,
      description: scenario.description,
      baseline: scenario.baseline,
      overhead: scenario.overhead ?? false,
      selfTimed: scenario.selfTimed ?? false,
      config,
      contenders: results,
      ratios,
      requirements,
      tables: analysis.tables ?? [],
      checks: analysis.checks ?? [],
      notes: [...(instance.notes ?? []), ...(analysis.notes ?? [])],
      startedAt: startedAt.toISOString(),
      durationMs: performance.now() - t0,
      load: { start: load0, end: loadavg()[0]! },
    };
  } finally {
    await instance.teardown();
  }
}

/** Default sizes, overridden per scenario by `sizes`. */
export function runConfig(scenario: AnyScenario, quick: boolean): RunConfig {
  const defaults = quick ? { warmup: 20, rounds: 3, batch: 10 } : { warmup: 300, rounds: 200, batch: 10 };
  return { quick, ...defaults, ...scenario.sizes?.[quick ? 'quick' : 'full'] };
}
