/**
 * Type tests of the cost limit, the guardrails and the Redis entry: options accept what the docs
 * promise and reject what they do not; a check may answer a value, a Promise or an Observable.
 * Never run: `tsc -b` checks them.
 */
import { Agent, type ChatModel, type Middleware } from '@rxscope/core';
import { of } from 'rxjs';
import {
  CostLimitMiddleware,
  type CostLimitStatus,
  type CostStore,
  denylist,
  type GuardrailCheck,
  GuardrailMiddleware,
  type GuardrailTripped,
  maxLength,
  moderation,
  promptInjection,
  UsageMiddleware,
} from '../index.js';
import { RedisCostStore } from '../redis/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
declare const model: ChatModel;
declare const redis: ConstructorParameters<typeof RedisCostStore>[0]['redis'];

const prices = { 'gpt-4o-mini*': { input: 0.15, output: 0.6 } };
const limits: Middleware = new CostLimitMiddleware({ prices, perReply: 1, onLimit: 'ask' });
new CostLimitMiddleware({ prices: new UsageMiddleware({ prices }), perUser: { amount: 5, per: 'month' } });
const store: CostStore = new RedisCostStore({ redis });
new CostLimitMiddleware({ prices, perUser: { amount: 5, per: 'day' }, store, userOf: (ctx) => ctx.sessionId });
// @ts-expect-error a period is a day or a month
new CostLimitMiddleware({ prices, perUser: { amount: 5, per: 'week' } });
// @ts-expect-error prices are required
new CostLimitMiddleware({ perReply: 1 });
// @ts-expect-error onLimit is finish, ask or end
new CostLimitMiddleware({ prices, perReply: 1, onLimit: 'stop' });
type _scope = Expect<Equal<CostLimitStatus['scope'], 'reply' | 'session' | 'user'>>;

const value: GuardrailCheck = { name: 'v', check: () => ({ tripped: false }) };
const promise: GuardrailCheck = { name: 'p', check: () => Promise.resolve({ tripped: true, reason: 'x' }) };
const observable: GuardrailCheck = { name: 'o', check: (_text, { signal }) => of({ tripped: signal.aborted }) };
const guard: Middleware = new GuardrailMiddleware({
  input: [value, promise, moderation(), promptInjection({ model })],
  output: observable,
  toolInput: denylist(['x', /y/]),
  toolOutput: maxLength(10),
  mode: 'blocking',
});
// @ts-expect-error a check needs a name
new GuardrailMiddleware({ input: { check: () => ({ tripped: false }) } });
// @ts-expect-error a verdict's tripped is a boolean
new GuardrailMiddleware({ input: { name: 'n', check: () => ({ tripped: 'yes' }) } });
type _stage = Expect<Equal<GuardrailTripped['stage'], 'input' | 'output' | 'toolInput' | 'toolOutput'>>;

new Agent({ model, middlewares: [limits, guard] });
