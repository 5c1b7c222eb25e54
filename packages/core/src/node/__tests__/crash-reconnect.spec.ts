// Crash recovery as an SSE client sees it: a Node service (AgentSessions, a RedisSessionEventBus,
// createAgentSseHandler) is killed with SIGKILL at one of four points of a reply, with a
// FileSessionStore or a RedisSessionStore; a second service recovers the reply (sessions.recover()).
// The client — fromAgentEventStream with reconnection, behind a "load balancer" fetch that sends
// it to whichever service is up — reconnects with Last-Event-ID and reads one reply: every event of
// the session's log once, in order, obeying the stream grammar, with one `reply_recovered`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { firstValueFrom, takeWhile, tap, toArray } from 'rxjs';
import type { AgentEvent } from '../../event/events.js';
import type { Msg } from '../../message/blocks.js';
import { textOfMsg, toolResultsOf } from '../../message/msg.js';
import { assertConsistentConversation, assertReplyGrammar } from '../../testing/index.js';
import {
  startOpenAITestServer,
  startRedisServer,
  type OpenAITestServer,
  type RedisTestServer,
} from '../../testing/node/index.js';
import { fromAgentEventStream } from '../../transport/from-agent-event-stream.js';

const SERVICE = join(__dirname, 'fixtures', 'crash-service.ts');
// tsx as a loader of this very process (its CLI would run the service in a child that SIGKILL misses).
const TSX = pathToFileURL(require.resolve('tsx/esm')).href;

type Note = { type: string; [key: string]: unknown };

