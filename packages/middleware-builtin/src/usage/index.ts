/**
 * `UsageMiddleware`: what a reply cost and where its time went. Per reply it adds up tokens
 * (input, output, cached input, reasoning) and their cost from a price table you supply, per
 * model and in total, and times each phase: the whole reply, the reasoning steps, the model
 * calls (each attempt) and the tool calls (per tool). Per session it keeps running totals,
 * persisted with the agent's state.
 *
 * Events (`CUSTOM`): `usage.model_call` right after each model call's `MODEL_CALL_END`
 * (`{model, usage, cost, durationMs}`), and `usage.reply` just before `REPLY_END` (a
 * {@link ReplyUsage}). After the reply, read them back with `usage.lastReply(agent)` and
 * `usage.session(agent)`, also when you used `agent.call()` and saw no events.
 *
 * Only the agent's own model calls count (a nested agent's calls, streamed through with their
 * own `source`, are that agent's). A model without a price costs 0 and is listed in `unpriced`.
 * A reply suspended for confirmation and resumed reports each part when it ends.
 *
 * @example
 * ```ts
 * const usage = new UsageMiddleware({
 *   prices: { 'gpt-4o-mini*': { input: 0.15, output: 0.6, cacheRead: 0.075 }, 'o4-mini': { input: 1.1, output: 4.4, reasoning: 4.4 } },
 * });
 * const agent = new Agent({ model, middlewares: [usage] });
 * await agent.call('Summarise the report');
 * console.log(usage.lastReply(agent)?.cost, usage.session(agent)?.cost);
 * ```
 *
 * @module
 */
import { concatMap, defer, finalize, type Observable, of } from 'rxjs';
import {
  type ActingInput,
  type Agent,
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  ContextToken,
  type Middleware,
  type ModelCallInput,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  type Usage,
  checkOptionKeys,
  optionKeys,
} from '@rxscope/core';
import { checkPrices, costOf, priceOf, type PriceTable } from './prices.js';

/** Tokens, calls and cost added up. */
export interface UsageTotals {
  /** Model calls, counting each attempt (a retried call counts twice). */
  readonly modelCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Cached input tokens (a part of `inputTokens`). */
  readonly cacheReadTokens: number;
  /** Reasoning tokens (a part of `outputTokens`). */
  readonly reasoningTokens: number;
  /** In the price table's currency; unpriced models count 0. */
  readonly cost: number;
}

/** The value of `usage.reply`: one reply's usage, cost and timing. */
export interface ReplyUsage extends UsageTotals {
  readonly replyId: string;
  readonly sessionId: string;
  /** The user the reply acted for (`ctx.userId`), when it had one: add totals up per user from it. */
  readonly userId?: string;
  readonly agentName: string;
  readonly currency: string;
  /** Wall time of the reply (this run of it, when resumed). */
  readonly durationMs: number;
  /** Time in each phase, added up over the reply (model calls run inside reasoning steps). */
  readonly timing: { readonly reasoningMs: number; readonly modelMs: number; readonly actingMs: number };
  readonly toolCalls: number;
  readonly perModel: Readonly<Record<string, UsageTotals & { readonly ms: number }>>;
  readonly perTool: Readonly<Record<string, { readonly calls: number; readonly ms: number }>>;
  /** Models that were called but have no price. */
  readonly unpriced: readonly string[];
}

/** Running totals of a session (persisted with the agent's state). */
export interface SessionUsage extends UsageTotals {
  readonly replies: number;
  /** The user of the session's replies (`ctx.userId`; a session belongs to one user), when they had one. */
  readonly userId?: string;
  readonly currency: string;
  readonly perModel: Readonly<Record<string, UsageTotals>>;
  readonly unpriced: readonly string[];
}

/** The value of `usage.model_call`. */
export interface ModelCallUsage {
  readonly model: string;
  readonly usage: Usage;
  readonly cost: number;
  readonly durationMs: number;
}

