/**
 * `CostLimitMiddleware`: stops on money. Every model call of the agent is priced from the same
 * price table as `UsageMiddleware` (pass the table, or the `UsageMiddleware` itself to share
 * it) and added to the reply's spending, the session's (kept with the agent's state) and the
 * user's for the current UTC day or month (kept in `store`: in memory by default, or a
 * `RedisCostStore` from `@rxscope/middleware-builtin/redis` shared by every process and kept
 * across restarts, each total expiring at the end of its period).
 *
 * Before each reasoning step the limits are checked. Once one is reached (`onLimit`):
 * - `'finish'` (default): one wrap-up turn without tools (`toolChoice: 'none'` and a hint), so
 *   the reply ends with an answer; if the loop needs yet another step, the reply ends as `'end'`.
 * - `'ask'`: the reply suspends with `REQUIRE_USER_CONFIRM` for a `raise_cost_limit` call
 *   (`{scope, limit, spent, currency, raiseBy}`); confirming (the person may edit `raiseBy`)
 *   lets this reply spend `raiseBy` more, rejecting ends it as `'end'`. The suspended reply is
 *   saved like any other, so the answer may come to another process. The call is the
 *   middleware's, never offered to the model; under the `bypass` permission mode it is allowed
 *   without asking.
 * - `'end'`: `REPLY_END {finishReason: 'stopped', stopReason: {code: 'cost_limit', message}}`.
 *
 * The model call that crosses a limit completes (its cost is known only at its end); the limit
 * acts on the next step. A model missing from the table is refused before the request is sent
 * (an `unpriced_model` error), unless `fallbackPrice` prices it. Events (`CUSTOM`):
 * `cost_limit.warning` once per scope and reply when `warnAt` of a limit is spent, and
 * `cost_limit` `{action: 'finish' | 'ask' | 'end', scope, limit, spent, currency}` at a limit.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { CostLimitMiddleware, UsageMiddleware } from '@rxscope/middleware-builtin';
 * import { RedisCostStore } from '@rxscope/middleware-builtin/redis';
 *
 * const usage = new UsageMiddleware({ prices: { 'gpt-4o-mini*': { input: 0.15, output: 0.6 } } });
 * const limits = new CostLimitMiddleware({
 *   prices: usage,
 *   perReply: 0.5,
 *   perUser: { amount: 5, per: 'day' },
 *   warnAt: 0.8,
 *   onLimit: 'ask',
 *   store: new RedisCostStore({ redis: new Redis(process.env.REDIS_URL!) }),
 * });
 * const agent = new Agent({ model, tools, middlewares: [usage, limits] });
 * ```
 *
 * @module
 */
import { concat, concatMap, defer, EMPTY, from, type Observable, of, switchMap, tap } from 'rxjs';
import type {
  ActingInput,
  AgentEvent,
  AgentHandle,
  Middleware,
  ModelCallInput,
  Next,
  ReasoningInput,
  RuntimeContext,
  Tool,
  Usage,
} from '@rxscope/core';
import { costOf, type ModelPrice, priceOf } from '../usage/prices.js';
import { MiddlewareOptionError } from '../internal/option-error.js';
import { ScopedState } from '../internal/scoped-state.js';
import type { CostLimitStatus } from './cost-limit-status.js';
import { type CheckedCostLimitOptions, checkCostLimitOptions, type CostLimitOptions } from './cost-limit-options.js';
import { type CostStore, InMemoryCostStore, periodOf } from './cost-store.js';
import { type RaiseInput, raiseCallEvents, raiseFor, raiseLimitTool } from './raise-limit-tool.js';

export type { CostLimitOptions } from './cost-limit-options.js';
export type { CostLimitStatus } from './cost-limit-status.js';

interface ReplySpending {
  readonly spent: number;
  /** Scopes already warned about in this reply. */
  readonly warned: readonly string[];
  readonly finishing: boolean;
  /** Approval calls made, and the id of the last one. */
  readonly asks: number;
  readonly askId?: string;
  /** Allowance confirmed by a person: this reply may spend `raised` beyond `spentAtRaise`. */
  readonly raises: number;
  readonly raised: number;
  readonly spentAtRaise: number;
}

