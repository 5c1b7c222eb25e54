// Runs the Express app on a real port: a reply streamed as SSE, a 400 before the stream, a
// client that goes away cancelling the reply (the model's signal is aborted), and two users whose
// conversations stay apart (against the OpenAI test server). Then the built program, as a child
// process.
import { execFileSync, spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { fromAgentEventStream, toText } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { startOpenAITestServer } from '@rxscope/core/testing/node';
import { createApp } from './app.js';

const ROOT = join(__dirname, '..', '..', '..');

describe('express-sse', () => {
  let server: Server;
  let url: string;
  let model: ScriptedChatModel;
  let sessions: ReturnType<typeof createApp>['sessions'];
  beforeEach(async () => {
    model = new ScriptedChatModel(
      [{ text: ['Hello ', 'from ', 'Express.'] }, { text: Array.from({ length: 100 }, (_, i) => `w${i} `) }],
      { delayMs: 20 },
    );
    const created = createApp(model);
    sessions = created.sessions;
    server = await new Promise<Server>((resolve) => {
      const s = created.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const session: string = randomUUID();
  const chat = (body: unknown, sessionId = session) =>
    fromAgentEventStream(`${url}/chat`, {
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-id': sessionId },
        body: JSON.stringify(body),
      },
    });

  it('streams a reply to POST /chat as server-sent events', async () => {
    const events = await lastValueFrom(chat({ message: 'Hi' }).pipe(toArray()));
    expect(events[0]!.type).toBe('REPLY_START');
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(await lastValueFrom(chat({ message: 'Hi' }).pipe(toText()), { defaultValue: '' })).toMatch(/^w0 w1 /);
  });

  it('answers a bad body or a missing session id with 400 before the stream', async () => {
    await expect(lastValueFrom(chat({}))).rejects.toMatchObject({
      status: 400,
      details: { body: expect.stringContaining('invalid_body') as string },
    });
    await expect(lastValueFrom(chat({ message: 'Hi' }, 'bob'))).rejects.toMatchObject({
      status: 400,
      details: { body: expect.stringContaining('invalid_session_id') as string },
    });
  });

  it('cancels the reply when the client goes away', async () => {
    await lastValueFrom(chat({ message: 'first' }).pipe(toArray()));
    expect(await firstValueFrom(chat({ message: 'long' }).pipe(toText()))).toBe('w0 ');
    const agent = await sessions.agent(session);
    for (let i = 0; i < 100 && agent.busy; i++) await new Promise((r) => setTimeout(r, 10));
    expect(agent.busy).toBe(false);
    expect(model.requests[1]!.signal.aborted).toBe(true);
  });
});

describe('express-sse: two users', () => {
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
    const { app } = createApp(new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: modelServer.url }));
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const chatAs = (sessionId: string, message: string) =>
      lastValueFrom(
        fromAgentEventStream(`${base}/chat`, {
          init: {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-session-id': sessionId },
            body: JSON.stringify({ message }),
          },
        }).pipe(toArray()),
      );
    try {
      const alice = chatAs(randomUUID(), 'My card number is 4111 1111 1111 1111.');
      while (modelServer.requests.length < 1) await new Promise((r) => setTimeout(r, 10));
      const bob = await Promise.race([
        chatAs(randomUUID(), 'What did the previous user tell you?'),
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
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await modelServer.close();
    }
  });
});

describe('express-sse program', () => {
  beforeAll(() => {
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'examples/express-sse'],
      { cwd: ROOT, stdio: 'pipe' },
    );
  }, 120_000);

  it('serves the offline model on PORT', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0' };
    delete env['OPENAI_API_KEY'];
    const child = spawn(process.execPath, [join(ROOT, 'examples', 'express-sse', 'dist', 'main.js')], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const base = await new Promise<string>((resolve) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => {
          out += c;
          const match = /listening on (\S+)/.exec(out);
          if (match) resolve(match[1]!);
        });
      });
      const text = await lastValueFrom(
        fromAgentEventStream(`${base}/chat`, {
          init: {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-session-id': randomUUID() },
            body: '{"message":"ping"}',
          },
        }).pipe(toText()),
      );
      expect(text).toBe('You said: ping');
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});
