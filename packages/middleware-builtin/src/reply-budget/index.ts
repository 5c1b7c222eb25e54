/**
 * `ReplyBudgetMiddleware`: a weighted token budget per reply. Every `MODEL_CALL_END` of the
 * agent adds `inputTokens × inputWeight + outputTokens × outputWeight` (cached input tokens at
 * `cacheReadWeight`) to the reply's spending. Once the budget is spent, the **next** reasoning
 * step gets a wrap-up hint (a `HINT_BLOCK` event, and the hint in what the model sees) and
 * `toolChoice: 'none'`, so the agent answers with what it has instead of stopping mid-thought.
 * With `warnAt`, crossing that fraction of the budget emits a `reply_budget.warning` event and
 * gives the model one softer hint.
 *
 * Events a UI can show (`CUSTOM`, value `{spent, remaining, tokenBudget, fraction}`):
 * `reply_budget.usage` after every model call, `reply_budget.warning` and
 * `reply_budget.exhausted` once each, right after the call that crossed the line.
 *
 * The budget is a steering budget, not a hard cap: the call that crosses it completes, and the
 * wrap-up call is made after it. Combine with `ModelCallLimitMiddleware` for a hard cap.
 *
 * @example
 * ```ts
 * const agent = new Agent({
 *   model,
 *   tools,
 *   // output tokens cost 4× input tokens; warn at 80 %
 *   middlewares: [new ReplyBudgetMiddleware({ tokenBudget: 20_000, inputWeight: 1, outputWeight: 4, warnAt: 0.8 })],
 * });
 * agent.reply('Research this').pipe(filter(isEvent('CUSTOM'))).subscribe((e) => e.name === 'reply_budget.usage' && showMeter(e.value));
 * ```
 *
 * @module
 */
import { checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import { defer, type Observable } from 'rxjs';
import type { AgentHandle, AgentEvent, Middleware, Next, ReasoningInput, RuntimeContext, Usage } from '@rxscope/core';
import { emitAfter } from '../internal/emit-after.js';
import { ScopedState } from '../internal/scoped-state.js';

/** Where a reply stands against its budget (the value of the `reply_budget.*` events). */
export interface ReplyBudgetStatus {
  /** Weighted tokens spent so far in this reply. */
  readonly spent: number;
  /** `tokenBudget - spent`, never below 0. */
  readonly remaining: number;
  readonly tokenBudget: number;
  /** `spent / tokenBudget`. */
  readonly fraction: number;
}

/** Options of {@link ReplyBudgetMiddleware}. */
export interface ReplyBudgetOptions {
  /** Weighted tokens one reply may spend before it is steered to wrap up. Required. */
  readonly tokenBudget: number;
  /** Weight of an input token. Default 1. */
  readonly inputWeight?: number;
  /** Weight of an output token (reasoning tokens are part of them). Default 1. */
  readonly outputWeight?: number;
  /** Weight of a cached input token (`cacheReadTokens`, a part of `inputTokens`). Default: `inputWeight`. */
  readonly cacheReadWeight?: number;
  /** Fraction of the budget (between 0 and 1) that triggers the early warning. Default: no warning. */
  readonly warnAt?: number;
  /** The soft hint given once when `warnAt` is crossed; `false` for the event only. Default: a short notice. */
  readonly warningHint?: string | false | ((status: ReplyBudgetStatus) => string);
  /** The hint of the wrap-up step. Default: "answer now with what you have". */
  readonly wrapUpHint?: string | ((status: ReplyBudgetStatus) => string);
  /** State key (per-reply spending is persisted under it while a reply is suspended). Default `'ReplyBudgetMiddleware'`. */
  readonly key?: string;
}

interface Spending {
  readonly spent: number;
  readonly warned: boolean;
  readonly exhausted: boolean;
}

const defaultWrapUp = (s: ReplyBudgetStatus) =>
  `The token budget of this reply is used up (${Math.round(s.spent)} of ${s.tokenBudget}). ` +
  'Do not call any more tools: answer now with what you have, and say briefly what is left undone, if anything.';

const defaultWarning = (s: ReplyBudgetStatus) =>
  `${Math.round(s.fraction * 100)}% of this reply's token budget is used (${Math.round(s.spent)} of ${s.tokenBudget}). ` +
  'Plan to finish soon and avoid tool calls you do not need.';

// Every option, typed against ReplyBudgetOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<ReplyBudgetOptions>({
  tokenBudget: true,
  inputWeight: true,
  outputWeight: true,
  cacheReadWeight: true,
  warnAt: true,
  warningHint: true,
  wrapUpHint: true,
  key: true,
});

