// The SSE handler over real HTTP: frames on the wire, heartbeats, HTTP errors before the stream,
// the error end during it, back-pressure, and cancellation when the client goes away.
import { request as httpRequest } from 'node:http';
import { concat, Observable, takeWhile, throwError } from 'rxjs';
import { z } from 'zod';
import { Agent, defineTool, type AgentEvent, type ReplyInput } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { assertReplyGrammar, ScriptedChatModel } from '../../testing/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { createAgentSseHandler, HttpError, streamAgentEvents, type StreamOutcome } from '../index.js';
import { eventsOf, listen, parseFrames, waitFor, type Listening } from './helpers.js';

const quiet = { onError: () => undefined };
const json = { 'content-type': 'application/json' };

describe('createAgentSseHandler: a reply per request', () => {
  let model: OpenAITestServer;
  let http: Listening | undefined;
  afterEach(async () => {
    await http?.close();
    await model?.close();
  });

  function chatHandler(agent: Agent, options: Partial<Parameters<typeof createAgentSseHandler>[0]> = {}) {
    return createAgentSseHandler({
      ...quiet,
      sessionId: 'one-conversation', // every request of these tests continues one conversation
      ...options,
      events: async (_req, { body }) => agent.reply((await body()) as ReplyInput),
    });
  }

  it('streams every event as one SSE message (id = event id, event = type, data = the event) and ends after REPLY_END', async () => {
    model = await startOpenAITestServer({ script: [{ text: ['Hel', 'lo ', 'there'] }] });
    const agent = new Agent({ model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url }) });
    http = await listen(chatHandler(agent, { retryMs: 1500, headers: { 'access-control-allow-origin': '*' } }));

    const res = await fetch(`${http.url}/chat`, { method: 'POST', headers: json, body: JSON.stringify('Hi') });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = await res.text();
    const frames = parseFrames(body);
    expect(frames[0]).toEqual({ retry: '1500' });
    const messages = frames.slice(1);
    for (const frame of messages) {
      const event = JSON.parse(frame.data!) as AgentEvent;
      expect(frame).toEqual({ id: event.id, event: event.type, data: JSON.stringify(event) });
    }
    const events = eventsOf(body);
    expect(assertReplyGrammar(events).finishReason).toBe('completed');
    expect(events.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('')).toBe('Hello there');
  });

  it('sends a heartbeat comment whenever the stream is idle for heartbeatMs', async () => {
    model = await startOpenAITestServer({ script: [{ text: ['a', 'b', 'c'], chunkDelayMs: 120 }] });
    const agent = new Agent({ model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url }) });
    http = await listen(chatHandler(agent, { heartbeatMs: 40 }));
    const body = await (await fetch(`${http.url}/chat`, { method: 'POST', headers: json, body: '"go"' })).text();
    const frames = parseFrames(body);
    const heartbeats = frames.filter((f) => f.comment === 'heartbeat');
    expect(heartbeats.length).toBeGreaterThanOrEqual(3);
    // Only comments: nothing a client would parse as an event.
    expect(heartbeats.every((f) => Object.keys(f).length === 1)).toBe(true);
    expect(assertReplyGrammar(eventsOf(body)).finishReason).toBe('completed');
  });

  it('answers an error raised before the stream with an HTTP error and a JSON body', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([]) });
    http = await listen(
      createAgentSseHandler({
        ...quiet,
        shared: true, // one test client
        events: async (req, { body }) => {
          if (req.url === '/missing') throw new HttpError(404, 'No such session.', 'unknown_session');
          if (req.url === '/boom') throw new Error('database password is hunter2');
          return agent.reply((await body()) as ReplyInput);
        },
      }),
    );
    // A resume with nothing suspended: the agent refuses it before REPLY_START.
    const refused = await fetch(`${http.url}/chat`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ type: 'USER_CONFIRM_RESULT', results: [] }),
    });
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await refused.json()).toEqual({
      error: {
        name: 'AgentUsageError',
        code: 'invalid_use',
        message: expect.stringContaining('has no suspended reply') as string,
      },
    });

    // A body that is no reply input at all, passed straight through: 400, nothing stored.
    const notAnInput = await fetch(`${http.url}/chat`, { method: 'POST', headers: json, body: '{}' });
    expect(notAnInput.status).toBe(400);
    expect(await notAnInput.json()).toMatchObject({ error: { name: 'AgentUsageError', code: 'invalid_input' } });

    const missing = await fetch(`${http.url}/missing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { name: 'HttpError', message: 'No such session.', code: 'unknown_session' },
    });

    const malformed = await fetch(`${http.url}/chat`, { method: 'POST', headers: json, body: '{"oops' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: 'invalid_json' } });

    // A body not declared as JSON (what a cross-site form or a text/plain fetch sends without a
    // CORS preflight) is refused before anything runs; a +json type is JSON.
    for (const [contentType, sent] of [
      ['text/plain;charset=UTF-8', 'content-type: text/plain;charset=UTF-8'],
      ['application/x-www-form-urlencoded', 'content-type: application/x-www-form-urlencoded'],
      ['multipart/form-data; boundary=x', 'content-type: multipart/form-data; boundary=x'],
    ]) {
      const res = await fetch(`${http.url}/chat`, {
        method: 'POST',
        headers: { 'content-type': contentType! },
        body: JSON.stringify('transfer everything'),
      });
      expect(res.status).toBe(415);
      expect(await res.json()).toEqual({
        error: {
          name: 'HttpError',
          code: 'unsupported_media_type',
          message: `The request body must be sent as application/json (got ${sent}).`,
        },
      });
    }
    const noType = await fetch(`${http.url}/chat`, { method: 'POST', body: new Blob(['"hi"']) });
    expect(noType.status).toBe(415);
    expect(((await noType.json()) as { error: { message: string } }).error.message).toContain('no content-type');
    expect(agent.context).toEqual([]);
    const vendorJson = await fetch(`${http.url}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' },
      body: '{}',
    });
    expect(vendorJson.status).toBe(400); // read as JSON: `{}` is no reply input

    // An unexpected failure is a 500 that does not leak its message.
    const boom = await fetch(`${http.url}/boom`);
    expect(boom.status).toBe(500);
    expect(await boom.text()).not.toContain('hunter2');
  });

  it('ends a stream that fails mid-reply with the protocol error end: open blocks closed, REPLY_END error, then close', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([{ text: ['one ', 'two ', 'three'] }], { delayMs: 5 }) });
    const errors: unknown[] = [];
    const outcomes: StreamOutcome[] = [];
    http = await listen(async (req, res) => {
      const failing = concat(
        agent.reply('go').pipe(takeWhile((e) => !(e.type === 'TEXT_BLOCK_DELTA' && e.delta === 'two '), true)),
        throwError(() => new Error('the event bus went away')),
      );
      outcomes.push(await streamAgentEvents(res, failing, { onError: (e) => errors.push(e) }));
    });
    const body = await (await fetch(http.url)).text();
    const frames = parseFrames(body);
    const events = eventsOf(body);
    const end = assertReplyGrammar(events);
    expect(end).toMatchObject({ finishReason: 'error', error: { message: 'the event bus went away' } });
    expect(events.slice(-3).map((e) => e.type)).toEqual(['TEXT_BLOCK_END', 'MODEL_CALL_END', 'REPLY_END']);
    // The synthesised events carry no SSE id: they are in no replay log.
    expect(frames.slice(-3).every((f) => f.id === undefined && f.event !== undefined)).toBe(true);
    expect(outcomes).toEqual(['error']);
    expect(errors).toHaveLength(1);
  });

  it('cancels the reply when the client disconnects: the model request is aborted and nothing stays open', async () => {
    model = await startOpenAITestServer({ script: [{ text: ['Once ', 'upon ', 'a time'], fault: 'stall' }] });
    const agent = new Agent({ model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url }) });
    const outcomes: StreamOutcome[] = [];
    const handler = chatHandler(agent);
    http = await listen(async (req, res) => outcomes.push(await handler(req, res)));

    const controller = new AbortController();
    const res = await fetch(`${http.url}/chat`, {
      method: 'POST',
      headers: json,
      body: '"Tell me a story"',
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('TEXT_BLOCK_DELTA')) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();

    await waitFor(() => model.requests[0]?.clientClosed === true, 3000, 'the model server to see the client close');
    await model.waitForConnections(0);
    await waitFor(() => outcomes.length === 1);
    expect(outcomes).toEqual(['client_closed']);
    expect(agent.busy).toBe(false);
    // The cut-off reply is stored consistently (text kept).
    expect(agent.context.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Once ' }] });
  });

  it('respects back-pressure: no write while the socket waits for drain, every event delivered in order', async () => {
    const chunk = 'x'.repeat(4096);
    const deltas = Array.from({ length: 1500 }, (_, i) => `${i}:${chunk}`);
    const agent = new Agent({ model: new ScriptedChatModel([{ text: deltas }]) });
    const writes = { refused: 0, whileWaiting: 0, drains: 0 };
    const outcomes: StreamOutcome[] = [];
    http = await listen(async (req, res) => {
      const write = res.write.bind(res) as (chunk: string) => boolean;
      res.write = ((frame: string) => {
        if (res.writableNeedDrain) writes.whileWaiting++;
        const ok = write(frame);
        if (!ok) writes.refused++;
        return ok;
      }) as typeof res.write;
      res.on('drain', () => writes.drains++);
      outcomes.push(await streamAgentEvents(res, agent.reply('go'), quiet));
    });

    // A client that reads nothing for a while, then everything.
    const received = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${http!.url}/`, (res) => {
        res.pause();
        setTimeout(() => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve(text));
          res.resume();
        }, 300);
      });
      req.on('error', reject);
      req.end();
    });
    const events = eventsOf(received);
    expect(assertReplyGrammar(events).finishReason).toBe('completed');
    expect(events.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : []))).toEqual(deltas);
    expect(writes.refused).toBeGreaterThan(0);
    expect(writes.drains).toBeGreaterThan(0);
    expect(writes.whileWaiting).toBe(0);
    expect(outcomes).toEqual(['completed']);
  });

  it('drops a client that stops reading past maxQueuedBytes, which cancels its reply', async () => {
    let aborted = false;
    const endless = new Observable<AgentEvent>((subscriber) => {
      const base = { replyId: 'r1', source: 'a', createdAt: Date.now() };
      subscriber.next({ ...base, id: 'e0', type: 'REPLY_START' });
      let i = 0;
      const timer = setInterval(() => {
        for (let k = 0; k < 50; k++)
          subscriber.next({ ...base, id: `e${++i}`, type: 'CUSTOM', name: 'blob', value: 'y'.repeat(8192) });
      }, 1);
      return () => {
        aborted = true;
        clearInterval(timer);
      };
    });
    const outcomes: StreamOutcome[] = [];
    http = await listen(async (req, res) =>
      outcomes.push(await streamAgentEvents(res, endless, { ...quiet, maxQueuedBytes: 256 * 1024 })),
    );
    const closed = new Promise<void>((resolve) => {
      const req = httpRequest(`${http!.url}/`, (res) => {
        res.pause(); // never reads
        res.on('close', () => resolve());
        res.on('error', () => resolve());
      });
      req.on('error', () => resolve());
      req.end();
    });
    await closed;
    await waitFor(() => outcomes.length === 1);
    expect(outcomes).toEqual(['overflow']);
    expect(aborted).toBe(true);
  });

  it('refuses a resume that does not answer the pending calls with a 409, and the same stream continues the reply when answered', async () => {
    const transfer = defineTool({
      name: 'transfer',
      description: 'Moves money',
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: ({ amount }) => `moved ${amount}`,
    });
    const agent = new Agent({
      model: new ScriptedChatModel([
        { toolCalls: [{ id: 't1', name: 'transfer', input: { amount: 5 } }] },
        { text: 'Moved.' },
      ]),
      tools: [transfer],
    });
    http = await listen(chatHandler(agent));
    const post = (body: unknown) =>
      fetch(`${http!.url}/chat`, { method: 'POST', headers: json, body: JSON.stringify(body) });
    const first = eventsOf(await (await post('pay 5')).text());
    expect(assertReplyGrammar(first).finishReason).toBe('awaiting_confirmation');
    const wrong = await post({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 'nope', confirmed: true }] });
    expect(wrong.status).toBe(409);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toContain(
      'unknown tool call id "nope"',
    );
    const second = eventsOf(
      await (await post({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 't1', confirmed: true }] })).text(),
    );
    expect(second[0]).toMatchObject({ type: 'REPLY_START', replyId: first[0]!.replyId });
    expect(assertReplyGrammar(second).finishReason).toBe('completed');
  });
});
