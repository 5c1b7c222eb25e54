// injectAgentChat against a real rxscope SSE endpoint on loopback (createAgentSseHandler over an
// Agent with a scripted model), in TestBed without zone.js.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestBed } from '@angular/core/testing';
import type { AgentEvent } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { injectAgentChat, type AgentChat } from '../agent-chat.js';
import { provideRxscope, type RxscopeConfig } from '../provide-rxscope.js';
import { startChatServer, until, type ChatServer } from './chat-server.js';

function chatAt(url: string, config: Partial<RxscopeConfig> = {}): AgentChat {
  TestBed.configureTestingModule({ providers: [provideRxscope({ url, transport: 'sse', ...config })] });
  return TestBed.runInInjectionContext(() => injectAgentChat());
}

describe('injectAgentChat over SSE', () => {
  let server: ChatServer | undefined;
  afterEach(async () => {
    TestBed.resetTestingModule();
    await server?.close();
    server = undefined;
  });

  it('streams a reply: the text grows while it streams, then the message, usage and status', async () => {
    const model = new ScriptedChatModel(
      [{ text: ['Hello ', 'from ', 'the ', 'agent.'], usage: { inputTokens: 12, outputTokens: 4 } }],
      { delayMs: 40 },
    );
    server = await startChatServer(model);
    const chat = chatAt(server.url);
    const events: AgentEvent[] = [];
    chat.events$.subscribe((e) => events.push(e));
    chat.send('Hi');
    expect(chat.status()).toBe('streaming');
    await until(() => chat.streamingText().length > 0, 'the first text');
    expect('Hello from the agent.'.startsWith(chat.streamingText())).toBe(true);
    expect(chat.streamingText()).not.toBe('Hello from the agent.');
    await until(() => chat.status() !== 'streaming', 'the end of the reply');
    expect(chat.status()).toBe('idle');
    expect(chat.streamingText()).toBe('');
    expect(chat.messages().map((m) => [m.role, m.text])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello from the agent.'],
    ]);
    expect(chat.messages()[1]!.finishReason).toBe('completed');
    expect(chat.usage()).toEqual({ inputTokens: 12, outputTokens: 4 });
    expect(events[0]!.type).toBe('REPLY_START');
    expect(events.at(-1)!.type).toBe('REPLY_END');
    expect(server.bodies).toEqual([{ message: 'Hi' }]);
  });

  it("folds the agent's shared state into state(): a snapshot, then a patch, over the real SSE endpoint", async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'track_order', input: { orderId: '7' } }] },
      { text: ['Shipped.'] },
    ]);
    server = await startChatServer(model);
    const chat = chatAt(server.url);
    const types: string[] = [];
    chat.events$.subscribe((e) => types.push(e.type));
    chat.send('Where is order 7?');
    await until(() => chat.status() !== 'streaming', 'the end of the reply');
    expect(chat.status()).toBe('idle');
    expect(types.filter((t) => t.startsWith('STATE_'))).toEqual(['STATE_SNAPSHOT', 'STATE_DELTA']);
    expect(chat.state()).toEqual({ order: '7', status: 'shipped' });
    expect(chat.stateStale()).toBe(false);
  });

  it('waits for a confirmation; confirm() resumes the same reply and the tool runs', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'refund_order', input: { orderId: '42' } }] },
      { text: ['Refunded.'] },
    ]);
    server = await startChatServer(model);
    const chat = chatAt(server.url);
    chat.send('Refund order 42');
    await until(() => chat.status() === 'awaiting_confirmation', 'the confirmation');
    const [pending] = chat.pendingConfirmations();
    expect(pending).toMatchObject({ name: 'refund_order', input: { orderId: '42' } });
    expect(chat.toolCalls()).toEqual([
      expect.objectContaining({ name: 'refund_order', status: 'awaiting_confirmation' }),
    ]);
    expect(server.refunds).toEqual([]);

    chat.confirm(pending!.toolCallId);
    await until(() => chat.status() === 'idle', 'the resumed reply');
    expect(chat.pendingConfirmations()).toEqual([]);
    expect(chat.toolCalls()).toEqual([
      expect.objectContaining({ name: 'refund_order', status: 'success', output: 'Refunded order 42.' }),
    ]);
    expect(server.refunds).toEqual(['42']);
    expect(chat.messages().map((m) => [m.role, m.text])).toEqual([
      ['user', 'Refund order 42'],
      ['assistant', 'Refunded.'],
    ]);
    expect(server.bodies[1]).toEqual({ confirmations: [{ toolCallId: pending!.toolCallId, confirmed: true }] });
  });

  it('sends reject() and edit() answers together once every pending call has one', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'refund_order', input: { orderId: '1' } },
          { name: 'refund_order', input: { orderId: '2' } },
        ],
      },
      { text: ['One refund done.'] },
    ]);
    server = await startChatServer(model);
    const chat = chatAt(server.url);
    chat.send('Refund 1 and 2');
    await until(() => chat.pendingConfirmations().length === 2, 'two confirmations');
    const [first, second] = chat.pendingConfirmations();
    chat.reject(first!.toolCallId, 'Not this one.');
    expect(server.bodies).toHaveLength(1); // one call is still unanswered
    expect(chat.pendingConfirmations()[0]!.answer).toEqual({
      toolCallId: first!.toolCallId,
      confirmed: false,
      reason: 'Not this one.',
    });
    chat.edit(second!.toolCallId, { orderId: '3' });
    await until(() => chat.status() === 'idle', 'the resumed reply');
    expect(server.refunds).toEqual(['3']);
    expect(chat.toolCalls().map((c) => c.status)).toEqual(['denied', 'success']);
  });

  it('stop() unsubscribes: the server sees the request closed and the model request aborted', async () => {
    const model = new ScriptedChatModel([{ text: Array.from({ length: 200 }, (_, i) => `w${i} `) }], { delayMs: 20 });
    server = await startChatServer(model);
    const chat = chatAt(server.url);
    chat.send('Tell me a long story');
    await until(() => chat.streamingText().length > 0, 'the first words');
    chat.stop();
    expect(chat.status()).toBe('idle');
    expect(chat.messages()[1]!.finishReason).toBe('interrupted');
    const s = server;
    await until(() => s.outcomes.includes('client_closed'), 'the server to see the client go');
    await until(() => model.requests[0]!.signal.aborted, 'the model request to be aborted');
    const words = chat.messages()[1]!.text;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(chat.messages()[1]!.text).toBe(words); // nothing arrives after stop()
  });

  it('destroying the injector stops the reply the same way', async () => {
    const model = new ScriptedChatModel([{ text: Array.from({ length: 200 }, (_, i) => `w${i} `) }], { delayMs: 20 });
    server = await startChatServer(model);
    const chat = chatAt(server.url);
    chat.send('Tell me a long story');
    await until(() => chat.streamingText().length > 0, 'the first words');
    TestBed.resetTestingModule();
    const s = server;
    await until(() => s.outcomes.includes('client_closed'), 'the server to see the client go');
  });

  it('regenerate() drops the last reply and answers the last user message anew', async () => {
    const model = new ScriptedChatModel([{ text: ['First answer.'] }, { text: ['Second answer.'] }]);
    server = await startChatServer(model);
    const chat = chatAt(server.url);
    chat.send('Hi');
    await until(() => chat.status() === 'idle', 'the first reply');
    chat.regenerate();
    await until(
      () => chat.status() === 'idle' && chat.messages().length === 2 && chat.messages()[1]!.text !== '',
      'the second reply',
    );
    expect(chat.messages().map((m) => m.text)).toEqual(['Hi', 'Second answer.']);
    expect(server.bodies[1]).toEqual({ message: 'Hi', regenerate: true });
    // The server rewound the conversation: the model saw the question once, not twice.
    const userMessages = model.requests[1]!.messages.filter((m) => m.role === 'user');
    expect(userMessages).toHaveLength(1);
  });

  it('sends the configured headers, a function read per request', async () => {
    const seen: (string | undefined)[] = [];
    const plain = createServer((req, res) => {
      seen.push(req.headers['x-session-id'] as string | undefined);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    let n = 0;
    const chat = chatAt(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`, {
      headers: () => ({ 'x-session-id': `s${++n}` }),
    });
    try {
      chat.send('a');
      await until(() => chat.status() === 'error', 'the error');
      chat.send('b');
      await until(() => seen.length === 2 && chat.status() === 'error', 'the second error');
      expect(seen).toEqual(['s1', 's2']);
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});

describe('injectAgentChat pointed at a URL that is not an rxscope endpoint', () => {
  let server: Server;
  let url: string;
  let answer: (res: import('node:http').ServerResponse) => void;
  beforeEach(async () => {
    server = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterEach(async () => {
    TestBed.resetTestingModule();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function errorFor(config: Partial<RxscopeConfig> = {}) {
    const chat = chatAt(url, config);
    chat.send('Hi');
    await until(() => chat.status() !== 'streaming', 'the chat to give up');
    expect(chat.status()).toBe('error');
    return chat.error()!;
  }

  it('an HTML page: a not_event_stream error naming the content type', async () => {
    answer = (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>Welcome</p>');
    expect(await errorFor()).toMatchObject({ code: 'not_event_stream', message: expect.stringContaining('text/html') });
  });

  it('a 404: an http error with the status', async () => {
    answer = (res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    expect(await errorFor()).toMatchObject({ code: 'http', message: expect.stringContaining('404') });
  });

  it('an event stream of something else: an invalid_event error', async () => {
    answer = (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"hello":"world"}\n\n');
    expect(await errorFor()).toMatchObject({ code: 'invalid_event' });
  });

  it('an event stream that ends without a reply: stream_ended_early', async () => {
    answer = (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(': nothing here\n\n');
    expect(await errorFor()).toMatchObject({ code: 'stream_ended_early' });
  });

  it('a server that never answers: no_first_event after firstEventTimeoutMs, and the request is closed', async () => {
    let closed = false;
    answer = (res) => res.on('close', () => (closed = true)); // holds the request open
    const started = Date.now();
    expect(await errorFor({ firstEventTimeoutMs: 300 })).toMatchObject({
      code: 'no_first_event',
      message: expect.stringContaining('300 ms'),
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    await until(() => closed, 'the request to be closed');
  });
});
