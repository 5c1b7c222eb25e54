// The browser client against the real Node SSE server (fetch + eventsource-parser on both ends
// of a real socket): events validated, operators, cancellation, errors and reconnection.
import type { ServerResponse } from 'node:http';
import { firstValueFrom, from, lastValueFrom, take, tap, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, defineTool, type AgentEvent, type PendingToolCall, type ReplyInput } from '../index.js';
import { OpenAIChatModel } from '../model/openai/index.js';
import { createAgentSseHandler, type StreamOutcome } from '../node/index.js';
import { eventsOf, listen, waitFor, type Listening } from '../node/__tests__/helpers.js';
import { ScriptedChatModel } from '../testing/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../testing/node/index.js';
import { toMsg } from '../operators/to-msg.js';
import { AgentStreamError } from './agent-stream-error.js';
import { fromAgentEventStream } from './from-agent-event-stream.js';
import { pendingConfirmations } from '../operators/pending-confirmations.js';
import { encodeAgentEvent, encodeServerSentComment } from './sse-encode.js';
import { toText } from '../operators/to-text.js';

const quiet = { onError: () => undefined };

function event(id: string, fields: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent {
  return { id, replyId: 'r1', source: 'assistant', createdAt: 1, ...fields } as AgentEvent;
}

function rawServer(write: (res: ServerResponse, lastEventId: string | undefined) => void): Promise<Listening> {
  return listen((req, res) => write(res, req.headers['last-event-id'] as string | undefined));
}

describe('fromAgentEventStream against the Node SSE handler', () => {
  let model: OpenAITestServer | undefined;
  let http: Listening | undefined;
  afterEach(async () => {
    await http?.close();
    await model?.close();
    http = undefined;
    model = undefined;
  });

  it('delivers the reply the server streamed, and folds into the message the agent stored', async () => {
    model = await startOpenAITestServer({ script: [{ thinking: 'Hmm.', text: ['The ', 'answer ', 'is 42.'] }] });
    const agent = new Agent({ model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url }) });
    const sent: AgentEvent[] = [];
    http = await listen(
      createAgentSseHandler({
        ...quiet,
        sessionId: 'one-conversation',
        heartbeatMs: 5,
        events: async (_req, { body }) => agent.reply((await body()) as ReplyInput).pipe(tap((e) => sent.push(e))),
      }),
    );
    const events$ = fromAgentEventStream(`${http.url}/chat`, {
      init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify('Question?') },
    });
    const received = await lastValueFrom(events$.pipe(toArray()));
    expect(received).toEqual(sent);
    expect(received.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });

    model.enqueue({ text: ['Second ', 'answer.'] });
    const texts = await lastValueFrom(
      fromAgentEventStream(`${http.url}/chat`, {
        init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify('Again?') },
      }).pipe(toText(), toArray()),
    );
    expect(texts).toEqual(['Second ', 'Second answer.']);

    model.enqueue({ text: ['Third.'] });
    const msg = await lastValueFrom(
      fromAgentEventStream(`${http.url}/chat`, {
        init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '"Once more"' },
      }).pipe(toMsg()),
    );
    expect(msg).toEqual(agent.context.at(-1));
  });

  it('is cold and cancellable: nothing is requested before subscribe, unsubscribing aborts the request and the reply', async () => {
    model = await startOpenAITestServer({ script: [{ text: ['Once ', 'upon'], fault: 'stall' }] });
    const agent = new Agent({ model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url }) });
    const outcomes: StreamOutcome[] = [];
    const handler = createAgentSseHandler({ ...quiet, events: () => agent.reply('story') });
    http = await listen(async (req, res) => outcomes.push(await handler(req, res)));

    const events$ = fromAgentEventStream(http.url);
    await new Promise((r) => setTimeout(r, 50));
    expect(model.requests).toHaveLength(0);

    const first = await firstValueFrom(events$.pipe(toText()));
    expect(first).toBe('Once ');
    await waitFor(() => outcomes.length === 1, 3000, 'the handler to see the client go');
    expect(outcomes).toEqual(['client_closed']);
    await waitFor(() => model!.requests[0]?.clientClosed === true, 3000, 'the model request to be aborted');
    await model.waitForConnections(0);
  });

  it('fails with the signal reason when the signal aborts', async () => {
    http = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(encodeAgentEvent(event('e1', { type: 'REPLY_START' })));
    });
    const controller = new AbortController();
    const seen: AgentEvent[] = [];
    const done = new Promise<unknown>((resolve) =>
      fromAgentEventStream(http!.url, { signal: controller.signal }).subscribe({
        next: (e) => (seen.push(e), controller.abort(new Error('user left'))),
        error: resolve,
      }),
    );
    expect(await done).toEqual(new Error('user left'));
    expect(seen.map((e) => e.id)).toEqual(['e1']);
  });

  it('rejects data that is not an AgentEvent, naming the message', async () => {
    http = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(encodeServerSentComment('heartbeat'));
      res.write(encodeAgentEvent(event('e1', { type: 'REPLY_START' })));
      res.end('id: e2\nevent: NOPE\ndata: {"type":"NOPE","id":"e2"}\n\n');
    });
    const seen: AgentEvent[] = [];
    const error = await new Promise<unknown>((resolve) =>
      fromAgentEventStream(http!.url).subscribe({ next: (e) => seen.push(e), error: resolve }),
    );
    expect(seen.map((e) => e.type)).toEqual(['REPLY_START']);
    expect(error).toBeInstanceOf(AgentStreamError);
    expect(error).toMatchObject({ kind: 'invalid_event', details: { eventId: 'e2' } });
    expect((error as Error).message).toMatch(/SSE message "e2" is not an AgentEvent .*"type":"NOPE"/);
  });

  it('rejects data that is not JSON', async () => {
    http = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('id: e9\ndata: {not json\n\n');
    });
    await expect(lastValueFrom(fromAgentEventStream(http.url))).rejects.toThrow(
      'The data of SSE message "e9" is not JSON: {not json',
    );
  });

  it('turns an HTTP error into an AgentStreamError with status and body, and refuses a response that is not an event stream', async () => {
    http = await rawServer((res) => {
      res.writeHead(409, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"a reply is running"}}');
    });
    const error = await lastValueFrom(fromAgentEventStream(http.url)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentStreamError);
    expect(error).toMatchObject({
      kind: 'http',
      status: 409,
      retryable: false,
      details: { body: '{"error":{"message":"a reply is running"}}' },
    });
    expect((error as Error).message).toContain('HTTP 409');
    await http.close();

    http = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html></html>');
    });
    await expect(lastValueFrom(fromAgentEventStream(http.url))).rejects.toMatchObject({ kind: 'not_event_stream' });
  });

  it('reads a Response that was already fetched (once)', async () => {
    http = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(encodeAgentEvent(event('e1', { type: 'REPLY_START' })));
      res.end(encodeAgentEvent(event('e2', { type: 'REPLY_END', finishReason: 'completed' })));
    });
    const response = await fetch(http.url);
    const events = await lastValueFrom(fromAgentEventStream(response).pipe(toArray()));
    expect(events.map((e) => e.id)).toEqual(['e1', 'e2']);
  });

  it('reconnects after a dropped connection with Last-Event-ID and the server retry delay, getting each event once', async () => {
    const all = [
      event('e1', { type: 'REPLY_START' }),
      event('e2', { type: 'TEXT_BLOCK_START', blockId: 'b' }),
      event('e3', { type: 'TEXT_BLOCK_DELTA', blockId: 'b', delta: 'Hi' }),
      event('e4', { type: 'TEXT_BLOCK_END', blockId: 'b' }),
      event('e5', { type: 'REPLY_END', finishReason: 'completed' }),
    ];
    const asked: (string | undefined)[] = [];
    http = await rawServer((res, lastEventId) => {
      asked.push(lastEventId);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 20\n\n');
      const from = lastEventId ? all.findIndex((e) => e.id === lastEventId) + 1 : 0;
      if (asked.length === 1) {
        for (const e of all.slice(0, 3)) res.write(encodeAgentEvent(e));
        setTimeout(() => res.destroy(), 20); // the network drops
        return;
      }
      for (const e of all.slice(from)) res.write(encodeAgentEvent(e));
      res.end();
    });
    const started = Date.now();
    const events = await lastValueFrom(fromAgentEventStream(http.url, { reconnect: true }).pipe(toArray()));
    expect(events.map((e) => e.id)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect(asked).toEqual([undefined, 'e3']);
    expect(Date.now() - started).toBeLessThan(1000); // the server's retry (20 ms), not the 1 s default
  });

  it('gives up after the reconnection attempts, and never reconnects on a 4xx', async () => {
    let requests = 0;
    http = await rawServer((res) => {
      requests++;
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('busy');
    });
    await expect(
      lastValueFrom(fromAgentEventStream(http.url, { reconnect: { attempts: 2, delayMs: 5 } })),
    ).rejects.toMatchObject({ status: 503 });
    expect(requests).toBe(3);
    await http.close();

    requests = 0;
    http = await rawServer((res) => {
      requests++;
      res.writeHead(404);
      res.end();
    });
    await expect(lastValueFrom(fromAgentEventStream(http.url, { reconnect: { delayMs: 5 } }))).rejects.toMatchObject({
      status: 404,
    });
    expect(requests).toBe(1);
  });

  it('pendingConfirmations() follows the calls waiting for a person across the ask and the resume', async () => {
    const transfer = defineTool({
      name: 'transfer',
      description: 'Moves money',
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: ({ amount }) => `moved ${amount}`,
    });
    const agent = new Agent({
      model: new ScriptedChatModel([
        {
          toolCalls: [
            { id: 't1', name: 'transfer', input: { amount: 5 } },
            { id: 't2', name: 'transfer', input: { amount: 7 } },
          ],
        },
        { text: 'Done.' },
      ]),
      tools: [transfer],
    });
    http = await listen(
      createAgentSseHandler({
        ...quiet,
        sessionId: 'one-conversation',
        events: async (_req, { body }) => agent.reply((await body()) as ReplyInput),
      }),
    );
    const post = (body: unknown) =>
      fromAgentEventStream(http!.url, {
        init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      });

    const asked = await lastValueFrom(post('pay').pipe(pendingConfirmations(), toArray()));
    expect(asked.map((calls) => calls.map((c) => c.id))).toEqual([[], ['t1', 't2']]);
    const waiting: readonly PendingToolCall[] = asked.at(-1)!;
    expect(waiting[0]).toMatchObject({ name: 'transfer', input: { amount: 5 } });

    const answered = await lastValueFrom(
      post({
        type: 'USER_CONFIRM_RESULT',
        results: waiting.map((c) => ({ toolCallId: c.id, confirmed: c.id === 't1' })),
      }).pipe(pendingConfirmations(), take(1), toArray()),
    );
    expect(answered).toEqual([[]]);
  });
});

