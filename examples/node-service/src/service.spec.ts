// Drives the node-service over real HTTP as the Angular app does: open the session stream, POST
// a message, confirm a refund, cancel a long reply (the offline model's HTTP request is aborted),
// reconnect with Last-Event-ID; plus CORS, static files and errors. The last test runs the built
// program as a child process.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromAgentEventStream, pendingConfirmations, toText, type AgentEvent } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { filter, firstValueFrom, lastValueFrom, take, takeWhile, toArray } from 'rxjs';
import { startOfflineModel } from './offline.js';
import { startService, type RunningService } from './service.js';

const ROOT = join(__dirname, '..', '..', '..');
const untilEnd = takeWhile((e: AgentEvent) => e.type !== 'REPLY_END', true);

describe('node-service over HTTP (offline scripted model)', () => {
  let offline: OpenAITestServer;
  let service: RunningService;
  let staticDir: string;
  beforeAll(async () => {
    staticDir = await mkdtemp(join(tmpdir(), 'node-service-static-'));
    await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>chat</title><app-root></app-root>');
    await writeFile(join(staticDir, 'main-ABCDEF12.js'), 'console.log("app")');
    offline = await startOfflineModel();
    service = await startService({
      model: new OpenAIChatModel({ model: 'offline-scripted', apiKey: 'offline', baseURL: offline.url }),
      modelLabel: 'offline',
      modelRequests: () => offline.requests,
      port: 0,
      staticDir,
      corsOrigins: ['http://localhost:4200'],
      heartbeatMs: 500,
    });
  });
  afterAll(async () => {
    await service?.close();
    await offline?.close();
    await rm(staticDir, { recursive: true, force: true });
  });

  const api = (path: string, init?: RequestInit) => fetch(`${service.url}${path}`, init);
  const post = async (path: string, body?: unknown) => {
    const res = await api(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const events = (id: string, lastEventId?: string) =>
    fromAgentEventStream(`${service.url}/api/sessions/${id}/events`, lastEventId ? { lastEventId } : {});
  const opened = () => new Promise((r) => setTimeout(r, 100));

  it('creates a session, streams a reply to a message, and reports the conversation', async () => {
    const created = await post('/api/sessions');
    expect(created.status).toBe(201);
    const id = created.body['sessionId'] as string;
    const texts = lastValueFrom(events(id).pipe(untilEnd, toText(), toArray()));
    await opened();
    const sent = await post(`/api/sessions/${id}/messages`, { text: 'Hello there' });
    expect(sent).toEqual({ status: 202, body: { sessionId: id, replyId: expect.any(String) as string } });
    const grown = await texts;
    expect(grown.length).toBeGreaterThan(3); // streamed word by word
    expect(grown.at(-1)).toBe(
      'You said: "Hello there". I am the offline scripted model; set OPENAI_API_KEY to talk to a real one.',
    );

    const state = (await (await api(`/api/sessions/${id}`)).json()) as {
      running: boolean;
      pending: unknown;
      messages: { role: string }[];
    };
    expect(state).toMatchObject({ running: false, pending: null });
    expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('asks for confirmation of a refund, refuses a wrong answer, and runs the tool when confirmed', async () => {
    const id = 'refund-1';
    const asking = lastValueFrom(events(id).pipe(untilEnd, toArray()));
    await opened();
    await post(`/api/sessions/${id}/messages`, { text: 'Please refund order B-42, 25 EUR' });
    const first = await asking;
    const ask = first.find((e) => e.type === 'REQUIRE_USER_CONFIRM');
    expect(ask).toMatchObject({ toolCalls: [{ name: 'refund_order', input: { orderId: 'B-42', amount: 25 } }] });
    expect(first.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'awaiting_confirmation' });
    const state = (await (await api(`/api/sessions/${id}`)).json()) as { pending: { toolCalls: { id: string }[] } };
    const callId = state.pending.toolCalls[0]!.id;
    expect(
      await firstValueFrom(
        fromAgentEventStream(`${service.url}/api/sessions/${id}/events`, { lastEventId: first[0]!.id }).pipe(
          pendingConfirmations(),
          filter((c) => c.length > 0),
        ),
      ),
    ).toEqual([expect.objectContaining({ id: callId })]);

    const wrong = await post(`/api/sessions/${id}/confirmations`, {
      results: [{ toolCallId: 'nope', confirmed: true }],
    });
    expect(wrong.status).toBe(409);
    expect(wrong.body).toMatchObject({
      error: { name: 'AgentUsageError', message: expect.stringContaining('unknown tool call id "nope"') as string },
    });

    const resumed = lastValueFrom(events(id).pipe(untilEnd, toArray()));
    await opened();
    const ok = await post(`/api/sessions/${id}/confirmations`, { results: [{ toolCallId: callId, confirmed: true }] });
    expect(ok).toEqual({ status: 202, body: { sessionId: id, replyId: first[0]!.replyId } });
    const second = await resumed;
    expect(second.find((e) => e.type === 'TOOL_RESULT_END')).toMatchObject({ status: 'success', toolCallId: callId });
    expect(second.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(second.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('')).toBe(
      'Done: refunded 25 EUR on order B-42.',
    );
    expect(service.refunds).toEqual([expect.objectContaining({ orderId: 'B-42', amount: 25 })]);
  });

  /** Starts a refund of order `orderId` in session `id` and waits until it asks for confirmation. */
  const refundAwaitingConfirmation = async (id: string, orderId: string) => {
    const asking = lastValueFrom(events(id).pipe(untilEnd, toArray()));
    await opened();
    await post(`/api/sessions/${id}/messages`, { text: `Please refund order ${orderId}, 30 EUR` });
    const streamed = await asking;
    expect(streamed.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'awaiting_confirmation' });
    const callId = streamed.find((e) => e.type === 'REQUIRE_USER_CONFIRM')!;
    return { streamed, callId: callId.type === 'REQUIRE_USER_CONFIRM' ? callId.toolCalls[0]!.id : '' };
  };

  it('keeps the text streamed so far in GET /api/sessions/:id while a reply waits for confirmation (a reloaded page shows it)', async () => {
    const id = 'reload-1';
    const { streamed, callId } = await refundAwaitingConfirmation(id, 'C-7');
    const text = streamed.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('');
    expect(text).toBe('Let me refund that for you.');

    const state = (await (await api(`/api/sessions/${id}`)).json()) as {
      pending: { replyId: string };
      messages: { role: string; content: { type: string; text?: string; id?: string }[] }[];
    };
    expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const waiting = state.messages.at(-1)!;
    expect(waiting.content.filter((b) => b.type === 'text').map((b) => b.text)).toEqual([text]);
    expect(waiting.content.find((b) => b.type === 'tool_call')).toMatchObject({ id: callId });
    expect(state.pending.replyId).toBe(streamed[0]!.replyId);

    const resumed = lastValueFrom(events(id).pipe(untilEnd, toArray()));
    await opened();
    expect(
      (await post(`/api/sessions/${id}/confirmations`, { results: [{ toolCallId: callId, confirmed: false }] })).status,
    ).toBe(202);
    expect((await resumed).at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    const after = (await (await api(`/api/sessions/${id}`)).json()) as {
      pending: unknown;
      messages: { role: string }[];
    };
    expect(after).toMatchObject({ pending: null });
    expect(after.messages.map((m) => m.role)).toEqual(['user', 'assistant']); // the resumed reply, once
  });

  it('refuses an edited input that does not fit with a 409 in words for a person, then runs the corrected one', async () => {
    const id = 'edit-1';
    const { callId } = await refundAwaitingConfirmation(id, 'D-9');
    const bad = await post(`/api/sessions/${id}/confirmations`, {
      results: [{ toolCallId: callId, confirmed: true, input: { orderId: 'D-9', amount: 'ten' } }],
    });
    expect(bad).toEqual({
      status: 409,
      body: {
        error: {
          name: 'HttpError',
          code: 'invalid_edited_input',
          message:
            'The changes to refund_order cannot be used: amount: expected a number, got text. Correct them and confirm again, or reject the call.',
        },
      },
    });
    expect((bad.body['error'] as { message: string }).message).not.toMatch(/call the tool again|Invalid arguments/);
    const negative = await post(`/api/sessions/${id}/confirmations`, {
      results: [{ toolCallId: callId, confirmed: true, input: { orderId: 'D-9', amount: -5 } }],
    });
    expect(negative).toMatchObject({
      status: 409,
      body: { error: { message: expect.stringContaining('amount: expected number to be >0') as string } },
    });

    const resumed = lastValueFrom(events(id).pipe(untilEnd, toArray()));
    await opened();
    const ok = await post(`/api/sessions/${id}/confirmations`, {
      results: [{ toolCallId: callId, confirmed: true, input: { orderId: 'D-9', amount: 12 } }],
    });
    expect(ok.status).toBe(202);
    expect((await resumed).find((e) => e.type === 'TOOL_RESULT_END')).toMatchObject({
      status: 'success',
      toolCallId: callId,
    });
    expect(service.refunds).toContainEqual(expect.objectContaining({ orderId: 'D-9', amount: 12 }));
  });

  it('answers a confirmation body of the wrong shape with 400 naming the field, and the reply still waits', async () => {
    const id = 'shape-1';
    const { callId } = await refundAwaitingConfirmation(id, 'E-3');
    expect(
      await post(`/api/sessions/${id}/confirmations`, { results: [{ toolCallId: callId, confirmed: 'no' }] }),
    ).toEqual({
      status: 400,
      body: {
        error: {
          name: 'HttpError',
          code: 'invalid_body',
          message:
            'The body needs "results": [{toolCallId, confirmed: true or false, input?, reason?}]. Wrong: results.0.confirmed: expected true or false, got text.',
        },
      },
    });
    expect(await post(`/api/sessions/${id}/confirmations`, { results: { toolCallId: callId } })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('results: expected a list, got an object') as string } },
    });
    expect(await post(`/api/sessions/${id}/confirmations`)).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_body' } },
    });
    const state = (await (await api(`/api/sessions/${id}`)).json()) as { pending: { toolCalls: { id: string }[] } };
    expect(state.pending.toolCalls.map((c) => c.id)).toEqual([callId]);
    expect(service.refunds.filter((r) => r.orderId === 'E-3')).toEqual([]);
  });

  it('cancels a long reply: REPLY_END interrupted on the stream, the model request aborted, 409 while it ran', async () => {
    const id = 'story-1';
    const stream = lastValueFrom(events(id).pipe(untilEnd, toArray()));
    await opened();
    await post(`/api/sessions/${id}/messages`, { text: 'Tell me a story' });
    expect((await post(`/api/sessions/${id}/messages`, { text: 'and another' })).status).toBe(409);
    await new Promise((r) => setTimeout(r, 400));
    const diagnosticsBefore = (await (await api('/api/diagnostics')).json()) as { running: string[] };
    expect(diagnosticsBefore.running).toContain(id);
    expect(await post(`/api/sessions/${id}/cancel`)).toEqual({ status: 200, body: { cancelled: true } });
    const all = await stream;
    expect(all.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'interrupted' });
    const diagnostics = (await (await api('/api/diagnostics')).json()) as {
      model: string;
      modelRequests: { clientClosed: boolean }[];
      running: string[];
    };
    expect(diagnostics.model).toBe('offline');
    expect(diagnostics.modelRequests.at(-1)).toMatchObject({ clientClosed: true });
    expect(diagnostics.running).toEqual([]);
    expect(await post(`/api/sessions/${id}/cancel`)).toEqual({ status: 200, body: { cancelled: false } });
  });

  it('streams one reply per POST /chat (the @rxscope/angular protocol): a message, confirmations, a bad body', async () => {
    const chat = (id: string, body: unknown) =>
      lastValueFrom(
        fromAgentEventStream(`${service.url}/api/sessions/${id}/chat`, {
          init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
        }).pipe(toArray()),
      );
    const asking = await chat('chat-1', { message: 'Please refund order G-5, 40 EUR' });
    expect(asking.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'awaiting_confirmation' });
    const ask = asking.find((e) => e.type === 'REQUIRE_USER_CONFIRM');
    const callId = ask?.type === 'REQUIRE_USER_CONFIRM' ? ask.toolCalls[0]!.id : '';
    expect(service.refunds.filter((r) => r.orderId === 'G-5')).toEqual([]);

    const resumed = await chat('chat-1', { confirmations: [{ toolCallId: callId, confirmed: true }] });
    expect(resumed[0]).toMatchObject({ type: 'REPLY_START', replyId: asking[0]!.replyId });
    expect(resumed.find((e) => e.type === 'TOOL_RESULT_END')).toMatchObject({ status: 'success', toolCallId: callId });
    expect(resumed.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(service.refunds.filter((r) => r.orderId === 'G-5')).toEqual([expect.objectContaining({ amount: 40 })]);

    await expect(chat('chat-1', { text: 'hi' })).rejects.toMatchObject({
      status: 400,
      details: { body: expect.stringContaining('invalid_body') as string },
    });
    // regenerate: the last exchange answered anew, not a second copy of the question.
    await chat('chat-2', { message: 'hello' });
    const again = await chat('chat-2', { message: 'hello', regenerate: true });
    expect(again.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    const conversation = (await (await api('/api/sessions/chat-2')).json()) as { messages: { role: string }[] };
    expect(conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const diagnostics = (await (await api('/api/diagnostics')).json()) as { running: string[] };
    expect(diagnostics.running).toEqual([]);
  });

  it('replays what a reconnecting client missed (Last-Event-ID header or ?lastEventId=)', async () => {
    const id = 'reconnect-1';
    const witness = lastValueFrom(service.sessions.events(id).pipe(untilEnd, toArray()));
    const firstFew = firstValueFrom(events(id).pipe(take(4), toArray()));
    await opened();
    await post(`/api/sessions/${id}/messages`, {
      text: 'Say something long enough to reconnect in the middle of it, please',
    });
    const seen = await firstFew;
    const all = await witness;
    const missed = all.slice(all.findIndex((e) => e.id === seen[3]!.id) + 1);
    const viaQuery = await firstValueFrom(
      fromAgentEventStream(
        `${service.url}/api/sessions/${id}/events?lastEventId=${encodeURIComponent(seen[3]!.id)}`,
      ).pipe(take(missed.length), toArray()),
    );
    expect(viaQuery).toEqual(missed);
    expect(await firstValueFrom(events(id, seen[3]!.id).pipe(take(missed.length), toArray()))).toEqual(missed);
  });

  it('allows the dev origin by CORS (preflight included), serves static files with an index.html fallback, and answers errors as JSON', async () => {
    const preflight = await api('/api/sessions/x/messages', {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:4200',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:4200');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('last-event-id');
    const simple = await api('/api/diagnostics', { headers: { origin: 'http://localhost:4200' } });
    expect(simple.headers.get('access-control-allow-origin')).toBe('http://localhost:4200');
    const other = await api('/api/diagnostics', { headers: { origin: 'http://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const sse = await api('/api/sessions/cors-1/events', { headers: { origin: 'http://localhost:4200' } });
    expect(sse.headers.get('access-control-allow-origin')).toBe('http://localhost:4200');
    await sse.body!.cancel();

    const index = await api('/');
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await index.text()).toContain('<app-root>');
    const asset = await api('/main-ABCDEF12.js');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(await (await api('/chat/some/route')).text()).toContain('<app-root>');
    expect((await api('/../../etc/passwd')).status).not.toBe(500);

    expect((await post('/api/sessions/bad id!/messages', { text: 'x' })).status).toBe(400);
    expect(await post('/api/sessions/s/messages', {})).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_body' } },
    });
    expect(
      await post('/api/sessions/s/confirmations', { results: [{ toolCallId: 'a', confirmed: true }] }),
    ).toMatchObject({
      status: 409,
      body: { error: { message: expect.stringContaining('no suspended reply') as string } },
    });
    expect((await api('/api/nothing')).status).toBe(404);

    // What a cross-site form (or a text/plain fetch, sent without a preflight) posts starts nothing.
    for (const path of ['/api/sessions/csrf-1/messages', '/api/sessions/csrf-1/confirmations']) {
      const forged = await api(path, {
        method: 'POST',
        headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
        body: JSON.stringify({ text: 'refund everything', results: [{ toolCallId: 'a', confirmed: true }] }),
      });
      expect(forged.status).toBe(415);
      expect(await forged.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
    }
    expect((await api('/api/sessions/csrf-1')).ok).toBe(true);
    expect(((await (await api('/api/sessions/csrf-1')).json()) as { messages: unknown[] }).messages).toEqual([]);
  });
});

describe('node-service: two users', () => {
  it("never sends Alice's message in Bob's model request, and answers Bob while Alice's reply is still open", async () => {
    let releaseAlice!: () => void;
    const aliceHeld = new Promise<void>((resolve) => (releaseAlice = resolve));
    const modelServer = await startOpenAITestServer({
      handler: async (request) => {
        if (JSON.stringify(request.body.messages).includes('4111')) {
          await aliceHeld; // Alice's reply stays open at the model until the test lets it go
          return { text: 'Noted.' };
        }
        return { text: 'Hello Bob.' };
      },
    });
    const service = await startService({
      model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: modelServer.url }),
      modelLabel: 'test',
      port: 0,
      staticDir: tmpdir(),
      corsOrigins: [],
    });
    const newSession = async () => {
      const res = await fetch(`${service.url}/api/sessions`, { method: 'POST' });
      return ((await res.json()) as { sessionId: string }).sessionId;
    };
    // Opens the session's stream, then sends the message: resolves with the reply's events.
    const chatAs = async (id: string, text: string) => {
      const reply = lastValueFrom(
        fromAgentEventStream(`${service.url}/api/sessions/${id}/events`).pipe(untilEnd, toArray()),
      );
      await new Promise((r) => setTimeout(r, 100));
      const sent = await fetch(`${service.url}/api/sessions/${id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text }),
      });
      expect(sent.status).toBe(202);
      return reply;
    };
    try {
      const alice = chatAs(await newSession(), 'My card number is 4111 1111 1111 1111.');
      while (modelServer.requests.length < 1) await new Promise((r) => setTimeout(r, 10));
      const bob = await Promise.race([
        chatAs(await newSession(), 'What did the previous user tell you?'),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("Bob's reply waited for Alice's")), 5000)),
      ]);
      expect(bob.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
      expect(modelServer.requests).toHaveLength(2);
      expect(modelServer.requests[0]!.completed).toBe(false); // Alice's reply is still open
      expect(JSON.stringify(modelServer.requests[1]!.body)).not.toContain('4111');
      releaseAlice();
      expect((await alice).at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    } finally {
      releaseAlice();
      await service.close();
      await modelServer.close();
    }
  });
});

describe('node-service program', () => {
  beforeAll(() => {
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'examples/node-service'],
      { cwd: ROOT, stdio: 'pipe' },
    );
  }, 120_000);

  it('starts offline on the port it is given, answers, and stops on SIGTERM', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0' };
    delete env['OPENAI_API_KEY'];
    delete env['REDIS_URL'];
    const child = spawn(process.execPath, [join(ROOT, 'examples', 'node-service', 'dist', 'main.js')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "listening" line: ${out}`)), 15_000);
        child.stdout.on('data', () => {
          const match = /listening on (\S+) \(model: offline\)/.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      expect(await (await fetch(`${url}/api/diagnostics`)).json()).toMatchObject({ model: 'offline', running: [] });
      expect(await (await fetch(`${url}/`)).text()).toContain('rxscope node-service');
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);

  it('shuts down gracefully on SIGTERM: a running reply ends on its stream with REPLY_END shutdown, then the process exits 0', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', SHUTDOWN_GRACE_MS: '300' };
    delete env['OPENAI_API_KEY'];
    delete env['REDIS_URL'];
    const child = spawn(process.execPath, [join(ROOT, 'examples', 'node-service', 'dist', 'main.js')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      for (let i = 0; i < 600 && !/listening on (\S+)/.test(out); i++) await new Promise((r) => setTimeout(r, 25));
      const url = /listening on (\S+)/.exec(out)![1]!;
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      const stream = lastValueFrom(fromAgentEventStream(`${url}/api/sessions/s-term/events`).pipe(untilEnd, toArray()));
      await new Promise((r) => setTimeout(r, 150));
      const res = await fetch(`${url}/api/sessions/s-term/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'Tell me a story' }),
      });
      expect(res.status).toBeLessThan(300);
      await new Promise((r) => setTimeout(r, 300)); // the story is streaming
      child.kill('SIGTERM');
      const events = await stream;
      expect(events.some((e) => e.type === 'TEXT_BLOCK_DELTA')).toBe(true);
      expect(events.at(-1)).toMatchObject({
        type: 'REPLY_END',
        finishReason: 'shutdown',
        stopReason: { code: 'shutdown' },
      });
      expect(await exited).toBe(0);
      expect(out).toContain('replies suspended: ["s-term"]');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});
