import {
  Agent,
  type AgentEvent,
  isEvent,
  type RequireUserConfirmEvent,
  RxscopeError,
  textOfMsg,
  toolResultsOf,
} from '@rxscope/core';
import { ScriptedChatModel, type ScriptedTurn } from '@rxscope/core/testing';
import { add, customValues, run } from '../__tests__/helpers.js';
import { UsageMiddleware } from '../usage/index.js';
import { CostLimitMiddleware, type CostLimitOptions } from './index.js';
import { InMemoryCostStore } from './cost-store.js';

// 1,000 input tokens at 100 per million: every call costs 0.1.
const prices = { 'scripted-model': { input: 100, output: 0 } };
const usage = { inputTokens: 1000, outputTokens: 0 };

/** Calls `add` until tools are switched off, then answers. */
const toolHungry = () =>
  new ScriptedChatModel((request): ScriptedTurn =>
    request.toolChoice === 'none'
      ? { text: 'Wrapped up.', usage }
      : { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }], usage },
  );

const limited = (options: Partial<CostLimitOptions>, model = toolHungry()) => {
  const limits = new CostLimitMiddleware({ prices, ...options });
  return { model, limits, agent: new Agent({ model, tools: [add], middlewares: [limits] }) };
};

const limitEvents = (events: readonly AgentEvent[]) => customValues(events, 'cost_limit');

