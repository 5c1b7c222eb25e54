// The handler mounted in Express, Fastify and node:http on real ports: the same API under the
// mount path; non-loopback clients refused; production refused without `enabled`; unknown
// options refused; a bounded body; the feed's serverId changing across a server restart; and a
// posted cassette replayed and recorded.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import express from 'express';
import Fastify from 'fastify';
import { Agent, RxscopeError, type ChatModel } from '@rxscope/core';
import { RecordingMiddleware, type Cassette } from '@rxscope/middleware-builtin/recording';
import {
  DevtoolsError,
  DevtoolsMiddleware,
  DevtoolsRecorder,
  instrumentMiddlewares,
  type ReplySummary,
} from '../index.js';
import { createDevtoolsHandler } from './index.js';
import { listen, lookup, lookupAgent, readSse } from '../__tests__/helpers.js';

async function oneReply(recorder: DevtoolsRecorder): Promise<void> {
  await lookupAgent([new DevtoolsMiddleware({ recorder })]).call('where is A-1?');
}

const repliesAt = async (url: string) => ((await (await fetch(url)).json()) as { replies: ReplySummary[] }).replies;

describe('createDevtoolsHandler in servers', () => {
  it('works mounted with app.use in Express', async () => {
    const recorder = new DevtoolsRecorder();
    await oneReply(recorder);
    const app = express();
    app.use('/_devtools', createDevtoolsHandler({ recorder }));
    app.get('/other', (_req, res) => void res.send('express route'));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await repliesAt(`${url}/_devtools/api/replies`)).toEqual([
        expect.objectContaining({ agentName: 'bot', status: 'completed' }),
      ]);
      expect(await (await fetch(`${url}/other`)).text()).toBe('express route');
      const feed = await readSse(await fetch(`${url}/_devtools/api/feed`), (m) => m.length > 0);
      expect(feed[0]!.event).toBe('hello');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('works from a Fastify wildcard route with basePath', async () => {
    const recorder = new DevtoolsRecorder();
    await oneReply(recorder);
    const devtools = createDevtoolsHandler({ recorder, basePath: '/_devtools' });
    const app = Fastify();
    app.all('/_devtools/*', (request, reply) => {
      reply.hijack(); // the raw response is the handler's from here on
      devtools(request.raw, reply.raw);
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const [reply] = await repliesAt(`${url}/_devtools/api/replies`);
      expect(reply).toMatchObject({ agentName: 'bot', status: 'completed', toolCalls: 1 });
      const record = await fetch(`${url}/_devtools/api/replies/${reply!.replyId}`);
      expect(record.status).toBe(200);
      const feed = await readSse(await fetch(`${url}/_devtools/api/feed`), (m) => m.length > 0);
      expect(feed[0]!.event).toBe('hello');
    } finally {
      app.server.closeAllConnections();
      await app.close();
    }
  });

  it('refuses a client that is not on loopback with 403, unless allow lists it', async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    // This test needs a non-loopback interface to connect from; a machine without one fails it.
    expect(external).toBeDefined();
    const serve = async (allow?: string[]) => {
      const handler = createDevtoolsHandler({ recorder: new DevtoolsRecorder(), ...(allow ? { allow } : {}) });
      const server = createServer((req, res) => handler(req, res));
      await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
      const port = (server.address() as AddressInfo).port;
      try {
        const response = await fetch(`http://${external}:${port}/api/replies`);
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    };
    const refused = await serve();
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'devtools_forbidden', message: expect.stringContaining('"allow"') });
    expect((await serve([external!])).status).toBe(200);
  });

  it('is refused at creation in production without an explicit enabled, naming the option', () => {
    const before = process.env['NODE_ENV'];
    process.env['NODE_ENV'] = 'production';
    try {
      let refusal: unknown;
      try {
        createDevtoolsHandler({ recorder: new DevtoolsRecorder() });
      } catch (e) {
        refusal = e;
      }
      expect(refusal).toBeInstanceOf(DevtoolsError);
      expect(refusal).toBeInstanceOf(RxscopeError);
      expect(refusal).toMatchObject({ code: 'devtools_not_enabled' });
      expect((refusal as Error).message).toContain('"enabled"');
      expect(() => createDevtoolsHandler({ recorder: new DevtoolsRecorder(), enabled: true })).not.toThrow();
    } finally {
      process.env['NODE_ENV'] = before;
    }
  });

  it('passes every request on when enabled is false', async () => {
    const { url, close } = await listen(createDevtoolsHandler({ recorder: new DevtoolsRecorder(), enabled: false }));
    try {
      expect(await (await fetch(`${url}/api/replies`)).text()).toBe('app: not found');
    } finally {
      await close();
    }
  });

  it('refuses unknown options with a "did you mean", and a bad basePath', () => {
    const recorder = new DevtoolsRecorder();
    expect(() => createDevtoolsHandler({ recorder, enable: true } as never)).toThrow(
      /unknown option "enable" of createDevtoolsHandler; did you mean "enabled"\?/,
    );
    expect(() => createDevtoolsHandler({ recorder, replay: { agnet: () => undefined } } as never)).toThrow(
      /did you mean "agent"/,
    );
    expect(() => createDevtoolsHandler({ recorder, basePath: '_devtools' })).toThrow(/"basePath" must start with "\/"/);
    expect(() => createDevtoolsHandler({} as never)).toThrow(/"recorder" is required/);
  });

  it('shows a new serverId to a feed client that reconnects after the server restarted', async () => {
    const recorder = new DevtoolsRecorder();
    const first = await listen(createDevtoolsHandler({ recorder }));
    const port = Number(new URL(first.url).port);
    const serverIdOf = (m: { data: unknown }[]) => (m[0]!.data as { serverId: string }).serverId;
    // A client like EventSource: it reads until the stream ends, then connects again (retrying
    // while the server is down).
    const connect = async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await fetch(`${first.url}/api/feed`);
        } catch (e) {
          if (attempt > 50) throw e;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    const messages: { event: string; data: unknown }[] = [];
    const live = readSse(await connect(), (m) => {
      messages.splice(0, messages.length, ...m);
      return false;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = serverIdOf(messages);
    await first.close();
    await live.catch(() => undefined); // the stream ended (cut off) with the server
    // The process restarts: a new handler on the same port.
    const handler = createDevtoolsHandler({ recorder });
    const server = createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const after = await readSse(await connect(), (m) => m.length > 0);
      expect(after[0]!.event).toBe('hello');
      expect(serverIdOf(after)).not.toBe(before);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('replays a posted cassette through the given agent factory and records it; bounds the body', async () => {
    let cassette: Cassette | undefined;
    const recording = lookupAgent([new RecordingMiddleware({ save: (c) => void (cassette = c) })]);
    await recording.call('where is A-1?');
    const recorder = new DevtoolsRecorder();
    const handler = createDevtoolsHandler({
      recorder,
      maxBodyBytes: 64 * 1024,
      replay: {
        agent: (model: ChatModel) =>
          new Agent({ name: 'replayed', model, tools: [lookup], middlewares: instrumentMiddlewares(recorder, []) }),
      },
    });
    const { url, close } = await listen(handler);
    try {
      const post = (body: string) =>
        fetch(`${url}/api/replay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const response = await post(JSON.stringify(cassette));
      expect(response.status).toBe(202);
      const { replyId } = (await response.json()) as { replyId: string };
      await new Promise((resolve) => setTimeout(resolve, 100));
      const replies = await repliesAt(`${url}/api/replies`);
      expect(replies.find((r) => r.replyId === replyId)).toMatchObject({
        agentName: 'replayed',
        status: 'completed',
        toolCalls: 1,
      });
      const tooBig = await post(JSON.stringify({ version: 1, pad: 'x'.repeat(70 * 1024) }));
      expect(tooBig.status).toBe(413);
      const notACassette = await post('{"hello":1}');
      expect(notACassette.status).toBe(400);
      expect(await notACassette.json()).toMatchObject({ code: 'devtools_cassette_invalid' });
    } finally {
      await close();
    }
  });
});
