// The AG-UI bridge through @ag-ui/client's own machinery (runAgent: its event verifier, its
// message reducer, interrupts and resume), every emitted event validated with @ag-ui/core's
// schema, the model behind it being the real OpenAIChatModel over the OpenAI test server.
import { EventSchema } from '@ag-ui/core/schemas';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { concatMap, lastValueFrom, of, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, defineTool, type Middleware } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { ScriptedChatModel } from '../../testing/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { waitFor } from '../../node/__tests__/helpers.js';
import { RxscopeAgUiAgent, toAgUiEvents } from './index.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an order up',
  input: z.object({ id: z.string() }),
  readOnly: true,
  execute: ({ id }) => `Order ${id}: shipped`,
});
const refunds: string[] = [];
const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order',
  input: z.object({ id: z.string() }),
  needsApproval: true,
  execute: ({ id }) => (refunds.push(id), `Refunded ${id}`),
});
const sign = defineTool({
  name: 'sign',
  description: 'Signs on the device',
  input: z.object({ doc: z.string() }),
  external: true,
});

describe('RxscopeAgUiAgent through @ag-ui/client', () => {
  let server: OpenAITestServer;
  afterEach(async () => server?.close());

  function setUp(script: Parameters<typeof startOpenAITestServer>[0]) {
    return startOpenAITestServer(script).then((s) => {
      server = s;
      const agent = new Agent({
        name: 'support',
        model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: s.url }),
        tools: [lookup, refund, sign],
      });
      const agUi = new RxscopeAgUiAgent({ agent, threadId: 'thread-1' });
      const events: BaseEvent[] = [];
      agUi.subscribe({ onEvent: ({ event }) => void events.push(EventSchema.parse(event)) });
      return { agent, agUi, events };
    });
  }

  it('streams text, reasoning and tool calls; runAgent builds the AG-UI messages', async () => {
    const { agUi, events } = await setUp({
      script: [
        {
          thinking: 'Check the order.',
          text: 'Let me look.',
          toolCalls: [{ id: 'c1', name: 'lookup', input: { id: 'A-1' } }],
          usage: { inputTokens: 10, outputTokens: 4, reasoningTokens: 2 },
        },
        { text: ['It ', 'shipped.'], usage: { inputTokens: 20, outputTokens: 6 } },
      ],
    });
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Where is A-1?' });
    const { newMessages } = await agUi.runAgent({ runId: 'run-1' });

    const types = events.map((e) => e.type);
    expect(types[0]).toBe('RUN_STARTED');
    expect(events[0]).toMatchObject({ threadId: 'thread-1', runId: 'run-1' });
    expect(types.at(-1)).toBe('RUN_FINISHED');
    for (const t of [
      'STEP_STARTED',
      'REASONING_START',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_END',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'STEP_FINISHED',
    ]) {
      expect(types).toContain(t);
    }
    expect(events[0]).toMatchObject({ protocolVersion: '1.0' });
    // One usage entry per provider and model, summed over the run's model calls.
    expect(events.at(-1)).toMatchObject({
      outcome: { type: 'success' },
      usage: [
        { provider: 'openai', model: 'm', inputTokens: 30, outputTokens: 10, totalTokens: 40, reasoningTokens: 2 },
      ],
    });

    const roles = newMessages.map((m) => m.role);
    expect(roles).toEqual(['reasoning', 'assistant', 'tool', 'assistant']);
    expect(newMessages[0]).toMatchObject({ content: 'Check the order.' });
    expect(newMessages[1]).toMatchObject({
      content: 'Let me look.',
      toolCalls: [{ id: 'c1', function: { name: 'lookup', arguments: '{"id":"A-1"}' } }],
    });
    expect(newMessages[2]).toMatchObject({ toolCallId: 'c1', content: 'Order A-1: shipped' });
    expect(newMessages[3]).toMatchObject({ content: 'It shipped.' });
    expect(agUi.messages[0]).toMatchObject({ id: 'u1', role: 'user' });
  });

  it('turns a confirmation request into an AG-UI interrupt and continues the same reply on resume', async () => {
    const { agent, agUi, events } = await setUp({
      script: [
        { toolCalls: [{ id: 'r1', name: 'refund', input: { id: 'B-2' } }] },
        { text: 'Refunded.' },
        { toolCalls: [{ id: 'r2', name: 'refund', input: { id: 'C-3' } }] },
        { text: 'Not refunded.' },
      ],
    });
    refunds.length = 0;
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Refund B-2' });
    await agUi.runAgent();
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: {
        type: 'interrupt',
        interrupts: [
          {
            id: 'r1',
            toolCallId: 'r1',
            reason: 'tool_call',
            metadata: { rxscope: { name: 'refund', input: { id: 'B-2' } } },
          },
        ],
      },
    });
    // The answer's shape, with the tool's own schema for edits, as the interrupts page recommends.
    const [interrupt] = (
      events.at(-1) as unknown as { outcome: { interrupts: { responseSchema: Record<string, unknown> }[] } }
    ).outcome.interrupts;
    expect(interrupt!.responseSchema).toMatchObject({
      type: 'object',
      required: ['approved'],
      properties: {
        approved: { type: 'boolean' },
        editedArgs: { type: 'object', properties: { id: { type: 'string' } } },
      },
    });
    // Messages and state are snapshotted before the interrupt: the snapshot holds the whole thread.
    expect(events.slice(-3).map((e) => e.type)).toEqual(['MESSAGES_SNAPSHOT', 'STATE_SNAPSHOT', 'RUN_FINISHED']);
    expect((events.at(-3) as unknown as { messages: unknown[] }).messages).toEqual([
      expect.objectContaining({ id: 'u1', role: 'user', content: 'Refund B-2' }),
      expect.objectContaining({
        role: 'assistant',
        toolCalls: [expect.objectContaining({ id: 'r1', function: { name: 'refund', arguments: '{"id":"B-2"}' } })],
      }),
    ]);
    expect(agUi.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(agUi.pendingInterrupts.map((i) => i.id)).toEqual(['r1']);
    const replyId = agent.pending!.replyId;

    // @ag-ui/client refuses a run that leaves the interrupt unanswered.
    await expect(agUi.runAgent()).rejects.toThrow('pending interrupt');
    events.length = 0;
    await agUi.runAgent({ resume: [{ interruptId: 'r1', status: 'resolved', payload: { approved: true } }] });
    expect(refunds).toEqual(['B-2']);
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED' });
    expect(events.find((e) => e.type === EventType.TOOL_CALL_RESULT)).toMatchObject({
      toolCallId: 'r1',
      content: 'Refunded B-2',
    });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(agent.context.at(-1)!.id).toBe(replyId);

    agUi.addMessage({ id: 'u2', role: 'user', content: 'Refund C-3' });
    await agUi.runAgent();
    events.length = 0;
    await agUi.runAgent({ resume: [{ interruptId: 'r2', status: 'cancelled', payload: { reason: 'not this one' } }] });
    expect(refunds).toEqual(['B-2']);
    expect(events.find((e) => e.type === EventType.TOOL_CALL_RESULT)).toMatchObject({
      toolCallId: 'r2',
      metadata: { rxscope: { status: 'denied' } },
    });
  });

  it('leaves external tools to the frontend (pendingToolCallIds) and continues with the tool message', async () => {
    const { agUi, events } = await setUp({
      script: [{ toolCalls: [{ id: 's1', name: 'sign', input: { doc: 'contract' } }] }, { text: 'Signed, thanks.' }],
    });
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Sign the contract' });
    await agUi.runAgent();
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success', pendingToolCallIds: ['s1'] },
    });
    agUi.addMessage({ id: 't1', role: 'tool', toolCallId: 's1', content: 'signature #42' });
    const { newMessages } = await agUi.runAgent();
    expect(server.requests[1]!.body.messages!.some((m) => m.role === 'tool' && m.content === 'signature #42')).toBe(
      true,
    );
    expect(newMessages.at(-1)).toMatchObject({ role: 'assistant', content: 'Signed, thanks.' });
  });

  it('reports a failed reply as RUN_ERROR', async () => {
    const { agUi, events } = await setUp({ script: [{ fault: 'unauthorized' }] });
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Hi' });
    const errors: string[] = [];
    await agUi.runAgent({}, { onRunErrorEvent: ({ event }) => void errors.push(event.message) });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_ERROR' });
    expect(errors).toHaveLength(1);
  });

  it('abortRun() stops the reply: the model request is aborted and the run finishes cancelled', async () => {
    const { agUi, events } = await setUp({ script: [{ text: ['Once ', 'upon'], fault: 'stall' }] });
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Story' });
    const run = agUi.runAgent();
    await waitFor(() => events.some((e) => e.type === EventType.TEXT_MESSAGE_CONTENT));
    agUi.abortRun();
    await run;
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } });
    expect(events.at(-1)).not.toHaveProperty('usage'); // the cut-off call reported no counts: none are invented
    await waitFor(() => server.requests[0]!.clientClosed);
    await server.waitForConnections(0);
  });
});