describe('CostLimitMiddleware', () => {
  it("'end' stops the reply once the reply's limit is spent: stopped, code cost_limit, the conversation kept", async () => {
    const { agent, model } = limited({ perReply: 0.25, onLimit: 'end', warnAt: 0.5 });
    const { events, end } = await run(agent, 'go');

    // 0.1 + 0.1 + 0.1 = 0.3 >= 0.25: the 4th step is never sent.
    expect(model.requests).toHaveLength(3);
    expect(end).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'cost_limit' } });
    expect(end.stopReason!.message).toBe('Cost limit reached: 0.3 of 0.25 USD per reply spent.');
    expect(limitEvents(events)).toEqual([
      { action: 'end', scope: 'reply', limit: 0.25, spent: expect.closeTo(0.3), currency: 'USD' },
    ]);
    expect(customValues(events, 'cost_limit.warning')).toEqual([
      { scope: 'reply', limit: 0.25, spent: expect.closeTo(0.2), currency: 'USD' },
    ]);
    expect(agent.context.flatMap(toolResultsOf).filter((r) => r.status === 'success')).toHaveLength(3);
  });

  it("'finish' (default) gives one wrap-up turn without tools, so the reply ends with an answer", async () => {
    const { agent, model } = limited({ perReply: 0.2 });
    const { events, end } = await run(agent, 'go');

    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'none']);
    expect(end.finishReason).toBe('completed');
    expect(textOfMsg(agent.context.at(-1)!)).toBe('Wrapped up.');
    expect(events.find(isEvent('HINT_BLOCK'))!.text).toContain(
      'The cost limit of this reply is reached (0.2 of 0.2 USD)',
    );
    expect(limitEvents(events).map((v) => (v as { action: string }).action)).toEqual(['finish']);
  });

  it('counts the session across replies and prices from a shared UsageMiddleware table', async () => {
    const table = new UsageMiddleware({ prices, currency: 'EUR' });
    const model = new ScriptedChatModel(() => ({ text: 'ok', usage }));
    const limits = new CostLimitMiddleware({ prices: table, perSession: 0.2, onLimit: 'end' });
    const agent = new Agent({ model, middlewares: [table, limits] });
    expect((await run(agent, '1')).end.finishReason).toBe('completed');
    expect((await run(agent, '2')).end.finishReason).toBe('completed');
    const third = await run(agent, '3');
    expect(third.end).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'cost_limit' } });
    expect(limitEvents(third.events)).toEqual([
      { action: 'end', scope: 'session', limit: 0.2, spent: expect.closeTo(0.2), currency: 'EUR' },
    ]);
    expect(model.requests).toHaveLength(2);

    // The session's spending is kept with the agent's state.
    const restored = new Agent({ model, middlewares: [table, limits], state: agent.saveState() });
    expect((await run(restored, '4')).end.finishReason).toBe('stopped');
  });

  it('adds up a user across agents for the day, and starts again the next day', async () => {
    let now = Date.UTC(2026, 11, 7, 23, 0);
    const store = new InMemoryCostStore(() => now);
    const model = new ScriptedChatModel(() => ({ text: 'ok', usage }));
    const limits = new CostLimitMiddleware({
      prices,
      perUser: { amount: 0.2, per: 'day' },
      onLimit: 'end',
      store,
      now: () => now,
      userOf: () => 'ada',
    });
    const agents = [0, 1, 2].map(() => new Agent({ model, middlewares: [limits] }));
    expect((await run(agents[0]!)).end.finishReason).toBe('completed');
    expect((await run(agents[1]!)).end.finishReason).toBe('completed');
    const third = await run(agents[2]!);
    expect(limitEvents(third.events)).toEqual([
      { action: 'end', scope: 'user', limit: 0.2, spent: expect.closeTo(0.2), currency: 'USD' },
    ]);
    expect(await limits.userSpent('ada')).toBeCloseTo(0.2);

    now = Date.UTC(2026, 11, 8, 0, 1); // past midnight UTC
    expect(await limits.userSpent('ada')).toBe(0);
    expect((await run(agents[2]!)).end.finishReason).toBe('completed');
  });

  describe("'ask'", () => {
    const setup = () => limited({ perReply: 0.2, onLimit: 'ask' });

    it('suspends for a person; confirmed in a new agent from the saved state, the reply goes on with the raised limit', async () => {
      const { agent, model, limits } = setup();
      const first = await run(agent, 'go');
      expect(first.end.finishReason).toBe('awaiting_confirmation');
      expect(model.requests).toHaveLength(2);
      // The approval call is the middleware's: never offered to the model.
      expect(model.requests.every((r) => r.tools.every((t) => t.name !== 'raise_cost_limit'))).toBe(true);
      const ask = first.events.find(isEvent('REQUIRE_USER_CONFIRM')) as RequireUserConfirmEvent;
      expect(ask.toolCalls).toEqual([
        {
          id: expect.any(String),
          name: 'raise_cost_limit',
          input: { scope: 'reply', limit: 0.2, spent: 0.2, currency: 'USD', raiseBy: 0.2 },
          reason: expect.anything(),
        },
      ]);

      // Another agent (as in another process), restored from the saved state, gets the answer.
      const again = new Agent({
        model,
        tools: [add],
        middlewares: [limits],
        state: JSON.parse(JSON.stringify(agent.saveState())),
      });
      const callId = ask.toolCalls[0]!.id;
      const second = await run(again, {
        type: 'USER_CONFIRM_RESULT',
        results: [
          { toolCallId: callId, confirmed: true, input: { ...(ask.toolCalls[0]!.input as object), raiseBy: 0.1 } },
        ],
      });
      // 0.1 more: one more call (0.3 spent), then the limit asks again.
      expect(model.requests).toHaveLength(3);
      expect(second.end.finishReason).toBe('awaiting_confirmation');
      expect(second.end.replyId).toBe(first.end.replyId);
      expect(second.events.filter(isEvent('TOOL_RESULT_END')).find((e) => e.toolCallId === callId)?.status).toBe(
        'success',
      );
      // The model sees the person's answer.
      expect(JSON.stringify(model.requests[2]!.messages)).toContain(
        'A person allowed this reply to spend 0.1 USD more.',
      );
    });

    it('rejected, the reply ends stopped with code cost_limit', async () => {
      const { agent, model } = setup();
      const first = await run(agent, 'go');
      const ask = first.events.find(isEvent('REQUIRE_USER_CONFIRM'))!;
      const second = await run(agent, {
        type: 'USER_CONFIRM_RESULT',
        results: [{ toolCallId: ask.toolCalls[0]!.id, confirmed: false }],
      });
      expect(model.requests).toHaveLength(2);
      expect(second.end).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'cost_limit' } });
    });
  });

  describe('bad input', () => {
    const refusal = (options: unknown) => {
      try {
        new CostLimitMiddleware(options as CostLimitOptions);
      } catch (e) {
        return e as RxscopeError;
      }
      throw new Error('not refused');
    };

    it.each([
      [{ prices, perReply: -1 }, 'invalid_option', 'perReply must be a finite amount >= 0, got -1'],
      [{ prices, perSession: Infinity }, 'invalid_option', 'perSession must be a finite amount >= 0, got Infinity'],
      [{ prices, perUser: { amount: NaN, per: 'day' } }, 'invalid_option', 'perUser.amount must be a finite amount'],
      [{ prices, perUser: { amount: 1, per: 'week' } }, 'invalid_option', "perUser.per must be 'day' or 'month'"],
      [
        { prices, perReplay: 1 },
        'unknown_option',
        'unknown option "perReplay" of CostLimitMiddleware; did you mean "perReply"?',
      ],
      [{ prices }, 'invalid_option', 'set perReply, perSession or perUser'],
      [{ perReply: 1 }, 'invalid_option', 'prices is required'],
      [{ prices: { m: { input: -1, output: 0 } }, perReply: 1 }, undefined, 'prices["m"].input must be a number >= 0'],
      [{ prices, perReply: 1, currency: 'DOLLARS' }, 'unknown_currency', 'currency must be an ISO 4217 code'],
      [{ prices, perReply: 1, warnAt: 1.5 }, 'invalid_option', 'warnAt must be between 0 and 1'],
    ])('refuses %j', (options, code, message) => {
      const e = refusal(options);
      expect(e.message).toContain(message);
      if (code) expect(e).toMatchObject({ code });
    });

    it('ends a reply whose user id is not a non-empty string (invalid_user)', async () => {
      const model = new ScriptedChatModel(() => ({ text: 'ok', usage }));
      const limits = new CostLimitMiddleware({ prices, perUser: { amount: 1, per: 'month' }, userOf: () => '' });
      const { end } = await run(new Agent({ model, middlewares: [limits] }));
      expect(end).toMatchObject({ finishReason: 'error', error: { code: 'invalid_user' } });
      expect(model.requests).toHaveLength(0);
    });

    it("refuses a currency that is not the shared price table's", () => {
      const table = new UsageMiddleware({ prices, currency: 'EUR' });
      expect(refusal({ prices: table, perReply: 1, currency: 'USD' })).toMatchObject({
        code: 'unknown_currency',
        message: expect.stringContaining('currency USD is not the price table'),
      });
    });

    it('refuses a call of a model missing from the table before it is sent, unless a fallback price is set', async () => {
      const model = new ScriptedChatModel(() => ({ text: 'ok', usage }), { modelName: 'gpt-unknown' });
      const refused = await run(new Agent({ model, middlewares: [new CostLimitMiddleware({ prices, perReply: 1 })] }));
      expect(model.requests).toHaveLength(0);
      expect(refused.end).toMatchObject({ finishReason: 'error', error: { code: 'unpriced_model' } });
      expect(refused.end.error!.message).toContain('"gpt-unknown" has no price');

      const limits = new CostLimitMiddleware({
        prices,
        perReply: 0.15,
        fallbackPrice: { input: 100, output: 0 },
        onLimit: 'end',
      });
      const agent = new Agent({ model, middlewares: [limits] });
      expect((await run(agent)).end.finishReason).toBe('completed');
      expect((await run(agent)).end.finishReason).toBe('completed'); // per reply: a fresh 0.15
    });
  });
});
