import type { Contender, Requirement, RunConfig, Scenario } from './scenario.js';
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
}

export interface RequirementResult extends Requirement {
  readonly ratio: number;
  readonly met: boolean;
}

export interface ScenarioResult {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly baseline: string;
  readonly config: RunConfig;
  readonly contenders: readonly ContenderResult[];
  readonly ratios: readonly Ratio[];
  readonly requirements: readonly RequirementResult[];
  readonly notes: readonly string[];
  readonly startedAt: string;
  readonly durationMs: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Sets a scenario up, checks each contender's result once, warms every contender up, then runs
 * `rounds` rounds; each round runs `batch` operations of every contender, in an order rotated
 * from round to round so that no contender always runs first or last. With `--expose-gc`, a full
 * GC runs before each batch so that one contender's garbage is not collected on another's time. Besides wall
 * time per operation it records this process's CPU time per operation of each batch, which
 * other processes on the machine disturb less.
 */
export async function runScenario(
  scenario: Scenario,
  config: RunConfig,
  progress: (done: number, total: number) => void = () => {},
  only?: readonly string[],
): Promise<ScenarioResult> {
  const startedAt = new Date();
  const t0 = performance.now();
  const instance = await scenario.setup(config);
  try {
    const contenders = only?.length ? instance.contenders.filter((c) => only.includes(c.name)) : instance.contenders;
    if (!contenders.length) throw new Error(`scenario ${scenario.id} has no contender named ${only?.join(', ')}`);
    for (const c of contenders) {
      const result = await c.run();
      try {
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
        const times: number[] = [];
        gc?.();
        const cpu0 = process.cpuUsage();
        for (let b = 0; b < config.batch; b++) {
          const start = performance.now();
          await c.run();
          times.push(performance.now() - start);
        }
        const used = process.cpuUsage(cpu0);
        cpu.get(c)!.push((used.user + used.system) / 1000 / config.batch);
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
          }))
      : [];
    const requirements: RequirementResult[] = (scenario.requirements ?? []).flatMap((req) => {
      const a = byName.get(req.contender);
      const b = byName.get(req.baseline);
      if (!a || !b) return [];
      const ratio = a.ms.median / b.ms.median;
      return [{ ...req, ratio, met: ratio <= req.maxRatio }];
    });
    return {
      id: scenario.id,
      title: scenario.title,
      description: scenario.description,
      baseline: scenario.baseline,
      config,
      contenders: results,
      ratios,
      requirements,
      notes: instance.notes ?? [],
      startedAt: startedAt.toISOString(),
      durationMs: performance.now() - t0,
    };
  } finally {
    await instance.teardown();
  }
}

/** Default sizes, overridden per scenario by `Scenario.sizes`. */
export function runConfig(scenario: Scenario, quick: boolean): RunConfig {
  const defaults = quick ? { warmup: 20, rounds: 3, batch: 10 } : { warmup: 300, rounds: 200, batch: 10 };
  return { quick, ...defaults, ...scenario.sizes?.[quick ? 'quick' : 'full'] };
}
