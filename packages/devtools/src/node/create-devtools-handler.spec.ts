import { get, type IncomingMessage } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevtoolsRecorder, instrumentMiddlewares, type ReplyRecord, type ReplySummary } from '../index.js';
import { createDevtoolsHandler } from './index.js';
import { listen, lookupAgent, readSse } from '../__tests__/helpers.js';

describe('createDevtoolsHandler on plain node:http', () => {
  const uiDir = mkdtempSync(join(tmpdir(), 'devtools-ui-'));
  writeFileSync(join(uiDir, 'index.html'), '<html><head><base href="/"></head><body>devtools</body></html>');
  writeFileSync(join(uiDir, 'main.js'), 'console.log("ui")');

  it('lists replies, serves one reply, its export, and the live feed of a running reply', async () => {
    const recorder = new DevtoolsRecorder();
    const { url, close } = await listen(createDevtoolsHandler({ recorder, basePath: '/_devtools', uiDir }));
    try {
      const feed = await fetch(`${url}/_devtools/api/feed`);
      expect(feed.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const agent = lookupAgent(instrumentMiddlewares(recorder, []));
      const messages = readSse(feed, (m) =>
        m.some((x) => x.event === 'summary' && (x.data as ReplySummary).status === 'completed'),
      );
      await agent.call('where is A-1?');
      const seen = await messages;
      expect(seen[0]!.event).toBe('hello');
      expect((seen[0]!.data as { serverId: string }).serverId).toMatch(/^[0-9a-f-]{36}$/);
      expect(seen.some((x) => x.event === 'event')).toBe(true);

      const list = (await (await fetch(`${url}/_devtools/api/replies`)).json()) as { replies: ReplySummary[] };
      expect(list.replies).toHaveLength(1);
      expect(list.replies[0]).toMatchObject({ agentName: 'bot', status: 'completed', toolCalls: 1 });
      const id = list.replies[0]!.replyId;
      const record = (await (await fetch(`${url}/_devtools/api/replies/${id}`)).json()) as ReplyRecord;
      expect(record.events.map((e) => e.event['type'])).toContain('TOOL_RESULT_END');
      const exported = await fetch(`${url}/_devtools/api/replies/${id}/export`);
      expect(exported.headers.get('content-disposition')).toMatch(/^attachment; filename="reply-/);
      const unknown = await fetch(`${url}/_devtools/api/replies/nope`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ code: 'devtools_reply_unknown' });
      const replay = await fetch(`${url}/_devtools/api/replay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(replay.status).toBe(404);
      expect(await replay.json()).toMatchObject({ code: 'devtools_replay_off' });
    } finally {
      await close();
    }
  });

  it('serves the page with <base href> set to the mount path, its assets, and passes other paths on', async () => {
    const { url, close } = await listen(
      createDevtoolsHandler({ recorder: new DevtoolsRecorder(), basePath: '/_devtools', uiDir }),
    );
    try {
      const page = await fetch(`${url}/_devtools/`);
      expect(await page.text()).toContain('<base href="/_devtools/">');
      expect(await (await fetch(`${url}/_devtools/main.js`)).text()).toContain('console.log');
      expect((await fetch(`${url}/_devtools/..%2F..%2Fetc%2Fpasswd`)).status).toBe(400);
      const redirect = await fetch(`${url}/_devtools`, { redirect: 'manual' });
      expect(redirect.status).toBe(308);
      expect(redirect.headers.get('location')).toBe('/_devtools/');
      const other = await fetch(`${url}/elsewhere`);
      expect(await other.text()).toBe('app: not found');
    } finally {
      await close();
    }
  });

  it('answers 503 naming the build command when the UI is not built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'devtools-empty-'));
    const { url, close } = await listen(createDevtoolsHandler({ recorder: new DevtoolsRecorder(), uiDir: empty }));
    try {
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(503);
      expect(await page.text()).toContain('npm run build:devtools-ui');
    } finally {
      await close();
    }
  });
});

describe('the feed and a client that does not read', () => {
  it('drops the connection once maxQueuedBytes wait for it', async () => {
    const recorder = new DevtoolsRecorder({ maxStringLength: 200_000 });
    const server = await listen(createDevtoolsHandler({ recorder, maxQueuedBytes: 64 * 1024 }));
    try {
      const response = await new Promise<IncomingMessage>((resolve) => get(`${server.url}/api/feed`, resolve));
      response.pause(); // a client that never reads
      const connections = () =>
        new Promise<number>((resolve, reject) => server.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
      expect(await connections()).toBe(1);
      recorder.begin({ replyId: 'r1', agentName: 'bot' });
      const big = 'x'.repeat(100_000);
      for (let i = 0; i < 400 && (await connections()) > 0; i++) {
        recorder.record('r1', 'onAgent', [], { type: 'CUSTOM', replyId: 'r1', name: 'big', value: big });
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(await connections()).toBe(0);
      response.destroy();
    } finally {
      await server.close();
    }
  });
});
