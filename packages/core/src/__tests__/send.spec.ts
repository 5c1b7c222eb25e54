// agent.send(): user messages into a running reply (the very next model request), into the next
// reply when idle, kept in order and across interruption, suspension and a restore elsewhere —
// on the wire through the OpenAI test server with the real client.
import { lastValueFrom, tap, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { AgentUsageError } from '../agent/errors.js';
import type { AgentEvent } from '../event/events.js';
import type { HintBlock, Msg } from '../message/blocks.js';
import { createMsg } from '../message/msg.js';
import { OpenAIChatModel } from '../model/openai/openai-chat-model.js';
import { InMemorySessionStore } from '../state/session-store.js';
import { startOpenAITestServer, type OpenAITestServer, type RecordedRequest } from '../testing/node/index.js';
import { defineTool } from '../tool/tool.js';
import { endOf, ofType, runReply } from './helpers.js';

let server: OpenAITestServer;
beforeEach(async () => {
  server = await startOpenAITestServer();
});
afterEach(async () => {
  await server.close();
});

const model = () =>
  new OpenAIChatModel({
    model: 'gpt-test',
    apiKey: 'sk-test',
    baseURL: server.url,
    configuration: { logLevel: 'off' },
  });

/** The messages of a request as `role:text` (tool calls and results named). */
const wire = (request: RecordedRequest): string[] =>
  (request.body.messages ?? []).map((m) => {
    const text =
      typeof m.content === 'string'
        ? m.content
        : (m.content ?? []).map((p) => (p.type === 'text' ? String(p['text']) : p.type)).join('');
    return `${m.role}:${m.tool_calls ? `call ${m.tool_calls.map((c) => c.function.name).join(',')}` : text}`;
  });

const userHints = (events: readonly AgentEvent[]) =>
  ofType(events, 'HINT_BLOCK')
    .filter((e) => e.hintSource === 'user')
    .map((e) => e.text);
const storedUserHints = (messages: readonly Msg[]) =>
  messages
    .flatMap((m) => m.content.filter((b): b is HintBlock => b.type === 'hint' && b.source === 'user'))
    .map((b) => b.text);

/** A tool that waits until the test releases it (so the test can send while it runs). */
function gate() {
  let release!: () => void;
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const done = new Promise<void>((r) => (release = r));
  const tool = defineTool({
    name: 'search',
    description: 'searches the flights',
    input: z.object({ q: z.string() }),
    readOnly: true,
    execute: async ({ q }) => {
      started();
      await done;
      return `3 flights for ${q}`;
    },
  });
  return { tool, running, release };
}

describe('agent.send() while a reply runs', () => {
  it('a message sent during a tool call is in the very next model request, emitted once as a user hint, and persisted', async () => {
    server.enqueue(
      { toolCalls: [{ id: 'c1', name: 'search', input: { q: 'Paris' } }] },
      { text: 'Here are weekend flights.' },
    );
    const { tool, running, release } = gate();
    const agent = new Agent({ name: 'travel', model: model(), tools: [tool] });
    const reply = runReply(agent, 'Find flights to Paris');
    await running;
    agent.send('Only weekends, please');
    expect(agent.queued.map((m) => m.content)).toEqual([[{ type: 'text', text: 'Only weekends, please' }]]);
    release();
    const events = await reply;

    // Two model calls: the message was not one step late, and it needed no extra step.
    expect(server.requests).toHaveLength(2);
    expect(wire(server.requests[1]!)).toEqual([
      'user:Find flights to Paris',
      'assistant:call search',
      'tool:3 flights for Paris',
      'user:Only weekends, please',
    ]);
    expect(userHints(events)).toEqual(['Only weekends, please']);
    // Emitted before the model call that includes it.
    const hintAt = events.findIndex((e) => e.type === 'HINT_BLOCK');
    const secondCall = events.findIndex(
      (e, i) => e.type === 'MODEL_CALL_START' && i > events.findIndex((x) => x.type === 'TOOL_RESULT_END'),
    );
    expect(hintAt).toBeLessThan(secondCall);
    expect(endOf(events).finishReason).toBe('completed');
    expect(agent.queued).toEqual([]);
    const saved = agent.saveState();
    expect(storedUserHints(saved.context)).toEqual(['Only weekends, please']);
    expect(saved.inbox).toBeUndefined();
  });

  it('several messages keep their order, in the request and in the events', async () => {
    server.enqueue({ toolCalls: [{ id: 'c1', name: 'search', input: { q: 'Rome' } }] }, { text: 'ok' });
    const { tool, running, release } = gate();
    const agent = new Agent({ model: model(), tools: [tool] });
    const reply = runReply(agent, 'Flights to Rome');
    await running;
    agent.send('from Berlin');
    agent.send(createMsg('user', 'in May'));
    agent.send('under 200 EUR');
    release();
    const events = await reply;

    expect(wire(server.requests[1]!).slice(-3)).toEqual(['user:from Berlin', 'user:in May', 'user:under 200 EUR']);
    expect(userHints(events)).toEqual(['from Berlin', 'in May', 'under 200 EUR']);
  });

  it('a message sent while the model writes its final answer gets one more step of the same reply', async () => {
    server.enqueue({ text: ['The ', 'capital ', 'is ', 'Paris.'], chunkDelayMs: 20 }, { text: 'About 2.1 million.' });
    const agent = new Agent({ model: model() });
    let sent = false;
    const events = await runReply(
      agent,
      agent.reply('Capital of France?').pipe(
        tap((e) => {
          if (e.type === 'TEXT_BLOCK_DELTA' && !sent) {
            sent = true;
            agent.send('And its population?');
          }
        }),
      ),
    );

    expect(server.requests).toHaveLength(2);
    expect(wire(server.requests[1]!)).toEqual([
      'user:Capital of France?',
      'assistant:The capital is Paris.',
      'user:And its population?',
    ]);
    expect(userHints(events)).toEqual(['And its population?']);
    expect(endOf(events).finishReason).toBe('completed');
    expect(agent.context).toHaveLength(2);
  });
});

describe('agent.send() while idle', () => {
  it('joins the next reply after its input, in order, once', async () => {
    server.enqueue({ text: 'noted' }, { text: 'fine' });
    const agent = new Agent({ model: model() });
    agent.send('first');
    agent.send('second');
    expect(agent.saveState().inbox?.map((m) => m.content)).toEqual([
      [{ type: 'text', text: 'first' }],
      [{ type: 'text', text: 'second' }],
    ]);
    const events = await runReply(agent, 'the question');

    expect(wire(server.requests[0]!)).toEqual(['user:the question', 'user:first', 'user:second']);
    expect(userHints(events)).toEqual(['first', 'second']);
    expect(agent.queued).toEqual([]);

    // Delivered once: the next reply has them in its history, not as new messages.
    const again = await runReply(agent, 'next');
    expect(userHints(again)).toEqual([]);
    expect(wire(server.requests[1]!)).toEqual([
      'user:the question',
      'user:first',
      'user:second',
      'assistant:noted',
      'user:next',
    ]);
  });

  it('refuses what it cannot deliver, with a message that says what to pass', () => {
    const agent = new Agent({ model: model() });
    expect(() => agent.send('  ')).toThrow(AgentUsageError);
    expect(() => agent.send(42 as unknown as string)).toThrow(/send\(\) takes a string or a message/);
    expect(() => agent.send(createMsg('assistant', 'hi'))).toThrow(/user message, got role "assistant"/);
    const image = createMsg('user', [
      { type: 'text', text: 'look' },
      { type: 'data', mediaType: 'image/png', url: 'https://example.com/a.png' },
    ]);
    expect(() => agent.send(image)).toThrow(/"data" block; pass media as the input of reply\(\) instead/);
    expect(agent.queued).toEqual([]);
  });
});

describe('agent.send() across interruption and suspension', () => {
  it('a message sent before an interrupt waits in the state and joins the next reply of a restored agent', async () => {
    server.enqueue({ toolCalls: [{ id: 'c1', name: 'search', input: { q: 'Oslo' } }] }, { text: 'resumed' });
    const { tool, running, release } = gate();
    const agent = new Agent({ model: model(), tools: [tool] });
    const reply = runReply(agent, 'Flights to Oslo');
    await running;
    agent.send('Direct flights only');
    agent.interrupt('user pressed stop');
    release();
    const events = await reply;
    expect(endOf(events).finishReason).toBe('interrupted');
    expect(userHints(events)).toEqual([]);

    const snapshot = JSON.parse(JSON.stringify(agent.saveState())) as unknown;
    expect(snapshot).toMatchObject({
      inbox: [{ role: 'user', content: [{ type: 'text', text: 'Direct flights only' }] }],
    });
    const revived = new Agent({ model: model(), tools: [tool], state: snapshot });
    const next = await runReply(revived, 'Go on');

    expect(wire(server.requests[1]!).slice(-2)).toEqual(['user:Go on', 'user:Direct flights only']);
    expect(userHints(next)).toEqual(['Direct flights only']);
    expect(revived.saveState().inbox).toBeUndefined();
  });

  it('a message sent while the reply suspends for confirmation joins the resumed reply, in another agent too', async () => {
    const transfer = defineTool({
      name: 'transfer',
      description: 'moves money',
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: ({ amount }) => `sent ${amount}`,
    });
    server.enqueue({
      text: 'Let me transfer it.',
      chunkDelayMs: 20,
      toolCalls: [{ id: 't1', name: 'transfer', input: { amount: 5 } }],
    });
    server.enqueue({ text: 'Done, with a note.' });
    const agent = new Agent({ model: model(), tools: [transfer] });
    let sent = false;
    const first = await runReply(
      agent,
      agent.reply('Pay 5').pipe(
        tap((e) => {
          if (e.type === 'TEXT_BLOCK_DELTA' && !sent) {
            sent = true;
            agent.send('Add the note "rent"');
          }
        }),
      ),
    );
    expect(endOf(first).finishReason).toBe('awaiting_confirmation');
    expect(userHints(first)).toEqual([]);
    agent.send('and thanks');

    const snapshot = JSON.parse(JSON.stringify(agent.saveState())) as unknown;
    const revived = new Agent({ model: model(), tools: [transfer], state: snapshot });
    const resumed = await runReply(
      revived,
      revived.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 't1', confirmed: true }] }),
    );

    expect(server.requests).toHaveLength(2);
    expect(wire(server.requests[1]!).slice(-3)).toEqual(['tool:sent 5', 'user:Add the note "rent"', 'user:and thanks']);
    expect(userHints(resumed)).toEqual(['Add the note "rent"', 'and thanks']);
    expect(storedUserHints(revived.context)).toEqual(['Add the note "rent"', 'and thanks']);
  });

  it('with a session store, a message sent before the next reply survives the load of a newer stored state', async () => {
    server.enqueue({ text: 'from b' }, { text: 'from a' });
    const store = new InMemorySessionStore();
    const a = new Agent({ model: model(), store, sessionId: 's1' });
    const b = new Agent({ model: model(), store, sessionId: 's1' });
    a.send('sent to a');
    await runReply(b, 'to b'); // b saves a newer state, without a's message
    const events = await runReply(a, 'to a');

    expect(userHints(events)).toEqual(['sent to a']);
    expect(wire(server.requests[1]!)).toEqual(['user:to b', 'assistant:from b', 'user:to a', 'user:sent to a']);
    const stored = await store.load('s1');
    expect(stored?.state.inbox).toBeUndefined();
    expect(storedUserHints(stored!.state.context)).toEqual(['sent to a']);
  });
});

