import { UsageMiddleware } from '../usage/index.js';
import { checkPrices, type ModelPrice, type PriceTable } from '../usage/prices.js';
import { checkAmount, checkKeys, MiddlewareOptionError } from '../internal/option-error.js';
import type { RuntimeContext } from '@rxscope/core';
import type { CostPeriod, CostStore } from './cost-store.js';

/**
 * Options of `CostLimitMiddleware`. At least one of `perReply`, `perSession`, `perUser`.
 *
 * @example
 * ```ts
 * const options: CostLimitOptions = { perReply: 0.5, perUser: { amount: 5, per: 'day' }, prices, onLimit: 'ask' };
 * ```
 */
export interface CostLimitOptions {
  /** What one reply may spend, in `currency`. */
  readonly perReply?: number;
  /** What the agent's session may spend (kept with its state). */
  readonly perSession?: number;
  /** What one user may spend per UTC day or month, shared through `store`. Replies without a user are not counted. */
  readonly perUser?: { readonly amount: number; readonly per: CostPeriod };
  /** Currency of the limits: an ISO 4217 code; with `prices: usage` it must be the usage middleware's. Default: the usage middleware's, else `'USD'`. */
  readonly currency?: string;
  /** The price table per million tokens (as `UsageMiddleware`'s), or a `UsageMiddleware` to share its table. */
  readonly prices: PriceTable | UsageMiddleware;
  /** The price of a model missing from the table. Default: none, and a call of an unpriced model is refused before it is sent (`unpriced_model`). */
  readonly fallbackPrice?: ModelPrice;
  /** Fraction of a limit (between 0 and 1) at which a `cost_limit.warning` event is emitted. Default: no warning. */
  readonly warnAt?: number;
  /** At the limit: a wrap-up turn without tools (`'finish'`, default), a person's confirmation (`'ask'`), or stop (`'end'`). */
  readonly onLimit?: 'finish' | 'ask' | 'end';
  /** How much more a confirmed `'ask'` lets the reply spend (the person may edit it). Default: the limit reached. */
  readonly raiseBy?: number;
  /** Where per-user totals are kept. Default: in this process's memory. */
  readonly store?: CostStore;
  /** Whose spending a reply is. Default `ctx.userId`. */
  readonly userOf?: (ctx: RuntimeContext) => string | undefined;
  /** Clock in epoch milliseconds (for the periods). Default `Date.now`. */
  readonly now?: () => number;
  /** State key. Default `'CostLimitMiddleware'`. */
  readonly key?: string;
}

const KNOWN = [
  'perReply',
  'perSession',
  'perUser',
  'currency',
  'prices',
  'fallbackPrice',
  'warnAt',
  'onLimit',
  'raiseBy',
  'store',
  'userOf',
  'now',
  'key',
] as const;

/** The options checked, with defaults. */
export interface CheckedCostLimitOptions {
  readonly perReply?: number;
  readonly perSession?: number;
  readonly perUser?: { readonly amount: number; readonly per: CostPeriod };
  readonly currency: string;
  readonly prices: PriceTable;
  readonly fallbackPrice?: ModelPrice;
  readonly warnAt?: number;
  readonly onLimit: 'finish' | 'ask' | 'end';
  readonly raiseBy?: number;
}

const OWNER = 'CostLimitMiddleware';

/** Checks every option; throws a `MiddlewareOptionError` naming the first bad one. */
export function checkCostLimitOptions(options: CostLimitOptions): CheckedCostLimitOptions {
  if (!options || typeof options !== 'object') throw new MiddlewareOptionError(`${OWNER} needs an options object.`);
  checkKeys(OWNER, options, KNOWN);
  const perReply = checkAmount(OWNER, 'perReply', options.perReply);
  const perSession = checkAmount(OWNER, 'perSession', options.perSession);
  const perUser = options.perUser;
  if (perUser !== undefined) {
    checkKeys(`${OWNER}: perUser`, perUser, ['amount', 'per']);
    checkAmount(OWNER, 'perUser.amount', perUser.amount ?? NaN);
    if (perUser.per !== 'day' && perUser.per !== 'month')
      throw new MiddlewareOptionError(
        `${OWNER}: perUser.per must be 'day' or 'month', got ${JSON.stringify(perUser.per)}.`,
      );
  }
  if (perReply === undefined && perSession === undefined && perUser === undefined)
    throw new MiddlewareOptionError(`${OWNER}: set perReply, perSession or perUser (amounts in the prices' currency).`);
  const { prices, currency } = pricesOf(options);
  if (options.fallbackPrice !== undefined) checkPrices(OWNER, { fallbackPrice: options.fallbackPrice });
  const warnAt = options.warnAt;
  if (warnAt !== undefined && !(typeof warnAt === 'number' && warnAt > 0 && warnAt < 1))
    throw new MiddlewareOptionError(`${OWNER}: warnAt must be between 0 and 1 (exclusive), got ${String(warnAt)}.`);
  const onLimit = options.onLimit ?? 'finish';
  if (!['finish', 'ask', 'end'].includes(onLimit))
    throw new MiddlewareOptionError(
      `${OWNER}: onLimit must be 'finish', 'ask' or 'end', got ${JSON.stringify(onLimit)}.`,
    );
  const raiseBy = checkAmount(OWNER, 'raiseBy', options.raiseBy);
  if (
    options.store !== undefined &&
    (typeof options.store.add !== 'function' || typeof options.store.get !== 'function')
  )
    throw new MiddlewareOptionError(`${OWNER}: store must be a CostStore (add, get), such as RedisCostStore.`);
  return {
    ...(perReply !== undefined && { perReply }),
    ...(perSession !== undefined && { perSession }),
    ...(perUser !== undefined && { perUser: { amount: perUser.amount, per: perUser.per } }),
    currency,
    prices,
    ...(options.fallbackPrice !== undefined && { fallbackPrice: options.fallbackPrice }),
    ...(warnAt !== undefined && { warnAt }),
    onLimit,
    ...(raiseBy !== undefined && { raiseBy }),
  };
}

/** The price table and its currency; refuses a currency that is no ISO 4217 code or differs from the table's. */
function pricesOf(options: CostLimitOptions): { prices: PriceTable; currency: string } {
  const source = options.prices;
  if (!source || typeof source !== 'object')
    throw new MiddlewareOptionError(
      `${OWNER}: prices is required: a price table like { 'gpt-4o-mini*': { input: 0.15, output: 0.6 } } or a UsageMiddleware.`,
    );
  const shared = source instanceof UsageMiddleware;
  const prices = shared ? source.prices : source;
  if (!shared) checkPrices(OWNER, prices);
  const currency = options.currency ?? (shared ? source.currency : 'USD');
  if (!isCurrency(currency))
    throw new MiddlewareOptionError(
      `${OWNER}: currency must be an ISO 4217 code such as 'USD' or 'EUR', got ${JSON.stringify(currency)}.`,
      'unknown_currency',
    );
  if (shared && currency !== source.currency)
    throw new MiddlewareOptionError(
      `${OWNER}: currency ${currency} is not the price table's (the UsageMiddleware prices in ${source.currency}).`,
      'unknown_currency',
    );
  return { prices, currency };
}

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

function isCurrency(value: unknown): value is string {
  return typeof value === 'string' && CURRENCIES.has(value);
}