const FRESH: ReplySpending = { spent: 0, warned: [], finishing: false, asks: 0, raises: 0, raised: 0, spentAtRaise: 0 };

/** Stops a reply, a session or a user on money. See the module documentation. */
export class CostLimitMiddleware implements Middleware {
  readonly key: string;
  private readonly options: CheckedCostLimitOptions;
  private readonly store: CostStore;
  private readonly userOf: (ctx: RuntimeContext) => string | undefined;
  private readonly now: () => number;
  private readonly state: ScopedState<ReplySpending, { spent: number }>;
  private readonly raiseTool: Tool<RaiseInput>;

  constructor(options: CostLimitOptions) {
    this.options = checkCostLimitOptions(options);
    this.key = options.key ?? 'CostLimitMiddleware';
    this.now = options.now ?? Date.now;
    this.store = options.store ?? new InMemoryCostStore(this.now);
    this.userOf = options.userOf ?? ((ctx) => ctx.userId);
    this.state = new ScopedState(
      this.key,
      () => FRESH,
      () => ({ spent: 0 }),
    );
    this.raiseTool = raiseLimitTool('raise_cost_limit');
  }

  tools(): readonly Tool[] {
    return this.options.onLimit === 'ask' ? [this.raiseTool] : [];
  }

  /** The cost of one call's usage of `model` (the fallback price when the table has none; `undefined` without either). */
  cost(model: string, usage: Usage): number | undefined {
    const price = this.priceOf(model);
    return price && costOf(usage, price);
  }

