/**
 * Where spending stands against one cost limit: the value of the `cost_limit` and
 * `cost_limit.warning` events.
 *
 * @example
 * ```ts
 * const s: CostLimitStatus = { scope: 'user', limit: 5, spent: 5.02, currency: 'USD' };
 * ```
 */
export interface CostLimitStatus {
  /** Which limit: this reply, the agent's session, or the user's period. */
  readonly scope: 'reply' | 'session' | 'user';
  readonly limit: number;
  /** Spent so far in that scope, in `currency`. */
  readonly spent: number;
  readonly currency: string;
}
