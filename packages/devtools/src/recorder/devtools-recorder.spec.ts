import { concat, lastValueFrom, map, of, toArray } from 'rxjs';
import { Agent, defineTool, type AgentEvent, type Middleware } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { RetryMiddleware } from '@rxscope/middleware-builtin';
import { z } from 'zod';
import { DevtoolsError, DevtoolsMiddleware, DevtoolsRecorder, instrumentMiddlewares } from '../index.js';
import { lookupAgent } from '../__tests__/helpers.js';

const typesOf = (recorder: DevtoolsRecorder, replyId: string) =>
  recorder.reply(replyId)!.events.map((e) => e.event['type']);

describe('DevtoolsRecorder through DevtoolsMiddleware', () => {
  it('records a reply: events in order with hooks, the layers each passed, the chain, usage and status', async () => {
    const recorder = new DevtoolsRecorder({ prices: { 'scripted-model': { input: 1_000_000, output: 2_000_000 } } });
    const tagger: Middleware = { key: 'tagger', onModelCall: (_a, _c, input, next) => next(input) };
    const agent = lookupAgent(instrumentMiddlewares(recorder, [new RetryMiddleware(), tagger]));
    await agent.call('where is A-1?');
    const [summary] = recorder.replies();
    expect(summary).toMatchObject({ agentName: 'bot', status: 'completed', finishReason: 'completed', toolCalls: 1 });
    const record = recorder.reply(summary!.replyId)!;
    expect(record.chain).toEqual([
      { hook: 'onAgent', layers: ['devtools'] },
      { hook: 'onReasoning', layers: ['devtools'] },
      { hook: 'onModelCall', layers: ['devtools', 'retry', 'tagger'] },
      { hook: 'onActing', layers: ['devtools'] },
      { hook: 'onCheckPermission', layers: [] },
      { hook: 'onSystemPrompt', layers: [] },
    ]);
    const seqs = record.events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(record.events[0]).toMatchObject({ hook: 'onAgent', event: { type: 'REPLY_START' } });
    const text = record.events.find((e) => e.event['type'] === 'TEXT_BLOCK_DELTA')!;
    expect(text).toMatchObject({ hook: 'onModelCall', layers: ['retry', 'tagger'] });
    const result = record.events.find((e) => e.event['type'] === 'TOOL_RESULT_END')!;
    expect(result.hook).toBe('onActing');
    expect(typesOf(recorder, summary!.replyId).filter((t) => t === 'MODEL_REQUEST')).toHaveLength(2);
    expect(record.events.at(-1)!.event['type']).toBe('REPLY_END');
    expect(record.events.every((e) => typeof e.t === 'number' && e.t > 1.6e12)).toBe(true);
    expect(summary!.usage).toBeDefined();
    expect(summary!.costUsd).toBeCloseTo(summary!.usage!.inputTokens + 2 * summary!.usage!.outputTokens);
    // Each model call carries its own cost; together they are the reply's.
    const calls = record.events.filter((e) => e.event['type'] === 'MODEL_CALL_END');
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      const usage = call.event['usage'] as { inputTokens: number; outputTokens: number };
      expect(call.costUsd).toBeCloseTo(usage.inputTokens + 2 * usage.outputTokens);
    }
    expect(calls[0]!.costUsd! + calls[1]!.costUsd!).toBeCloseTo(summary!.costUsd!);
    expect(record.events.filter((e) => e.costUsd !== undefined)).toHaveLength(2);
  });

  it('records only the layers an event passed: one made by a middle layer did not pass the inner ones', async () => {
    const recorder = new DevtoolsRecorder();
    const pass = (key: string): Middleware => ({ key, onModelCall: (_a, _c, input, next) => next(input) });
    const emitter: Middleware = {
      key: 'emitter',
      onModelCall: (_a, ctx, input, next) =>
        concat(of(ctx.event('CUSTOM', { name: 'from-emitter', value: 1 })), next(input)),
    };
    await lookupAgent(instrumentMiddlewares(recorder, [pass('outer'), emitter, pass('inner')])).call('hi');
    const events = recorder.reply(recorder.replies()[0]!.replyId)!.events;
    const custom = events.find((e) => e.event['name'] === 'from-emitter')!;
    expect(custom).toMatchObject({ hook: 'onModelCall', layers: ['outer', 'emitter'] });
    const delta = events.find((e) => e.event['type'] === 'TEXT_BLOCK_DELTA')!;
    expect(delta).toMatchObject({ hook: 'onModelCall', layers: ['outer', 'emitter', 'inner'] });
    expect(events.find((e) => e.event['type'] === 'REPLY_START')).toMatchObject({ hook: 'onAgent', layers: [] });
  });

  it('redacts model request messages and credentials by default, keeps messages with content: true', async () => {
    const run = async (content: boolean) => {
      const recorder = new DevtoolsRecorder({ content });
      await lookupAgent([new DevtoolsMiddleware({ recorder })]).call(
        'my key is sk-abcdefghijklmnopqrstuvwx, where is A-1?',
      );
      const record = recorder.reply(recorder.replies()[0]!.replyId)!;
      return record.events.find((e) => e.event['type'] === 'MODEL_REQUEST')!.event;
    };
    const redacted = await run(false);
    expect(redacted['messages']).toEqual({ $redacted: true });
    expect(redacted['tools']).toEqual(['lookup']);
    const kept = JSON.stringify((await run(true))['messages']);
    expect(kept).toContain('where is A-1?');
    expect(kept).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    expect(kept).toContain('[redacted]');
  });

  it('records a confirmation, how it was answered, and the continued reply under the same id', async () => {
    const refund = defineTool({
      name: 'refund',
      description: 'Refunds.',
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: ({ amount }) => `refunded ${amount}`,
    });
    const recorder = new DevtoolsRecorder();
    const agent = new Agent({
      name: 'bot',
      model: new ScriptedChatModel([{ toolCalls: [{ name: 'refund', input: { amount: 5 } }] }, { text: 'Done.' }]),
      tools: [refund],
      middlewares: [new DevtoolsMiddleware({ recorder })],
    });
    const first = await lastValueFrom(agent.reply('refund 5').pipe(toArray()));
    const replyId = first[0]!.replyId;
    expect(recorder.replies()[0]).toMatchObject({ replyId, status: 'awaiting_confirmation' });
    const ask = first.find((e) => e.type === 'REQUIRE_USER_CONFIRM')!;
    const toolCallId = (ask as unknown as { toolCalls: { id: string }[] }).toolCalls[0]!.id;
    await lastValueFrom(agent.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId, confirmed: true }] }));
    expect(recorder.replies()).toHaveLength(1);
    expect(recorder.replies()[0]).toMatchObject({ replyId, status: 'completed' });
    const events = recorder.reply(replyId)!.events.map((e) => e.event);
    const answer = events.find((e) => e['type'] === 'USER_CONFIRM_RESULT')!;
    expect(answer['results']).toEqual([{ toolCallId, confirmed: true }]);
    expect(events.map((e) => e['type'])).toContain('REQUIRE_USER_CONFIRM');
  });

  it('nests a subagent reply under its parent (parentReplyId, children)', async () => {
    const recorder = new DevtoolsRecorder();
    const helper = lookupAgent([], 'helper');
    const lead = new Agent({
      name: 'lead',
      model: new ScriptedChatModel([
        { toolCalls: [{ name: 'helper', input: { message: 'find A-1' } }] },
        { text: 'The helper found it.' },
      ]),
      tools: [helper.asTool({ description: 'Finds orders.' })],
      middlewares: [new DevtoolsMiddleware({ recorder })],
    });
    await lead.call('find A-1 with your helper');
    const summaries = recorder.replies();
    const parent = summaries.find((s) => s.agentName === 'lead')!;
    const child = summaries.find((s) => s.agentName === 'helper')!;
    expect(child).toMatchObject({ parentReplyId: parent.replyId, status: 'completed', toolCalls: 1 });
    expect(recorder.reply(parent.replyId)!.children).toEqual([child.replyId]);
    expect(typesOf(recorder, child.replyId)).toContain('TOOL_RESULT_END');
    expect(typesOf(recorder, parent.replyId).filter((t) => t === 'REPLY_START')).toHaveLength(1);
  });

  it('keeps a malformed event with a flag and the agent finishes its reply', async () => {
    const recorder = new DevtoolsRecorder();
    const circular: Record<string, unknown> = { type: 'CUSTOM', name: 'loop', big: 10n };
    circular['self'] = circular;
    // An inner layer emits a CUSTOM event with a cycle and a bigint, and one without a type.
    const bad: Middleware = {
      key: 'bad',
      onAgent: (_agent, ctx, input, next) =>
        next(input).pipe(
          map((e): AgentEvent =>
            e.type === 'REPLY_START'
              ? e
              : e.type === 'TEXT_BLOCK_START'
                ? ({
                    ...circular,
                    id: 'x1',
                    replyId: ctx.replyId,
                    source: 'bot',
                    createdAt: 1,
                  } as unknown as AgentEvent)
                : e,
          ),
        ),
    };
    const agent = lookupAgent(instrumentMiddlewares(recorder, [bad]));
    const events = await lastValueFrom(agent.reply('hi').pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END' });
    recorder.record(events[0]!.replyId, 'onAgent', [], { no: 'type' });
    recorder.record(events[0]!.replyId, 'onAgent', [], null);
    const record = recorder.reply(events[0]!.replyId)!;
    const flags = record.events.filter((e) => e.flag).map((e) => e.flag);
    expect(flags).toEqual(
      expect.arrayContaining([expect.stringContaining('circular'), 'no "type" string', 'not an event object (null)']),
    );
    expect(record.summary.flagged).toBe(flags.length);
    expect(() => JSON.stringify(record)).not.toThrow();
  });

  it('truncates a huge tool output and says its size', async () => {
    const huge = defineTool({
      name: 'dump',
      description: 'Dumps.',
      input: z.object({}),
      readOnly: true,
      execute: () => 'x'.repeat(3_000_000),
    });
    const recorder = new DevtoolsRecorder({ maxStringLength: 1000 });
    const agent = new Agent({
      name: 'bot',
      model: new ScriptedChatModel([{ toolCalls: [{ name: 'dump', input: {} }] }, { text: 'ok' }]),
      tools: [huge],
      middlewares: [new DevtoolsMiddleware({ recorder })],
    });
    await agent.call('dump');
    const record = recorder.reply(recorder.replies()[0]!.replyId)!;
    const text = JSON.stringify(record);
    expect(text.length).toBeLessThan(100_000);
    expect(text).toContain('"$truncated":true,"size":3000000');
    expect(recorder.stats().bytes).toBeLessThan(100_000);
  });

  it('drops the oldest replies past maxReplies and past maxBytes', async () => {
    const recorder = new DevtoolsRecorder({ maxReplies: 3 });
    for (let i = 0; i < 5; i++) await lookupAgent([new DevtoolsMiddleware({ recorder })]).call(`q${i}`);
    expect(recorder.replies()).toHaveLength(3);
    const small = new DevtoolsRecorder({ maxBytes: 20_000 });
    for (let i = 0; i < 20; i++) await lookupAgent([new DevtoolsMiddleware({ recorder: small })]).call(`q${i}`);
    expect(small.stats().bytes).toBeLessThanOrEqual(20_000);
    expect(small.replies().length).toBeGreaterThan(0);
    expect(small.replies().length).toBeLessThan(20);
  });

  it('refuses unknown option keys with a "did you mean"', () => {
    expect(() => new DevtoolsRecorder({ maxReply: 3 } as never)).toThrow(
      /unknown option "maxReply".*did you mean "maxReplies"/,
    );
    expect(() => new DevtoolsMiddleware({ recorder: new DevtoolsRecorder(), recoder: 1 } as never)).toThrow(
      /did you mean "recorder"/,
    );
    expect(() => new DevtoolsRecorder({ maxBytes: -1 })).toThrow(DevtoolsError);
    expect(() => new DevtoolsRecorder({ maxBytes: -1 })).toThrow(/"maxBytes" must be a positive integer/);
  });

  it('uses the given describer for the record (a harness description), and survives one that throws', async () => {
    const recorder = new DevtoolsRecorder({ describe: (agent) => ({ parts: [agent.name] }) });
    await lookupAgent([new DevtoolsMiddleware({ recorder })]).call('hi');
    expect(recorder.reply(recorder.replies()[0]!.replyId)!.harness).toEqual({ parts: ['bot'] });
    const throwing = new DevtoolsRecorder({
      describe: () => {
        throw new TypeError('not a harness agent');
      },
    });
    await lookupAgent([new DevtoolsMiddleware({ recorder: throwing })]).call('hi');
    expect(throwing.replies()[0]!.status).toBe('completed');
  });
});
