// Runs the Express app on a real port: a reply streamed as SSE, a 400 before the stream, and a
// client that goes away cancelling the reply (the model's signal is aborted). Then the built
// program, as a child process.
import { execFileSync, spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { fromAgentEventStream, toText } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { createApp } from './app.js';

const ROOT = join(__dirname, '..', '..', '..');

describe('express-sse', () => {
  let server: Server;
  let url: string;
  let model: ScriptedChatModel;
  let agent: ReturnType<typeof createApp>['agent'];
  beforeEach(async () => {
    model = new ScriptedChatModel(
      [{ text: ['Hello ', 'from ', 'Express.'] }, { text: Array.from({ length: 100 }, (_, i) => `w${i} `) }],
      { delayMs: 20 },
    );
    const created = createApp(model);
    agent = created.agent;
    server = await new Promise<Server>((resolve) => {
      const s = created.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const chat = (body: unknown) =>
    fromAgentEventStream(`${url}/chat`, {
      init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    });

  it('streams a reply to POST /chat as server-sent events', async () => {
    const events = await lastValueFrom(chat({ message: 'Hi' }).pipe(toArray()));
    expect(events[0]!.type).toBe('REPLY_START');
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(await lastValueFrom(chat({ message: 'Hi' }).pipe(toText()), { defaultValue: '' })).toMatch(/^w0 w1 /);
  });

  it('answers a bad body with 400 before the stream', async () => {
    await expect(lastValueFrom(chat({}))).rejects.toMatchObject({
      status: 400,
      details: { body: expect.stringContaining('invalid_body') as string },
    });
  });

  it('cancels the reply when the client goes away', async () => {
    await lastValueFrom(chat({ message: 'first' }).pipe(toArray()));
    expect(await firstValueFrom(chat({ message: 'long' }).pipe(toText()))).toBe('w0 ');
    for (let i = 0; i < 100 && agent.busy; i++) await new Promise((r) => setTimeout(r, 10));
    expect(agent.busy).toBe(false);
    expect(model.requests[1]!.signal.aborted).toBe(true);
    const health = (await (await fetch(`${url}/health`)).json()) as { busy: boolean };
    expect(health).toEqual({ ok: true, busy: false });
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
          init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"ping"}' },
        }).pipe(toText()),
      );
      expect(text).toBe('You said: ping');
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});
