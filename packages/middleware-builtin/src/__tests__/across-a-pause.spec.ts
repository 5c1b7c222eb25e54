/**
 * The built-ins that act at a reply's end, through a reply that pauses for a confirmation and
 * is resumed by a new agent from the saved state (as another process would resume it).
 */
import { z } from 'zod';
import { Agent, defineTool, type Middleware, type ModelRequest } from '@rxscope/core';
import { ScriptedChatModel, type ScriptedTurn } from '@rxscope/core/testing';
import { ModelCallLimitMiddleware } from '../model-call-limit/index.js';
import { RecordingMiddleware } from '../recording/index.js';
import { ReplayChatModel } from '../recording/replay-chat-model.js';
import type { Cassette } from '../recording/cassette.js';
import { TimeoutMiddleware } from '../timeout/index.js';
import { ToolCallLimitMiddleware } from '../tool-call-limit/index.js';
import { UsageMiddleware, type ReplyUsage } from '../usage/index.js';
import { customValues, run, textOf } from './helpers.js';

const pay = defineTool({
  name: 'pay',
  description: 'pays someone',
  input: z.object({ to: z.string() }),
  needsApproval: true,
  execute: ({ to }) => `paid ${to}`,
});
const look = defineTool({
  name: 'look',
  description: 'looks something up',
  input: z.object({ q: z.string() }),
  execute: ({ q }) => `found ${q}`,
});
const approve = { type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 'p1', confirmed: true }] } as const;

/** Looks once, asks to pay, then (after the payment) looks again and answers. */
const script = (request: ModelRequest): ScriptedTurn => {
  const seen = JSON.stringify(request.messages);
  if (seen.includes('found second')) return { text: 'Done.', usage: { inputTokens: 40, outputTokens: 2 } };
  if (seen.includes('paid Bob'))
    return {
      toolCalls: [{ id: 'l2', name: 'look', input: { q: 'second' } }],
      usage: { inputTokens: 30, outputTokens: 3 },
    };
  if (seen.includes('found first'))
    return {
      toolCalls: [{ id: 'p1', name: 'pay', input: { to: 'Bob' } }],
      usage: { inputTokens: 20, outputTokens: 4 },
    };
  return {
    toolCalls: [{ id: 'l1', name: 'look', input: { q: 'first' } }],
    usage: { inputTokens: 10, outputTokens: 5 },
  };
};

/** Runs the first part in one agent, and the resumed part in a new agent made from its saved state. */
async function pausedAndResumed(middlewares: () => Middleware[]) {
  const first = new Agent({
    name: 'a',
    model: new ScriptedChatModel(script),
    tools: [look, pay],
    middlewares: middlewares(),
  });
  const before = await run(first, 'Pay Bob.');
  expect(before.end.finishReason).toBe('awaiting_confirmation');
  const resumedMiddlewares = middlewares();
  const second = new Agent({
    name: 'a',
    model: new ScriptedChatModel(script),
    tools: [look, pay],
    middlewares: resumedMiddlewares,
    state: first.saveState(),
  });
  const after = await run(second, approve);
  return { first, second, before, after, resumedMiddlewares };
}

describe('built-ins across a reply paused for a confirmation and resumed elsewhere', () => {
  it('UsageMiddleware reports each part when it ends and the session adds both', async () => {
    let usage!: UsageMiddleware;
    const { second, before, after } = await pausedAndResumed(() => [(usage = new UsageMiddleware())]);
    const [part1] = customValues<ReplyUsage>(before.events, 'usage.reply');
    const [part2] = customValues<ReplyUsage>(after.events, 'usage.reply');
    expect(part1).toMatchObject({ modelCalls: 2, inputTokens: 30, outputTokens: 9, toolCalls: 1 });
    expect(part2).toMatchObject({ modelCalls: 2, inputTokens: 70, outputTokens: 5, toolCalls: 2 });
    expect(part2!.replyId).toBe(part1!.replyId);
    expect(usage.session(second)).toMatchObject({ modelCalls: 4, inputTokens: 100, outputTokens: 14 });
  });

  it('ToolCallLimitMiddleware keeps counting the reply where it paused', async () => {
    // 3 calls per reply: look and pay before the pause, the second look after it.
    const { after } = await pausedAndResumed(() => [new ToolCallLimitMiddleware({ perReply: 2, onLimit: 'end' })]);
    expect(after.end).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'tool_call_limit' } });
    const within = await pausedAndResumed(() => [new ToolCallLimitMiddleware({ perReply: 3, onLimit: 'end' })]);
    expect(within.after.end.finishReason).toBe('completed');
  });

  it('ModelCallLimitMiddleware keeps counting the reply where it paused', async () => {
    // 4 model calls per reply: 2 before the pause, 2 after it.
    const { after } = await pausedAndResumed(() => [new ModelCallLimitMiddleware({ perReply: 3, onLimit: 'end' })]);
    expect(after.end).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'model_call_limit' } });
    expect(customValues(after.events, 'model_call_limit')).toMatchObject([{ action: 'end', used: 3, limit: 3 }]);
    const within = await pausedAndResumed(() => [new ModelCallLimitMiddleware({ perReply: 4, onLimit: 'end' })]);
    expect(within.after.end.finishReason).toBe('completed');
  });

  it('TimeoutMiddleware does not count the wait for the person: each part has its own replyMs', async () => {
    const replyMs = 300;
    const first = new Agent({
      name: 'a',
      model: new ScriptedChatModel(script),
      tools: [look, pay],
      middlewares: [new TimeoutMiddleware({ replyMs })],
    });
    expect((await run(first, 'Pay Bob.')).end.finishReason).toBe('awaiting_confirmation');
    await new Promise((r) => setTimeout(r, replyMs + 200)); // the person takes longer than replyMs
    const second = new Agent({
      name: 'a',
      model: new ScriptedChatModel(script),
      tools: [look, pay],
      middlewares: [new TimeoutMiddleware({ replyMs })],
      state: first.saveState(),
    });
    expect((await run(second, approve)).end.finishReason).toBe('completed');
  });

  it('RecordingMiddleware saves one cassette per part, and the resumed part replays from its state', async () => {
    const cassettes: Cassette[] = [];
    const { first, after } = await pausedAndResumed(() => [
      new RecordingMiddleware({ save: (c) => void cassettes.push(c) }),
    ]);
    expect(cassettes.map((c) => c.modelCalls.length)).toEqual([2, 2]);
    expect(cassettes[0]!.replies[0]!.events.at(-1)).toMatchObject({
      type: 'REPLY_END',
      finishReason: 'awaiting_confirmation',
    });
    expect(cassettes[1]!.replies[0]!.events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });

    // No live model: the resumed part answers the same from its cassette.
    const replayed = new Agent({
      name: 'a',
      model: new ReplayChatModel(cassettes[1]!),
      tools: [look, pay],
      state: first.saveState(),
    });
    const again = await run(replayed, approve);
    expect(again.end.finishReason).toBe('completed');
    expect(textOf(again.events)).toBe(textOf(after.events));
  });
});