/** Options of {@link UsageMiddleware}. */
export interface UsageOptions {
  /** Prices per million tokens, by model name or `*` prefix. Default: none (costs are 0). */
  readonly prices?: PriceTable;
  /** Currency of the prices, for display. Default `'USD'`. */
  readonly currency?: string;
  /** Clock in milliseconds. Default `performance.now()`. */
  readonly now?: () => number;
  /** State key. Default `'UsageMiddleware'`. */
  readonly key?: string;
}

interface Persisted {
  readonly session?: SessionUsage;
  readonly lastReply?: ReplyUsage;
}

type MutableTotals = { -readonly [K in keyof UsageTotals]: UsageTotals[K] };

/** What one reply has used so far (a fresh object per reply, in its context). */
class ReplyAccount {
  readonly totals: MutableTotals = zero();
  readonly perModel = new Map<string, MutableTotals & { ms: number }>();
  readonly perTool = new Map<string, { calls: number; ms: number }>();
  readonly unpriced = new Set<string>();
  reasoningMs = 0;
  modelMs = 0;
  actingMs = 0;
  toolCalls = 0;
  constructor(readonly startedAt: number) {}
}

const zero = (): MutableTotals => ({
  modelCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  reasoningTokens: 0,
  cost: 0,
});

function addUsage(into: MutableTotals, usage: Usage, cost: number): void {
  into.modelCalls += 1;
  into.inputTokens += usage.inputTokens;
  into.outputTokens += usage.outputTokens;
  into.cacheReadTokens += usage.cacheReadTokens ?? 0;
  into.reasoningTokens += usage.reasoningTokens ?? 0;
  into.cost += cost;
}

function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    modelCalls: a.modelCalls + b.modelCalls,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    cost: a.cost + b.cost,
  };
}

const totalsOf = (t: UsageTotals): UsageTotals => ({
  modelCalls: t.modelCalls,
  inputTokens: t.inputTokens,
  outputTokens: t.outputTokens,
  cacheReadTokens: t.cacheReadTokens,
  reasoningTokens: t.reasoningTokens,
  cost: t.cost,
});

const ACCOUNT = new ContextToken<ReplyAccount | undefined>('UsageMiddleware.account', () => undefined);

// Every option, typed against UsageOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<UsageOptions>({
  prices: true,
  currency: true,
  now: true,
  key: true,
});

/**
 * Tokens, cost and time per reply, per session and per model. See the module documentation.
 */
export class UsageMiddleware implements Middleware {
  readonly key: string;
  /** The price table (shared with a `CostLimitMiddleware` given this middleware as `prices`). */
  readonly prices: PriceTable;
  /** The currency of the prices. */
  readonly currency: string;
  private readonly now: () => number;

  constructor(options: UsageOptions = {}) {
    checkOptionKeys('UsageMiddleware', options, OPTION_KEYS);
    this.key = options.key ?? 'UsageMiddleware';
    this.prices = options.prices ?? {};
    checkPrices('UsageMiddleware', this.prices);
    this.currency = options.currency ?? 'USD';
    this.now = options.now ?? (() => performance.now());
  }

  /** The usage of the agent's last finished reply (read from its state), if any. */
  lastReply(agent: Agent): ReplyUsage | undefined {
    return (agent.saveState().middlewareState[this.key] as Persisted | undefined)?.lastReply;
  }

  /** The session's running totals (read from the agent's state), if any reply finished. */
  session(agent: Agent): SessionUsage | undefined {
    return (agent.saveState().middlewareState[this.key] as Persisted | undefined)?.session;
  }

  /** The cost of one call's usage of `model` at the table's price (0 without a price). */
  cost(model: string, usage: Usage): number {
    const price = priceOf(this.prices, model);
    return price ? costOf(usage, price) : 0;
  }

