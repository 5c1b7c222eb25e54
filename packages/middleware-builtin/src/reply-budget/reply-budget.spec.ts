import { z } from 'zod';
import { Agent, type AgentEvent, defineTool, type ModelRequest, textOfMsg } from '@rxscope/core';
import { ScriptedChatModel, type ScriptedTurn } from '@rxscope/core/testing';
import { add, customValues, hints, run } from '../__tests__/helpers.js';
import { ReplyBudgetMiddleware, type ReplyBudgetStatus } from './index.js';

const custom = (events: readonly AgentEvent[], name: string) => customValues<ReplyBudgetStatus>(events, name);

/** The text of the hints the model saw in a request. */
const hintsSeen = (request: ModelRequest) =>
  request.messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'hint' ? [b.text] : [])));

/** Calls `add` until told not to use tools; every call costs 100 input + 50 output tokens. */
function toolHungryModel() {
  const usage = { inputTokens: 100, outputTokens: 50 };
  return new ScriptedChatModel((request): ScriptedTurn =>
    request.toolChoice === 'none'
      ? { text: 'Here is what I found.', usage }
      : { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }], usage },
  );
}

describe('ReplyBudgetMiddleware', () => {
  it('makes the step after the budget is spent answer: wrap-up hint, toolChoice none, completed reply', async () => {
    const model = toolHungryModel();
    // each call: 100 × 1 + 50 × 2 = 200; the second call spends the budget
    const agent = new Agent({
      model,
      tools: [add],
      middlewares: [new ReplyBudgetMiddleware({ tokenBudget: 400, inputWeight: 1, outputWeight: 2 })],
    });
    const { events, end } = await run(agent, 'go');

    expect(end.finishReason).toBe('completed');
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'none']);
    expect(hints(events)).toEqual([expect.stringContaining('token budget of this reply is used up (400 of 400)')]);
    // the model saw the hint in the wrap-up call, at the end of the reply so far
    const last = model.requests[2]!;
    expect(hintsSeen(last)).toEqual(hints(events));
    expect(last.messages.at(-1)!.content.at(-1)).toEqual({
      type: 'hint',
      text: hints(events)[0],
      id: 'ReplyBudgetMiddleware:wrap-up',
      source: 'ReplyBudgetMiddleware',
    });
    expect(hintsSeen(model.requests[1]!)).toEqual([]);
    // the hint is emitted before the wrap-up model call starts
    const hintAt = events.findIndex((e) => e.type === 'HINT_BLOCK');
    const callStarts = events.flatMap((e, i) => (e.type === 'MODEL_CALL_START' ? [i] : []));
    expect(hintAt).toBeGreaterThan(callStarts[1]!);
    expect(hintAt).toBeLessThan(callStarts[2]!);
    // the stored reply holds the hint where the model saw it, and ends with the answer
    const reply = agent.context.at(-1)!;
    expect(reply.content.map((b) => b.type)).toEqual([
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'hint',
      'text',
    ]);
    expect(textOfMsg(reply)).toBe('Here is what I found.');
  });

  it('reports spending after every model call, and the exhaustion once', async () => {
    const agent = new Agent({
      model: toolHungryModel(),
      tools: [add],
      middlewares: [new ReplyBudgetMiddleware({ tokenBudget: 400, inputWeight: 1, outputWeight: 2 })],
    });
    const { events } = await run(agent, 'go');

    expect(custom(events, 'reply_budget.usage').map((v) => [v.spent, v.remaining])).toEqual([
      [200, 200],
      [400, 0],
      [600, 0],
    ]);
    expect(custom(events, 'reply_budget.exhausted')).toEqual([
      { spent: 400, remaining: 0, tokenBudget: 400, fraction: 1 },
    ]);
    // each usage event comes right after its MODEL_CALL_END
    events.forEach((e, i) => {
      if (e.type === 'MODEL_CALL_END')
        expect(events[i + 1]).toMatchObject({ type: 'CUSTOM', name: 'reply_budget.usage' });
    });
  });

  it('changes nothing while the reply stays under budget', async () => {
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: '2' }]);
    const agent = new Agent({
      model,
      tools: [add],
      middlewares: [new ReplyBudgetMiddleware({ tokenBudget: 10_000, warnAt: 0.9 })],
    });
    const { events, end } = await run(agent, 'go');

    expect(end.finishReason).toBe('completed');
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto']);
    expect(hints(events)).toEqual([]);
    expect(custom(events, 'reply_budget.warning')).toEqual([]);
    expect(custom(events, 'reply_budget.usage')).toHaveLength(2);
  });

  it('warns once at warnAt: a CUSTOM event and one softer hint, tools still allowed', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }], usage: { inputTokens: 100, outputTokens: 0 } },
      { toolCalls: [{ name: 'add', input: { a: 2, b: 2 } }], usage: { inputTokens: 100, outputTokens: 0 } },
      { toolCalls: [{ name: 'add', input: { a: 3, b: 3 } }], usage: { inputTokens: 50, outputTokens: 0 } },
      { text: 'done', usage: { inputTokens: 10, outputTokens: 0 } },
    ]);
    const agent = new Agent({
      model,
      tools: [add],
      middlewares: [new ReplyBudgetMiddleware({ tokenBudget: 1000, warnAt: 0.15 })],
    });
    const { events, end } = await run(agent, 'go');

    expect(end.finishReason).toBe('completed');
    expect(custom(events, 'reply_budget.warning')).toEqual([
      { spent: 200, remaining: 800, tokenBudget: 1000, fraction: 0.2 },
    ]);
    expect(hints(events)).toEqual([
      "20% of this reply's token budget is used (200 of 1000). Plan to finish soon and avoid tool calls you do not need.",
    ]);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'auto', 'auto']);
    expect(model.requests.map((r) => hintsSeen(r).length)).toEqual([0, 0, 1, 1]); // given once, then part of the reply
  });

  it('can warn with the event only, and takes custom hint texts', async () => {
    const model = toolHungryModel();
    const agent = new Agent({
      model,
      tools: [add],
      middlewares: [
        new ReplyBudgetMiddleware({
          tokenBudget: 500,
          warnAt: 0.5,
          warningHint: false,
          wrapUpHint: (s) => `Budget gone (${s.spent}). Answer.`,
        }),
      ],
    });
    const { events } = await run(agent, 'go');

    expect(custom(events, 'reply_budget.warning').map((v) => v.spent)).toEqual([300]);
    // 150 per call: warned at 300, spent at 600
    expect(hints(events)).toEqual(['Budget gone (600). Answer.']);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'auto', 'auto', 'none']);
  });

  it('weighs input, cached input and output tokens', async () => {
    const model = new ScriptedChatModel([
      { text: 'hi', usage: { inputTokens: 100, cacheReadTokens: 80, outputTokens: 10 } },
    ]);
    const budget = new ReplyBudgetMiddleware({
      tokenBudget: 1000,
      inputWeight: 1,
      cacheReadWeight: 0.1,
      outputWeight: 4,
    });
    const agent = new Agent({ model, middlewares: [budget] });
    const { events } = await run(agent, 'hi');

    // 20 uncached × 1 + 80 cached × 0.1 + 10 output × 4
    expect(custom(events, 'reply_budget.usage')[0]!.spent).toBeCloseTo(68);
    expect(budget.cost({ inputTokens: 10, outputTokens: 1 })).toBe(14);
  });

  it('keeps each reply apart: one instance shared by agents and successive replies', async () => {
    const budget = new ReplyBudgetMiddleware({ tokenBudget: 150 });
    const a = toolHungryModel();
    const b = toolHungryModel();
    const agentA = new Agent({ model: a, tools: [add], middlewares: [budget] });
    const agentB = new Agent({ model: b, tools: [add], middlewares: [budget] });

    const [ra, rb] = await Promise.all([run(agentA, 'one'), run(agentB, 'two')]);
    expect(ra.end.finishReason).toBe('completed');
    expect(rb.end.finishReason).toBe('completed');
    expect(a.requests.map((r) => r.toolChoice)).toEqual(['auto', 'none']);
    expect(b.requests.map((r) => r.toolChoice)).toEqual(['auto', 'none']);

    // a new reply starts with a fresh budget
    await run(agentA, 'again');
    expect(a.requests.map((r) => r.toolChoice)).toEqual(['auto', 'none', 'auto', 'none']);
  });

  it('keeps spending across a suspension for confirmation, also from a saved state', async () => {
    const transfer = defineTool({
      name: 'transfer',
      description: 'moves money',
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: ({ amount }) => `sent ${amount}`,
    });
    const usage = { inputTokens: 300, outputTokens: 0 };
    const script = (request: ModelRequest): ScriptedTurn =>
      request.toolChoice === 'none'
        ? { text: 'Sent.', usage }
        : { toolCalls: [{ id: 't1', name: 'transfer', input: { amount: 5 } }], usage };
    const first = new Agent({
      model: new ScriptedChatModel(script),
      tools: [transfer],
      middlewares: [new ReplyBudgetMiddleware({ tokenBudget: 200 })],
    });
    const suspended = await run(first, 'pay');
    expect(suspended.end.finishReason).toBe('awaiting_confirmation');

    const model = new ScriptedChatModel(script);
    const second = new Agent({
      model,
      tools: [transfer],
      middlewares: [new ReplyBudgetMiddleware({ tokenBudget: 200 })],
      state: first.saveState(),
    });
    const resumed = await run(second, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: 't1', confirmed: true }],
    });

    expect(resumed.end.finishReason).toBe('completed');
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['none']); // the budget was spent before the suspension
    expect(hints(resumed.events)).toHaveLength(1);
  });

  it('rejects options that make no sense', () => {
    expect(() => new ReplyBudgetMiddleware({ tokenBudget: 0 })).toThrow(/tokenBudget/);
    expect(() => new ReplyBudgetMiddleware({ tokenBudget: 100, warnAt: 1.5 })).toThrow(/warnAt/);
  });
});