/** A running service: its notes as they come, and a way to wait for one. */
function startService(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ['--import', TSX, SERVICE], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const notes: Note[] = [];
  let stderr = '';
  let out = '';
  const waiters: (() => void)[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    const lines = out.split('\n');
    out = lines.pop()!;
    for (const line of lines.filter(Boolean)) notes.push(JSON.parse(line) as Note);
    if (notes.some((n) => n.type === 'WORKER_FROZEN')) child.kill('SIGKILL');
    waiters.splice(0).forEach((w) => w());
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  const note = async (type: string): Promise<Note> => {
    for (;;) {
      const found = notes.find((n) => n.type === type);
      if (found) return found;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the service ended before ${type}: ${stderr}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { child, notes, note, exited, stderr: () => stderr };
}

/** Waits for `promise`, failing after `ms` with what the services printed (a hang says where it hung). */
async function within<T>(promise: Promise<T>, what: string, services: ReturnType<typeof startService>[]): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const seen = services.map((s) => `${JSON.stringify(s.notes.map((n) => n.type))}\n${s.stderr()}`).join('\n---\n');
      reject(new Error(`${what} did not happen within 20 s; the services printed:\n${seen}`));
    }, 20_000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const hasToolResults = (body: { messages?: readonly { role: string }[] }) =>
  (body.messages ?? []).some((m) => m.role === 'tool');

const cases: [string, string][] = [
  ['mid model stream', 'model_delta'],
  ['after the side-effecting tool started, before its result', 'tool_started'],
  ['right after its result was checkpointed', 'tool_result'],
  ['during a checkpoint write', 'checkpoint'],
];

describe('an SSE client reconnecting across a crash and its recovery', () => {
  jest.setTimeout(60_000);
  let dir: string;
  let server: OpenAITestServer;
  let redis: RedisTestServer;
  let client: Redis;
  let count = 0;
  let clientListens: Promise<void>;
  let clientHeard: () => void;

  beforeAll(async () => {
    redis = await startRedisServer(); // a real server: the suite fails, never skips, without it
    client = new Redis(redis.url);
  }, 20_000);
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rxscope-reconnect-'));
    clientListens = new Promise((resolve) => (clientHeard = resolve));
    server = await startOpenAITestServer({
      // The first model call answers once the client has an event to resume from (REPLY_START), so
      // its reconnection always sends Last-Event-ID; it streams slowly, then calls both tools.
      handler: async (request) => {
        if (hasToolResults(request.body)) return { text: ['Order 7 ', 'is charged.'] };
        await clientListens;
        return {
          text: ['Looking ', 'it up, ', 'then charging.'],
          chunkDelayMs: 30,
          toolCalls: [
            { id: 'call_lookup', name: 'lookup', arguments: { order: 7 } },
            { id: 'call_charge', name: 'charge', arguments: { cents: 1250 } },
          ],
        };
      },
    });
  });
  afterEach(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe.each([['FileSessionStore'], ['RedisSessionStore']])('%s', (storeName) => {
    it.each(cases)('killed %s: the client reads the reply once, in order', async (_what, point) => {
      const prefix = `reconnect:${++count}:`;
      const env = {
        WORKER_BASE_URL: server.url,
        WORKER_STORE: storeName === 'FileSessionStore' ? 'file' : 'redis',
        WORKER_STORE_DIR: join(dir, 'store'),
        WORKER_REDIS_URL: redis.url,
        WORKER_REDIS_PREFIX: prefix,
        WORKER_SESSION_ID: 'order-7',
        WORKER_COUNT_DIR: dir,
        WORKER_LEASE_MS: '400',
      };
      const first = startService({ ...env, WORKER_ACTION: 'start', WORKER_FREEZE_AT: point });
      let target = `http://127.0.0.1:${(await first.note('WORKER_LISTENING'))['port'] as number}`;
      const requests: { lastEventId: string | null; lastSeen: string | null }[] = [];
      let lastSeen: string | null = null;
      // The load balancer: each (re)connection goes to the service that is up now.
      const balanced: typeof fetch = (input, init) => {
        const request = new Request(input, init);
        requests.push({ lastEventId: request.headers.get('last-event-id'), lastSeen });
        return fetch(new Request(`${target}${new URL(request.url).pathname}`, request), { signal: init?.signal });
      };
      const reading = firstValueFrom(
        fromAgentEventStream('http://service/sessions/order-7/events', {
          fetch: balanced,
          reconnect: { delayMs: 50 },
        }).pipe(
          tap((e) => {
            lastSeen = e.id;
            clientHeard();
          }),
          takeWhile((e) => !(e.type === 'REPLY_END' && e.source === 'shop'), true),
          toArray(),
        ),
      );
      expect(await within(first.exited, 'the first service freezing', [first])).toBe('SIGKILL');
      expect(first.notes.at(-1)).toEqual({ type: 'WORKER_FROZEN', point });

      const second = startService({ ...env, WORKER_ACTION: 'recover' });
      try {
        target = `http://127.0.0.1:${(await second.note('WORKER_LISTENING'))['port'] as number}`;
        const events: AgentEvent[] = await within(reading, 'the whole reply reaching the client', [first, second]);
        await within(second.note('WORKER_CONTEXT'), 'the recovered reply ending', [second]);

        // One reply, as the grammar says, once recovered: the client never saw a second REPLY_START.
        const end = assertReplyGrammar(events);
        expect(end).toMatchObject({ finishReason: 'completed', replyId: events[0]!.replyId });
        expect(events.filter((e) => e.type === 'CUSTOM' && e.name === 'reply_recovered')).toHaveLength(1);
        // Every event of the session's log once, in order: what the dead service appended, then the recovery.
        const log = (await client.xrange(`${prefix}bus:order-7:log`, '-', '+')).map(
          ([, fields]) => (JSON.parse(fields[3]!) as AgentEvent).id,
        );
        expect(events.map((e) => e.id)).toEqual(log);
        // It reconnected, each time resuming after the last event it had.
        expect(requests.length).toBeGreaterThanOrEqual(2);
        expect(requests[0]!.lastEventId).toBeNull();
        for (const r of requests.slice(1)) expect(r.lastEventId).toBe(r.lastSeen);
        expect(requests.at(-1)!.lastEventId).not.toBeNull();

        const { context } = second.notes.find((n) => n.type === 'WORKER_CONTEXT') as unknown as { context: Msg[] };
        assertConsistentConversation(context);
        expect(textOfMsg(context[1]!)).toMatch(/Order 7 is charged\.$/);
        expect(
          toolResultsOf(context[1]!)
            .map((r) => r.toolCallId)
            .sort(),
        ).toEqual(['call_charge', 'call_lookup']);
        const charges = (await readFile(join(dir, 'charge.count'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
        expect(charges.length).toBeLessThanOrEqual(1);
      } finally {
        second.child.kill('SIGKILL');
        await second.exited;
      }
    });
  });
});