  onAgent(_agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() => {
      const account = new ReplyAccount(this.now());
      ctx.set(ACCOUNT, account);
      return next(input).pipe(
        concatMap((e) =>
          e.type === 'REPLY_END' && e.source === ctx.agentName ? of(this.finish(ctx, account), e) : of(e),
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
    return this.timed(ctx, next(input), (account, ms) => (account.reasoningMs += ms));
  }

  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    return defer(() => {
      const startedAt = this.now();
      const account = ctx.get(ACCOUNT);
      let counted = false;
      return next(input).pipe(
        concatMap((e) => {
          if (e.type !== 'MODEL_CALL_END' || e.source !== ctx.agentName || !account) return of(e);
          const durationMs = this.now() - startedAt;
          counted = true;
          account.modelMs += durationMs;
          const cost = this.cost(e.model, e.usage);
          if (!priceOf(this.prices, e.model)) account.unpriced.add(e.model);
          addUsage(account.totals, e.usage, cost);
          const perModel = account.perModel.get(e.model) ?? { ...zero(), ms: 0 };
          addUsage(perModel, e.usage, cost);
          perModel.ms += durationMs;
          account.perModel.set(e.model, perModel);
          const value: ModelCallUsage = { model: e.model, usage: e.usage, cost, durationMs };
          return of(e, ctx.event('CUSTOM', { name: 'usage.model_call', value }));
        }),
        // A call cut off before its end still took time.
        finalize(() => {
          if (!counted && account) account.modelMs += this.now() - startedAt;
        }),
      );
    });
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    return this.timed(ctx, next(input), (account, ms) => {
      account.actingMs += ms;
      account.toolCalls += 1;
      const tool = account.perTool.get(input.tool.name) ?? { calls: 0, ms: 0 };
      account.perTool.set(input.tool.name, { calls: tool.calls + 1, ms: tool.ms + ms });
    });
  }

  /** Runs `source` and books its wall time (from subscribe to end, error or unsubscribe). */
  private timed(
    ctx: RuntimeContext,
    source: Observable<AgentEvent>,
    book: (account: ReplyAccount, ms: number) => void,
  ): Observable<AgentEvent> {
    return defer(() => {
      const startedAt = this.now();
      return source.pipe(
        finalize(() => {
          const account = ctx.get(ACCOUNT);
          if (account) book(account, this.now() - startedAt);
        }),
      );
    });
  }

  /** Closes the reply's account: the `usage.reply` event, and the totals in the agent's state. */
  private finish(ctx: RuntimeContext, account: ReplyAccount): AgentEvent {
    const report: ReplyUsage = {
      replyId: ctx.replyId,
      sessionId: ctx.sessionId,
      ...(ctx.userId !== undefined ? { userId: ctx.userId } : {}),
      agentName: ctx.agentName,
      currency: this.currency,
      ...totalsOf(account.totals),
      durationMs: this.now() - account.startedAt,
      timing: { reasoningMs: account.reasoningMs, modelMs: account.modelMs, actingMs: account.actingMs },
      toolCalls: account.toolCalls,
      perModel: Object.fromEntries(account.perModel),
      perTool: Object.fromEntries(account.perTool),
      unpriced: [...account.unpriced],
    };
    const slot = ctx.state<Persisted>(this.key);
    const before = slot.get()?.session;
    const perModel: Record<string, UsageTotals> = { ...before?.perModel };
    for (const [model, t] of account.perModel) perModel[model] = addTotals(perModel[model] ?? zero(), totalsOf(t));
    const session: SessionUsage = {
      ...addTotals(before ?? zero(), totalsOf(account.totals)),
      replies: (before?.replies ?? 0) + 1,
      ...((ctx.userId ?? before?.userId) !== undefined ? { userId: ctx.userId ?? before?.userId } : {}),
      currency: this.currency,
      perModel,
      unpriced: [...new Set([...(before?.unpriced ?? []), ...account.unpriced])],
    };
    slot.set({ session, lastReply: report });
    return ctx.event('CUSTOM', { name: 'usage.reply', value: report });
  }
}
