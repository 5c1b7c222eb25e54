/**
 * Type tests of @rxscope/middleware-builtin's public API: every middleware is a core `Middleware`,
 * options accept what the docs promise and reject what they do not, event values are typed. Never
 * run: `tsc -b` checks them (through tsconfig.spec.json); an `@ts-expect-error` whose line
 * compiles fails the typecheck.
 */
import { Agent, type ChatModel, type Middleware, ModelError } from '@rxscope/core';
import { VirtualTimeScheduler } from 'rxjs';
import {
  clampArgument,
  detectPii,
  DynamicPromptMiddleware,
  FallbackMiddleware,
  type FallbackEventValue,
  LimitExceededError,
  ModelCallLimitMiddleware,
  PiiRedactionMiddleware,
  type PiiMatch,
  type PiiStrategy,
  type PiiType,
  RateLimitMiddleware,
  type RateLimitEventValue,
  ReplyBudgetMiddleware,
  type ReplyBudgetStatus,
  RetryMiddleware,
  type RetryEventValue,
  type RetryOptions,
  ReplyTimeoutError,
  TimeoutMiddleware,
  ToolCallLimitMiddleware,
  ToolGuardMiddleware,
  type ToolGuardRule,
  ToolTimeoutError,
  TracingMiddleware,
} from '../index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
declare const model: ChatModel;

// ── Every built-in is a Middleware an Agent takes ─────────────────────────────────────────────
const all: Middleware[] = [
  new TracingMiddleware(),
  new ReplyBudgetMiddleware({ tokenBudget: 10_000, warnAt: 0.8 }),
  new ModelCallLimitMiddleware({ perReply: 5 }),
  new ToolCallLimitMiddleware({ perReply: 20, perTool: { search: { perReply: 3 } } }),
  new DynamicPromptMiddleware({ sections: [] }),
  new ToolGuardMiddleware({ deny: ['rm_*', { tool: 'read', argument: 'path', pattern: '/etc/**' }] }),
  new RetryMiddleware({ maxRetries: 2, scheduler: new VirtualTimeScheduler() }),
  new FallbackMiddleware({ models: [model] }),
  new RateLimitMiddleware({ maxConcurrent: 2, minIntervalMs: 100 }),
  new TimeoutMiddleware({ modelCallMs: 30_000, toolCallMs: 10_000 }),
  new PiiRedactionMiddleware({ types: { email: 'hash', secret: 'block' }, output: { toolArguments: true } }),
];
new Agent({ model, middlewares: all });

// ── Options reject what is not documented ─────────────────────────────────────────────────────
// @ts-expect-error the budget is required
new ReplyBudgetMiddleware({});
// @ts-expect-error maxRetries is a number
new RetryMiddleware({ maxRetries: '3' });
// @ts-expect-error there is no maxAttempts option (it is maxRetries)
new RetryMiddleware({ maxAttempts: 3 });
// @ts-expect-error limits are in ms, as numbers
new TimeoutMiddleware({ replyMs: '1m' });
// @ts-expect-error fallback models are ChatModels, not names
new FallbackMiddleware({ models: ['gpt-4o'] });
// @ts-expect-error 'ssn' is not a PII type
new PiiRedactionMiddleware({ types: { ssn: 'mask' } });
// @ts-expect-error 'drop' is not a strategy
new PiiRedactionMiddleware({ types: { email: 'drop' } });

// ── Callbacks get typed arguments ─────────────────────────────────────────────────────────────
const retryOptions: RetryOptions = {
  shouldRetry: (error, attempt) => {
    type _attempt = Expect<Equal<typeof attempt, number>>;
    return error instanceof ModelError && error.retryable && attempt < 3;
  },
};
new RetryMiddleware(retryOptions);
new ReplyBudgetMiddleware({
  tokenBudget: 1000,
  wrapUpHint: (s) => {
    type _status = Expect<Equal<typeof s, ReplyBudgetStatus>>;
    return `spent ${s.spent} of ${s.tokenBudget}`;
  },
});
const custom: PiiStrategy = (match) => {
  type _match = Expect<Equal<typeof match, PiiMatch>>;
  return `[${match.type}]`;
};
new PiiRedactionMiddleware({ types: { phone: custom } });
new ToolGuardMiddleware({ rewrite: { search: clampArgument('limit', { min: 1, max: 50 }) } });
const rule: ToolGuardRule = { tool: 'shell', reason: 'no shell' };
void rule;

// ── Event values and errors ───────────────────────────────────────────────────────────────────
declare const _retryEvent: RetryEventValue;
type _retryAttempt = Expect<Equal<typeof _retryEvent.attempt, number>>;
type _retryAfter = Expect<Equal<typeof _retryEvent.retryAfterMs, number | undefined>>;
declare const _fallbackEvent: FallbackEventValue;
type _fallbackFrom = Expect<Equal<typeof _fallbackEvent.from, string>>;
declare const _rateLimitEvent: RateLimitEventValue;
type _waited = Expect<Equal<typeof _rateLimitEvent.waitedMs, number>>;
type _piiTypes = Expect<Equal<PiiType, 'email' | 'phone' | 'card' | 'iban' | 'secret'>>;
const matches: PiiMatch[] = detectPii('mail me at a@b.co');
void matches;
const errors: Error[] = [new ReplyTimeoutError(1000)];
void errors;
declare const limit: LimitExceededError;
const asError: Error = limit;
void asError;
declare const toolTimeout: ToolTimeoutError;
const toolTimeoutAsError: Error = toolTimeout;
void toolTimeoutAsError;