describe('operators on a session stream', () => {
  it('toText() restarts with each new reply, keeps a resumed reply, and skips subagent text', () => {
    const events = [
      event('1', { type: 'REPLY_START' }),
      event('2', { type: 'TEXT_BLOCK_DELTA', blockId: 'b', delta: 'Hel' }),
      event('3', { type: 'TEXT_BLOCK_DELTA', blockId: 'b', delta: 'lo' }),
      event('4', { type: 'TEXT_BLOCK_DELTA', blockId: 's', delta: 'sub!', source: 'helper', replyId: 'r9' }),
      event('5', { type: 'REPLY_END', finishReason: 'awaiting_confirmation' }),
      event('6', { type: 'REPLY_START' }),
      event('7', { type: 'TEXT_BLOCK_DELTA', blockId: 'c', delta: ' again' }),
      event('8', { type: 'REPLY_START', replyId: 'r2' }),
      event('9', { type: 'TEXT_BLOCK_DELTA', blockId: 'd', delta: 'New', replyId: 'r2' }),
    ];
    const out: string[] = [];
    from(events)
      .pipe(toText())
      .subscribe((t) => out.push(t));
    expect(out).toEqual(['Hel', 'Hello', 'Hello again', 'New']);
  });

  it('pendingConfirmations() drops calls rejected by a new message and calls that got a result', () => {
    const call = (id: string): PendingToolCall => ({ id, name: 'x', input: {} });
    const events = [
      event('1', { type: 'REQUIRE_USER_CONFIRM', toolCalls: [call('a'), call('b')] }),
      event('2', { type: 'TOOL_RESULT_END', blockId: 'k', toolCallId: 'a', status: 'denied', output: [] }),
      event('3', { type: 'CUSTOM', name: 'pending_calls_rejected', value: { replyId: 'r1', toolCallIds: ['b'] } }),
      event('4', { type: 'CUSTOM', name: 'unrelated', value: null }),
    ];
    const out: string[][] = [];
    from(events)
      .pipe(pendingConfirmations())
      .subscribe((calls) => out.push(calls.map((c) => c.id)));
    expect(out).toEqual([[], ['a', 'b'], ['b'], []]);
  });
});

describe('events folded from a raw body', () => {
  it('eventsOf helper agrees with the client', () => {
    expect(eventsOf(encodeAgentEvent(event('x', { type: 'REPLY_START' })))).toEqual([
      event('x', { type: 'REPLY_START' }),
    ]);
  });
});
