// The harness's detached memory work across processes, on a real redis-server: two agents of one
// session, each with its own middleware instances and its own RedisLease connection (two
// processes), on one workspace. One session's flushes never overlap; a workspace's maintenance
// runs once while another process runs it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from '@rxscope/core';
import {
  startOpenAITestServer,
  startRedisServer,
  type OpenAITestServer,
  type RecordedRequest,
  type RedisTestServer,
} from '@rxscope/core/testing/node';
import { Redis } from 'ioredis';
import { closeTestServer, run, systemPromptOf, tempDir, testServerModel } from '../__tests__/helpers.js';
import { MemoryFlushMiddleware } from '../memory/memory-flush/index.js';
import { MemoryMaintenanceMiddleware } from '../memory/memory-maintenance/index.js';
import { LocalFileSystem } from '../workspace/local-file-system.js';
import { RedisLease } from './index.js';

const isFlush = (r: RecordedRequest) => systemPromptOf(r).includes('long-term memory of an AI agent');
const isMaintenance = (r: RecordedRequest) => systemPromptOf(r).includes('You maintain MEMORY.md');
const userTextOf = (r: RecordedRequest): string => {
  const content = r.body.messages?.[1]?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
};
const waitUntil = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 600 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}
const NOW = new Date('2026-03-14T09:26:00Z');

describe('memory work across processes with a RedisLease (real redis-server)', () => {
  let redisServer: RedisTestServer;
  let server: OpenAITestServer;
  let dir: ReturnType<typeof tempDir>;
  let prefix: string;
  const clients: Redis[] = [];
  const logged: string[] = [];
  /** A lease on a connection of its own: one per simulated process. */
  const leaseOfProcess = () => {
    const redis = new Redis(redisServer.url);
    clients.push(redis);
    return new RedisLease({ redis, prefix, ttlMs: 2_000 });
  };
  const onError = (e: unknown, what: string) => logged.push(`${what}: ${(e as Error).message}`);

  beforeAll(async () => {
    redisServer = await startRedisServer();
  }, 20_000);
  afterAll(() => redisServer?.stop());
  beforeEach(() => {
    dir = tempDir();
    prefix = `t${Math.random().toString(36).slice(2)}:`;
    logged.length = 0;
  });
  afterEach(async () => {
    await closeTestServer(server);
    for (const redis of clients.splice(0)) redis.disconnect();
    dir.cleanup();
  });

  it("two processes' flushes of one session run one after the other; the second reads what the first wrote", async () => {
    const holds = [gate(), gate()];
    let inFlight = 0;
    let most = 0;
    let flushes = 0;
    let replies = 0;
    server = await startOpenAITestServer({
      handler: async (request) => {
        if (!isFlush(request)) return { text: `Answer ${++replies}.` };
        const n = flushes++;
        most = Math.max(most, ++inFlight);
        await holds[n]!.opened;
        inFlight--;
        return { text: n === 0 ? '- The user is called Ada.' : '- Ada works in Lisbon.' };
      },
    });
    const processOf = () => {
      const flush = new MemoryFlushMiddleware({
        fileSystem: new LocalFileSystem(dir.path),
        lease: leaseOfProcess(),
        now: () => NOW,
        onError,
      });
      const agent = new Agent({
        name: 'assistant',
        model: testServerModel(server),
        sessionId: 's1',
        middlewares: [flush],
      });
      return { flush, agent };
    };
    const a = processOf();
    const b = processOf();
    await run(a.agent, 'I am Ada.');
    await waitUntil(() => server.requests.filter(isFlush).length === 1, "A's flush");
    await run(b.agent, 'I work in Lisbon.');
    await new Promise((r) => setTimeout(r, 300));
    // B's flush waits for A's lease: it has not asked the model yet.
    expect(server.requests.filter(isFlush)).toHaveLength(1);
    holds[0]!.open();
    await waitUntil(() => server.requests.filter(isFlush).length === 2, "B's flush");
    holds[1]!.open();
    await Promise.all([a.flush.idle(), b.flush.idle()]);
    expect(most).toBe(1);
    expect(logged).toEqual([]);
    // B was told what A had written.
    expect(userTextOf(server.requests.filter(isFlush)[1]!)).toContain('The user is called Ada.');
    const ledger = readFileSync(join(dir.path, 'memory', '2026-03-14.md'), 'utf8');
    expect(ledger.match(/- The user is called Ada\./g)).toHaveLength(1);
    expect(ledger).toContain('- Ada works in Lisbon.');
    expect(await clients[0]!.keys(`${prefix}*`)).toEqual([]); // released
  });

  it("a workspace's maintenance runs once while another process runs it; the other process skips it", async () => {
    mkdirSync(join(dir.path, 'memory'), { recursive: true });
    writeFileSync(join(dir.path, 'MEMORY.md'), '## User\n- The user is called Ada.\n');
    writeFileSync(
      join(dir.path, 'memory', '2026-03-12.md'),
      '# Memory ledger 2026-03-12\n\n## 10:00 UTC — session s0\n- Ada moved to Lisbon.\n',
    );
    const hold = gate();
    let replies = 0;
    server = await startOpenAITestServer({
      handler: async (request) => {
        if (!isMaintenance(request)) return { text: `Answer ${++replies}.` };
        await hold.opened;
        return { text: '## User\n- The user is called Ada.\n- Ada lives in Lisbon.' };
      },
    });
    const processOf = () => {
      const maintenance = new MemoryMaintenanceMiddleware({
        fileSystem: new LocalFileSystem(dir.path),
        lease: leaseOfProcess(),
        now: () => NOW,
        onError,
      });
      const agent = new Agent({
        name: 'assistant',
        model: testServerModel(server),
        sessionId: 's1',
        middlewares: [maintenance],
      });
      return { maintenance, agent };
    };
    const a = processOf();
    const b = processOf();
    await run(a.agent, 'hello');
    await waitUntil(() => server.requests.filter(isMaintenance).length === 1, "A's maintenance");
    await run(b.agent, 'hello again');
    await b.maintenance.idle(); // skipped: A's run covers it
    hold.open();
    await a.maintenance.idle();
    expect(server.requests.filter(isMaintenance)).toHaveLength(1);
    expect(logged).toEqual([]);
    expect(readFileSync(join(dir.path, 'MEMORY.md'), 'utf8')).toContain('- Ada lives in Lisbon.');
  });
});