  /** What `userId` has spent in the current period (0 without `perUser`). */
  async userSpent(userId: string): Promise<number> {
    const key = this.userKey(userId);
    return key ? this.store.get(key.key) : 0;
  }

  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    return defer(() => {
      const model = input.model.modelName;
      if (!this.priceOf(model))
        throw new MiddlewareOptionError(
          `CostLimitMiddleware: the model "${model}" has no price in the table; add it to prices, or set fallbackPrice.`,
          'unpriced_model',
        );
      return next(input).pipe(
        concatMap((e) =>
          e.type === 'MODEL_CALL_END' && e.source === ctx.agentName
            ? from(this.book(ctx, this.cost(e.model, e.usage) ?? this.cost(model, e.usage)!)).pipe(
                switchMap((extra) => of(e, ...extra)),
              )
            : of(e),
        ),
      );
    });
  }

  onReasoning(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    const offered = { ...input, tools: input.tools.filter((t) => t.name !== this.raiseTool.name) };
    return defer(() => from(this.reached(ctx))).pipe(
      switchMap((status) => (status ? this.atLimit(ctx, status, offered, next) : next(offered))),
    );
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    if (input.tool.name !== this.raiseTool.name) return next(input);
    return next(input).pipe(
      tap((e) => {
        const s = this.state.reply(ctx);
        // Only the middleware's own call, confirmed by a person, raises the limit.
        if (e.type !== 'TOOL_RESULT_END' || e.status !== 'success' || input.toolCall.id !== s.askId) return;
        const { raiseBy } = input.input as RaiseInput;
        this.state.setReply(ctx, { ...s, raises: s.raises + 1, raised: raiseBy, spentAtRaise: s.spent });
      }),
    );
  }

  private atLimit(
    ctx: RuntimeContext,
    status: CostLimitStatus,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    const s = this.state.reply(ctx);
    const report = (action: string) => ctx.event('CUSTOM', { name: 'cost_limit', value: { action, ...status } });
    const { onLimit } = this.options;
    if (onLimit === 'finish' && !s.finishing) {
      this.state.setReply(ctx, { ...s, finishing: true });
      ctx.conversation.addHint(
        `The cost limit of this ${status.scope} is reached (${round(status.spent)} of ${status.limit} ${status.currency}). ` +
          'Tools are no longer available: answer now with what you have, and say briefly what is left undone, if anything.',
        { id: `${this.key}:finish`, source: this.key },
      );
      return concat(of(report('finish')), next({ ...input, toolChoice: 'none' }));
    }
    // 'ask' once per allowance: a rejected (or unanswered) approval ends the reply.
    if (onLimit === 'ask' && s.asks === s.raises) {
      const id = `cost_limit_${ctx.replyId}_${s.asks + 1}`;
      this.state.setReply(ctx, { ...s, asks: s.asks + 1, askId: id });
      const raise = raiseFor(status, this.options.raiseBy);
      return of(report('ask'), ...raiseCallEvents(ctx, this.raiseTool.name, id, raise));
    }
    const message = `Cost limit reached: ${round(status.spent)} of ${status.limit} ${status.currency} per ${status.scope} spent.`;
    return concat(
      of(report('end')),
      defer(() => {
        ctx.stop({ code: 'cost_limit', message });
        return EMPTY;
      }),
    );
  }

  /** The first limit reached (reply, session, user), unless a person allowed more for this reply. */
  private async reached(ctx: RuntimeContext): Promise<CostLimitStatus | undefined> {
    const s = this.state.reply(ctx);
    if (s.raises > 0 && s.spent - s.spentAtRaise < s.raised) return undefined;
    for (const status of await this.statuses(ctx, s.spent)) if (status.spent >= status.limit) return status;
    return undefined;
  }

  /** Where each configured limit stands. */
  private async statuses(ctx: RuntimeContext, replySpent: number, userSpent?: number): Promise<CostLimitStatus[]> {
    const { perReply, perSession, perUser, currency } = this.options;
    const out: CostLimitStatus[] = [];
    if (perReply !== undefined) out.push({ scope: 'reply', limit: perReply, spent: replySpent, currency });
    if (perSession !== undefined)
      out.push({ scope: 'session', limit: perSession, spent: this.state.session(ctx).spent, currency });
    const user = this.user(ctx);
    if (perUser !== undefined && user !== undefined)
      out.push({ scope: 'user', limit: perUser.amount, spent: userSpent ?? (await this.userSpent(user)), currency });
    return out;
  }

  /** Adds one call's cost to the reply, the session and the user; returns the warnings it crossed. */
  private async book(ctx: RuntimeContext, cost: number): Promise<AgentEvent[]> {
    const user = this.user(ctx);
    const key = user === undefined ? undefined : this.userKey(user);
    const userSpent = key ? await this.store.add(key.key, cost, key.ttlMs) : undefined;
    const before = this.state.reply(ctx);
    const spent = before.spent + cost;
    this.state.setSession(ctx, { spent: this.state.session(ctx).spent + cost });
    const events: AgentEvent[] = [];
    const warned = [...before.warned];
    const { warnAt } = this.options;
    if (warnAt !== undefined) {
      for (const status of await this.statuses(ctx, spent, userSpent)) {
        if (status.spent < warnAt * status.limit || warned.includes(status.scope)) continue;
        warned.push(status.scope);
        events.push(ctx.event('CUSTOM', { name: 'cost_limit.warning', value: status }));
      }
    }
    this.state.setReply(ctx, { ...this.state.reply(ctx), spent, warned });
    return events;
  }

  /** The reply's user: a non-empty string of at most 256 characters, or none. */
  private user(ctx: RuntimeContext): string | undefined {
    const user = this.userOf(ctx);
    if (user === undefined) return undefined;
    if (typeof user !== 'string' || user === '' || user.length > 256)
      throw new MiddlewareOptionError(
        `CostLimitMiddleware: the user id must be a non-empty string of at most 256 characters, got ${JSON.stringify(user)?.slice(0, 80)}.`,
        'invalid_user',
      );
    return user;
  }

  private userKey(userId: string): { key: string; ttlMs: number } | undefined {
    const { perUser } = this.options;
    if (!perUser) return undefined;
    const period = periodOf(perUser.per, this.now());
    return { key: `${encodeURIComponent(userId)}:${period.id}`, ttlMs: period.msLeft };
  }

  private priceOf(model: string): ModelPrice | undefined {
    return priceOf(this.options.prices, model) ?? this.options.fallbackPrice;
  }
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