describe('toAgUiEvents', () => {
  it('maps every event of a reply to a valid AG-UI event, with rxscope-only events as CUSTOM', async () => {
    const agent = new Agent({
      name: 'a',
      model: new ScriptedChatModel([{ thinking: 'hm', text: ['x', ''] }]),
      sessionId: 'sess-1',
    });
    const events = await lastValueFrom(agent.reply('hi').pipe(toAgUiEvents(), toArray()));
    for (const e of events) expect(() => EventSchema.parse(e)).not.toThrow();
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: 'sess-1' });
    expect(events.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)).toHaveLength(1); // the empty delta is dropped
    const custom = await lastValueFrom(agent.reply('again').pipe(toAgUiEvents(), toArray()));
    expect(custom.at(-1)).toMatchObject({ type: 'RUN_ERROR' }); // the script ran out: the reply failed
  });

  it('todos and plan mode are activities of the thread: a snapshot, then deltas, nothing for no change', async () => {
    const todos = (items: string[]) => ({ todos: items.map((content) => ({ content, status: 'pending' })) });
    const planner: Middleware = {
      key: 'planner',
      // Reported inside the reply: after its REPLY_START, before its REPLY_END.
      onAgent: (_agent, ctx, input, next) =>
        next(input).pipe(
          concatMap((e) => {
            if (e.type === 'REPLY_START')
              return of(e, ctx.event('CUSTOM', { name: 'todos_updated', value: todos(['a']) }));
            if (e.type !== 'REPLY_END') return of(e);
            return of(
              ctx.event('CUSTOM', { name: 'todos_updated', value: todos(['a', 'b']) }),
              ctx.event('CUSTOM', { name: 'todos_updated', value: todos(['a', 'b']) }),
              ctx.event('CUSTOM', { name: 'plan_mode_changed', value: { active: true } }),
              ctx.event('CUSTOM', { name: 'other', value: 1 }),
              e,
            );
          }),
        ),
    };
    const agent = new Agent({ name: 'a', model: new ScriptedChatModel([{ text: 'ok' }]), middlewares: [planner] });
    const events = await lastValueFrom(agent.reply('plan').pipe(toAgUiEvents({ threadId: 't9' }), toArray()));
    for (const e of events) expect(() => EventSchema.parse(e)).not.toThrow();
    const activities = events.filter(
      (e) => e.type === EventType.ACTIVITY_SNAPSHOT || e.type === EventType.ACTIVITY_DELTA,
    );
    expect(activities).toEqual([
      expect.objectContaining({
        type: EventType.ACTIVITY_SNAPSHOT,
        messageId: 't9:todos',
        activityType: 'todos',
        content: todos(['a']),
      }),
      expect.objectContaining({
        type: EventType.ACTIVITY_DELTA,
        messageId: 't9:todos',
        patch: [{ op: 'add', path: '/todos/-', value: { content: 'b', status: 'pending' } }],
      }),
      expect.objectContaining({
        type: EventType.ACTIVITY_SNAPSHOT,
        messageId: 't9:plan_mode',
        content: { active: true },
      }),
    ]);
    expect(events).toContainEqual(expect.objectContaining({ type: EventType.CUSTOM, name: 'other', value: 1 }));
  });

  it('tool progress is an activity (snapshot, then deltas), apart from the result; a returned object rides along as metadata', async () => {
    const weather = defineTool({
      name: 'weather',
      description: 'Weather',
      input: z.object({ city: z.string() }),
      execute: ({ city }, toolCtx) => {
        toolCtx.emit({ message: `looking up ${city}...`, progress: 1, total: 2 });
        toolCtx.emit({ message: `reading ${city}...`, progress: 2, total: 2 });
        return { city, tempC: 21 };
      },
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'call_1', name: 'weather', input: { city: 'Paris' } }] },
      { text: 'Sunny.' },
    ]);
    const agent = new Agent({ name: 'a', model, tools: [weather] });
    const events = await lastValueFrom(agent.reply('weather?').pipe(toAgUiEvents(), toArray()));
    for (const e of events) expect(() => EventSchema.parse(e)).not.toThrow();
    const progress = events.filter(
      (e) => e.type === EventType.ACTIVITY_SNAPSHOT || e.type === EventType.ACTIVITY_DELTA,
    );
    const messageId = `${events[0]!.type === EventType.RUN_STARTED ? (events[0] as unknown as { runId: string }).runId : ''}:progress:call_1`;
    expect(progress).toEqual([
      expect.objectContaining({
        type: EventType.ACTIVITY_SNAPSHOT,
        messageId,
        activityType: 'tool_progress',
        content: { toolCallId: 'call_1', message: 'looking up Paris...', progress: 1, total: 2 },
      }),
      expect.objectContaining({
        type: EventType.ACTIVITY_DELTA,
        messageId,
        activityType: 'tool_progress',
        patch: [
          { op: 'replace', path: '/message', value: 'reading Paris...' },
          { op: 'replace', path: '/progress', value: 2 },
        ],
      }),
    ]);
    const result = events.find((e) => e.type === EventType.TOOL_CALL_RESULT) as unknown as {
      content: string;
      metadata: unknown;
    };
    expect(result.content).toBe('{"city":"Paris","tempC":21}');
    expect(result.metadata).toEqual({ rxscope: { status: 'success', value: { city: 'Paris', tempC: 21 } } });
  });

  it('a reply ended by a shutdown is a RUN_ERROR with code shutdown, its open tool call closed', async () => {
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const slow = defineTool({
      name: 'slow',
      description: 'Slow',
      input: z.object({}),
      execute: () => new Promise<string>((resolve) => (started(), setTimeout(() => resolve('done'), 20))),
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'c1', name: 'slow', input: {} },
          { id: 'c2', name: 'slow', input: {} },
        ],
      },
    ]);
    const agent = new Agent({ name: 'a', model, tools: [slow] });
    const events = lastValueFrom(agent.reply('go').pipe(toAgUiEvents(), toArray()));
    await running;
    await agent.shutdown({ reason: 'received SIGTERM' });
    const all = await events;
    for (const e of all) expect(() => EventSchema.parse(e)).not.toThrow();
    expect(all.at(-1)).toMatchObject({
      type: 'RUN_ERROR',
      code: 'shutdown',
      message: expect.stringContaining('received SIGTERM') as string,
    });
    expect(all.filter((e) => e.type === EventType.TOOL_CALL_RESULT)).toHaveLength(1);
  });
});