describe('structured output across a suspension', () => {
  const Payment = z.object({ paid: z.number(), note: z.string() });
  const transfer = defineTool({
    name: 'transfer',
    description: 'moves money',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => `sent ${amount}`,
  });

  async function suspended() {
    server.enqueue({ toolCalls: [{ id: 't1', name: 'transfer', input: { amount: 5 } }] });
    const agent = new Agent({ model: model(), tools: [transfer] });
    const first = await lastValueFrom(agent.reply('Pay 5', { output: Payment }).pipe(toArray()));
    expect(endOf(first).finishReason).toBe('awaiting_confirmation');
    return JSON.parse(JSON.stringify(agent.saveState())) as unknown;
  }
  const confirm = { type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 't1', confirmed: true }] } as const;

  it('the resumed reply (in another agent) still asks for and validates the output, repairs included', async () => {
    const state = await suspended();
    expect(state).toMatchObject({ pending: { output: { schema: { type: 'object' }, repairs: 0 } } });
    server.enqueue({ json: { paid: 'five' } }, { json: { paid: 5, note: 'rent' } });
    const revived = new Agent({ model: model(), tools: [transfer], state });
    const value = await revived.call(confirm, { output: Payment });

    expect(value).toEqual({ paid: 5, note: 'rent' });
    expect(server.requests[1]!.body.response_format).toMatchObject({ type: 'json_schema' });
    expect(JSON.stringify(server.requests[2]!.body.messages!.at(-1)!.content)).toMatch(/paid/);
  });

  it('a resume without the schema, or with another one, is refused before anything changes', async () => {
    const state = await suspended();
    const revived = new Agent({ model: model(), tools: [transfer], state });
    await expect(lastValueFrom(revived.reply(confirm))).rejects.toThrow(
      /without its output schema.*reply\(resume, \{ output: schema \}\)/,
    );
    await expect(lastValueFrom(revived.reply(confirm, { output: z.object({ other: z.string() }) }))).rejects.toThrow(
      /different one.*Pass the same schema/,
    );
    expect(revived.pending?.confirm).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });
});
