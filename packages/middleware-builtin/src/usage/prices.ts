import { OptionsError, type Usage } from '@rxscope/core';

/**
 * The price of one model, per million tokens, in the currency of the price table. Cached input
 * tokens and reasoning tokens are priced apart when given (they are part of `inputTokens` and
 * `outputTokens`, as providers report them); otherwise at the input and output price.
 *
 * @example
 * ```ts
 * const mini: ModelPrice = { input: 0.15, output: 0.6, cacheRead: 0.075 };
 * ```
 */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  /** Price of a cached input token. Default: `input`. */
  readonly cacheRead?: number;
  /** Price of a reasoning token. Default: `output`. */
  readonly reasoning?: number;
}

/** A price table: model name, or a prefix ending in `*` (`'gpt-4o-mini*'`), to its price. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

const FIELDS = ['input', 'output', 'cacheRead', 'reasoning'] as const;

/** Checks every price of the table (non-negative numbers, known fields); throws naming the first bad one. */
export function checkPrices(owner: string, prices: PriceTable): void {
  for (const [model, price] of Object.entries(prices)) {
    if (!price || typeof price !== 'object')
      throw new OptionsError(
        'invalid_option',
        `${owner}.prices`,
        `${owner}: prices["${model}"] must be an object like { input: 0.15, output: 0.6 }.`,
      );
    for (const field of Object.keys(price)) {
      if (!(FIELDS as readonly string[]).includes(field)) {
        throw new OptionsError(
          'invalid_option',
          `${owner}.prices`,
          `${owner}: prices["${model}"].${field} is not a price field (use ${FIELDS.join(', ')}).`,
        );
      }
    }
    for (const field of FIELDS) {
      const value = price[field];
      if (value === undefined && (field === 'cacheRead' || field === 'reasoning')) continue;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new OptionsError(
          'invalid_option',
          `${owner}.prices`,
          `${owner}: prices["${model}"].${field} must be a number >= 0 (per million tokens), got ${JSON.stringify(value)}.`,
        );
      }
    }
  }
}

/** The price of `model`: its own entry, else the longest `*` prefix that matches it. */
export function priceOf(prices: PriceTable, model: string): ModelPrice | undefined {
  const exact = prices[model];
  if (exact) return exact;
  let best: { length: number; price: ModelPrice } | undefined;
  for (const [key, price] of Object.entries(prices)) {
    if (!key.endsWith('*')) continue;
    const prefix = key.slice(0, -1);
    if (model.startsWith(prefix) && (!best || prefix.length > best.length)) best = { length: prefix.length, price };
  }
  return best?.price;
}

/** The cost of one call's usage at `price`. */
export function costOf(usage: Usage, price: ModelPrice): number {
  const cached = Math.min(usage.cacheReadTokens ?? 0, usage.inputTokens);
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens);
  return (
    ((usage.inputTokens - cached) * price.input +
      cached * (price.cacheRead ?? price.input) +
      (usage.outputTokens - reasoning) * price.output +
      reasoning * (price.reasoning ?? price.output)) /
    1_000_000
  );
}
