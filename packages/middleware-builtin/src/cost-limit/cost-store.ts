/**
 * Where per-user spending is added up: a running total per key that expires at the end of its
 * period. `CostLimitMiddleware` keeps it in memory by default (one process; lost on restart);
 * `RedisCostStore` from `@rxscope/middleware-builtin/redis` shares it between processes and keeps
 * it across restarts.
 *
 * @example
 * ```ts
 * const store: CostStore = new InMemoryCostStore();
 * await store.add('rxscope:cost:user-1:2026-12-07', 0.25, 3_600_000); // 0.25, expires in 1 h
 * ```
 */
export interface CostStore {
  /** Adds `amount` to the total under `key` (created at 0), which expires `ttlMs` from now; resolves with the new total. Atomic. */
  add(key: string, amount: number, ttlMs: number): Promise<number>;
  /** The total under `key` (0 when absent or expired). */
  get(key: string): Promise<number>;
}

/**
 * A {@link CostStore} in this process's memory: totals are lost when it exits and are not shared
 * with other processes. Expired keys are dropped when read.
 *
 * @example
 * ```ts
 * const limits = new CostLimitMiddleware({ perUser: { amount: 5, per: 'day' }, prices, store: new InMemoryCostStore() });
 * ```
 */
export class InMemoryCostStore implements CostStore {
  private readonly totals = new Map<string, { total: number; expiresAt: number }>();

  /** @param now clock in epoch milliseconds (default `Date.now`), for the expiry. */
  constructor(private readonly now: () => number = Date.now) {}

  add(key: string, amount: number, ttlMs: number): Promise<number> {
    const total = this.current(key) + amount;
    this.totals.set(key, { total, expiresAt: this.now() + ttlMs });
    return Promise.resolve(total);
  }

  get(key: string): Promise<number> {
    return Promise.resolve(this.current(key));
  }

  private current(key: string): number {
    const entry = this.totals.get(key);
    if (!entry) return 0;
    if (entry.expiresAt <= this.now()) {
      this.totals.delete(key);
      return 0;
    }
    return entry.total;
  }
}

/** The period a per-user total is kept for. */
export type CostPeriod = 'day' | 'month';

/** The id of the period (UTC) that `at` falls in (`2026-12-07` or `2026-12`), and the milliseconds left in it. */
export function periodOf(per: CostPeriod, at: number): { readonly id: string; readonly msLeft: number } {
  const d = new Date(at);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const pad = (n: number) => String(n).padStart(2, '0');
  if (per === 'day') {
    const end = Date.UTC(y, m, d.getUTCDate() + 1);
    return { id: `${y}-${pad(m + 1)}-${pad(d.getUTCDate())}`, msLeft: end - at };
  }
  return { id: `${y}-${pad(m + 1)}`, msLeft: Date.UTC(y, m + 1, 1) - at };
}
