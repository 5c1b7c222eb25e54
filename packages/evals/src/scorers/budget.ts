import { checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import type { Scorer } from './scorer.js';

/**
 * Options of {@link costBudget}. Limits left out are not checked; at least one is needed.
 *
 * @example
 * ```ts
 * const options: CostBudgetOptions = { maxTotalTokens: 5_000, maxCost: 0.01, prices: { inputPerMillion: 0.15, outputPerMillion: 0.6 } };
 * ```
 */
export interface CostBudgetOptions {
  readonly maxInputTokens?: number;
  readonly maxOutputTokens?: number;
  readonly maxTotalTokens?: number;
  /** Needs `prices`. */
  readonly maxCost?: number;
  /** Price per million tokens, in your currency. */
  readonly prices?: { readonly inputPerMillion: number; readonly outputPerMillion: number };
  readonly maxModelCalls?: number;
  readonly name?: string;
}

const positive = (owner: string, key: string, v: unknown) => {
  if (v !== undefined && !(typeof v === 'number' && v >= 0 && Number.isFinite(v))) {
    throw new OptionsError('invalid_option', `${owner}.${key}`, `${owner}: ${key} must be a finite number >= 0.`);
  }
};

/**
 * 1 when the reply's usage (its `REPLY_END` usage, or the sum of its model calls' usage when it has
 * none) stays within every limit given; the reason names each limit exceeded.
 *
 * @example
 * ```ts
 * const scorers = [costBudget({ maxTotalTokens: 8_000, maxModelCalls: 6 })];
 * ```
 */
export function costBudget(options: CostBudgetOptions): Scorer {
  checkOptionKeys(
    'costBudget',
    options,
    optionKeys<CostBudgetOptions>({
      maxInputTokens: true,
      maxOutputTokens: true,
      maxTotalTokens: true,
      maxCost: true,
      prices: true,
      maxModelCalls: true,
      name: true,
    }),
  );
  const limits = ['maxInputTokens', 'maxOutputTokens', 'maxTotalTokens', 'maxCost', 'maxModelCalls'] as const;
  for (const key of limits) positive('costBudget', key, options[key]);
  if (!limits.some((k) => options[k] !== undefined)) {
    throw new OptionsError('invalid_option', 'costBudget', `costBudget: give at least one of ${limits.join(', ')}.`);
  }
  if (options.maxCost !== undefined && !options.prices) {
    throw new OptionsError(
      'invalid_option',
      'costBudget.prices',
      'costBudget: maxCost needs prices {inputPerMillion, outputPerMillion}.',
    );
  }
  return {
    name: options.name ?? 'budget:cost',
    score: (sample) => {
      const { inputTokens, outputTokens } = sample.usage;
      const cost = options.prices
        ? (inputTokens * options.prices.inputPerMillion + outputTokens * options.prices.outputPerMillion) / 1e6
        : undefined;
      const used: Record<(typeof limits)[number], number | undefined> = {
        maxInputTokens: inputTokens,
        maxOutputTokens: outputTokens,
        maxTotalTokens: inputTokens + outputTokens,
        maxCost: cost,
        maxModelCalls: sample.modelCalls,
      };
      const over = limits.filter((k) => options[k] !== undefined && used[k]! > options[k]);
      return {
        score: over.length ? 0 : 1,
        reason: over.length
          ? over.map((k) => `${k} ${options[k]} exceeded (${used[k]})`).join('; ')
          : `within budget (${inputTokens} in, ${outputTokens} out, ${sample.modelCalls} model call(s))`,
      };
    },
  };
}

/**
 * Options of {@link latencyBudget}.
 *
 * @example
 * ```ts
 * const options: LatencyBudgetOptions = { maxMs: 20_000 };
 * ```
 */
export interface LatencyBudgetOptions {
  /** The longest the reply may take, from its `REPLY_START` to its `REPLY_END`. */
  readonly maxMs: number;
  readonly name?: string;
}

/**
 * 1 when the reply took at most `maxMs` (event times, so a replayed reply is judged on its replay);
 * an error score when the reply has no `REPLY_START` or `REPLY_END` to time.
 *
 * @example
 * ```ts
 * const scorers = [latencyBudget({ maxMs: 30_000 })];
 * ```
 */
export function latencyBudget(options: LatencyBudgetOptions): Scorer {
  checkOptionKeys('latencyBudget', options, optionKeys<LatencyBudgetOptions>({ maxMs: true, name: true }));
  positive('latencyBudget', 'maxMs', options.maxMs);
  if (options.maxMs === undefined)
    throw new OptionsError('invalid_option', 'latencyBudget.maxMs', 'latencyBudget: maxMs is required.');
  return {
    name: options.name ?? 'budget:latency',
    score: (sample) => {
      if (sample.durationMs === undefined) throw new Error('the reply has no REPLY_START and REPLY_END to time');
      const ok = sample.durationMs <= options.maxMs;
      return { score: ok ? 1 : 0, reason: `${sample.durationMs} ms (at most ${options.maxMs})` };
    },
  };
}