/**
 * A weighted token budget per reply that steers the agent to answer when it is spent.
 * See the module documentation.
 */
export class ReplyBudgetMiddleware implements Middleware {
  readonly key: string;
  private readonly budget: number;
  private readonly inputWeight: number;
  private readonly outputWeight: number;
  private readonly cacheReadWeight: number;
  private readonly warnAt: number | undefined;
  private readonly warningHint: ((s: ReplyBudgetStatus) => string) | undefined;
  private readonly wrapUpHint: (s: ReplyBudgetStatus) => string;
  private readonly state: ScopedState<Spending, undefined>;

  constructor(options: ReplyBudgetOptions) {
    checkOptionKeys('ReplyBudgetMiddleware', options, OPTION_KEYS);
    const { tokenBudget, warnAt } = options;
    if (!(tokenBudget > 0))
      throw new OptionsError(
        'invalid_option',
        'ReplyBudgetMiddleware.tokenBudget',
        `ReplyBudgetMiddleware: tokenBudget must be a number > 0, got ${tokenBudget}.`,
      );
    if (warnAt !== undefined && !(warnAt > 0 && warnAt < 1)) {
      throw new OptionsError(
        'invalid_option',
        'ReplyBudgetMiddleware.warnAt',
        `ReplyBudgetMiddleware: warnAt must be between 0 and 1 (exclusive), got ${warnAt}.`,
      );
    }
    this.key = options.key ?? 'ReplyBudgetMiddleware';
    this.budget = tokenBudget;
    this.inputWeight = options.inputWeight ?? 1;
    this.outputWeight = options.outputWeight ?? 1;
    this.cacheReadWeight = options.cacheReadWeight ?? this.inputWeight;
    this.warnAt = warnAt;
    const warning = options.warningHint;
    this.warningHint =
      warning === false ? undefined : typeof warning === 'string' ? () => warning : (warning ?? defaultWarning);
    const wrapUp = options.wrapUpHint;
    this.wrapUpHint = typeof wrapUp === 'string' ? () => wrapUp : (wrapUp ?? defaultWrapUp);
    this.state = new ScopedState<Spending, undefined>(
      this.key,
      () => ({ spent: 0, warned: false, exhausted: false }),
      () => undefined,
    );
  }

  /** The weighted cost of one model call's usage. */
  cost(usage: Usage): number {
    const cached = Math.min(usage.cacheReadTokens ?? 0, usage.inputTokens);
    return (
      (usage.inputTokens - cached) * this.inputWeight +
      cached * this.cacheReadWeight +
      usage.outputTokens * this.outputWeight
    );
  }

  onReasoning(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    const spending = this.state.reply(ctx);
    const status = this.status(spending.spent);
    const wanted: { id: string; text: string }[] = [];
    let steered = input;
    if (spending.exhausted) {
      steered = { ...input, toolChoice: 'none' };
      wanted.push({ id: 'wrap-up', text: this.wrapUpHint(status) });
    } else if (spending.warned && this.warningHint) {
      wanted.push({ id: 'warning', text: this.warningHint(status) });
    }
    return defer(() => {
      for (const w of wanted) ctx.conversation.addHint(w.text, { id: `${this.key}:${w.id}`, source: this.key });
      return next(steered);
    }).pipe(
      emitAfter((e) =>
        e.type === 'MODEL_CALL_END' && e.source === ctx.agentName ? this.spend(ctx, e.usage) : undefined,
      ),
    );
  }

  /** Adds one call's usage to the reply's spending; returns the events to report it. */
  private spend(ctx: RuntimeContext, usage: Usage): AgentEvent[] {
    const before = this.state.reply(ctx);
    const spent = before.spent + this.cost(usage);
    const status = this.status(spent);
    const events: AgentEvent[] = [ctx.event('CUSTOM', { name: 'reply_budget.usage', value: status })];
    const exhausted = spent >= this.budget;
    const warned = this.warnAt !== undefined && spent >= this.warnAt * this.budget;
    if (warned && !before.warned && !exhausted)
      events.push(ctx.event('CUSTOM', { name: 'reply_budget.warning', value: status }));
    if (exhausted && !before.exhausted)
      events.push(ctx.event('CUSTOM', { name: 'reply_budget.exhausted', value: status }));
    this.state.setReply(ctx, {
      ...before,
      spent,
      warned: before.warned || warned,
      exhausted: before.exhausted || exhausted,
    });
    return events;
  }

  private status(spent: number): ReplyBudgetStatus {
    return {
      spent,
      remaining: Math.max(0, this.budget - spent),
      tokenBudget: this.budget,
      fraction: spent / this.budget,
    };
  }
}
