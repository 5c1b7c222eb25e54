// Crash recovery with real processes: a Node service is killed with SIGKILL at one of four points
// of a reply (mid model stream, after a side-effecting tool started, right after its result was
// checkpointed, in the middle of a checkpoint write), with a FileSessionStore on disk or a
// RedisSessionStore on a real redis-server; a second process recovers the reply (RECOVER_REPLY)
// and finishes it. The conversation is consistent, the non-idempotent tool ran at most once and
// the idempotent one at least once (each counts its runs in a file).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

const WORKER = join(__dirname, 'fixtures', 'crash-worker.ts');
// tsx as a loader of this very process (its CLI would run the worker in a child that SIGKILL misses).
const TSX = pathToFileURL(require.resolve('tsx/esm')).href;

interface WorkerRun {
  events: AgentEvent[];
  notes: Array<{ type: string; [key: string]: unknown }>;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs the worker; SIGKILL as soon as it prints that it froze. */
function runWorker(env: Record<string, string>): Promise<WorkerRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, WORKER], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"WORKER_FROZEN"')) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const lines = out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; [key: string]: unknown });
      const notes = lines.filter((l) => l.type.startsWith('WORKER_'));
      const events = lines.filter((l) => !l.type.startsWith('WORKER_')) as unknown as AgentEvent[];
      resolve({ events, notes, code, signal, stderr });
    });
  });
}

const hasToolResults = (body: { messages?: readonly { role: string }[] }) =>
  (body.messages ?? []).some((m) => m.role === 'tool');

type KillPoint = 'model_delta' | 'tool_started' | 'tool_result' | 'checkpoint';

const cases: [string, KillPoint][] = [
  ['mid model stream', 'model_delta'],
  ['after the side-effecting tool started, before its result', 'tool_started'],
  ['right after its result was checkpointed', 'tool_result'],
  ['during a checkpoint write', 'checkpoint'],
];

describe('recovery after SIGKILL across processes', () => {
  jest.setTimeout(60_000);
  let dir: string;
  let server: OpenAITestServer;
  let redis: RedisTestServer;
  let count = 0;

  beforeAll(async () => {
    redis = await startRedisServer(); // a real server: the suite fails, never skips, without it
  }, 20_000);
  afterAll(async () => {
    await redis?.stop();
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rxscope-crash-'));
    server = await startOpenAITestServer({
      // The first model call streams slowly (a kill lands mid-stream), then calls both tools in order.
      handler: (request) =>
        hasToolResults(request.body)
          ? { text: ['Order 7 ', 'is charged.'] }
          : {
              text: ['Looking ', 'it up, ', 'then charging.'],
              chunkDelayMs: 30,
              toolCalls: [
                { id: 'call_lookup', name: 'lookup', arguments: { order: 7 } },
                { id: 'call_charge', name: 'charge', arguments: { cents: 1250 } },
              ],
            },
    });
  });
  afterEach(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const runs = async (tool: string) =>
    (await readFile(join(dir, `${tool}.count`), 'utf8').catch(() => '')).split('\n').filter(Boolean);

  describe.each([['FileSessionStore'], ['RedisSessionStore']])('%s', (storeName) => {
    it.each(cases)('killed %s: another process finishes the reply', async (_what, point) => {
      const env = {
        WORKER_BASE_URL: server.url,
        WORKER_STORE: storeName === 'FileSessionStore' ? 'file' : 'redis',
        WORKER_STORE_DIR: join(dir, 'store'),
        WORKER_REDIS_URL: redis.url,
        WORKER_REDIS_PREFIX: `crash:${++count}:`,
        WORKER_SESSION_ID: 'order-7',
        WORKER_COUNT_DIR: dir,
        WORKER_LEASE_MS: '400',
      };
      const first = await runWorker({ ...env, WORKER_ACTION: 'start', WORKER_FREEZE_AT: point });
      expect(first.signal).toBe('SIGKILL');
      expect(first.notes.at(-1)).toEqual({ type: 'WORKER_FROZEN', point });
      const replyId = first.events[0]!.replyId;

      const second = await runWorker({ ...env, WORKER_ACTION: 'recover' });
      if (point === 'checkpoint' && storeName === 'FileSessionStore') {
        // Half an entry reached the file: the reply is recovered up to the last whole entry, and that is reported.
        expect(second.stderr).toMatch(/JournalDamagedError: The journal \S+order-7\.journal is damaged at entry \d+/);
        expect(second.events[1]).toMatchObject({
          value: { damaged: { where: expect.stringMatching(/order-7\.journal$/) } },
        });
      } else expect(second.stderr).toBe('');
      expect(second.code).toBe(0);
      const end = assertReplyGrammar(second.events);
      expect(end).toMatchObject({ finishReason: 'completed', replyId });
      expect(second.events[1]).toMatchObject({ type: 'CUSTOM', name: 'reply_recovered', replyId });
      expect(second.events.every((e) => e.replyId === replyId)).toBe(true);

      // The conversation: the question, one reply with both calls answered and the final text; stored as such.
      const { context, stored } = second.notes.find((n) => n.type === 'WORKER_CONTEXT') as unknown as {
        context: Msg[];
        stored: Msg[];
      };
      assertConsistentConversation(context);
      expect(stored).toEqual(context);
      expect(context.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(textOfMsg(context[1]!)).toMatch(/Order 7 is charged\.$/);
      const results = toolResultsOf(context[1]!);
      expect(results.map((r) => r.toolCallId).sort()).toEqual(['call_charge', 'call_lookup']);
      expect(second.notes.find((n) => n.type === 'WORKER_JOURNAL')).toEqual({ type: 'WORKER_JOURNAL', entries: 0 });

      // Never twice: the side-effecting tool ran at most once, the idempotent one at least once.
      const charges = await runs('charge');
      const lookups = await runs('lookup');
      expect(charges.length).toBeLessThanOrEqual(1);
      expect(lookups.length).toBeGreaterThanOrEqual(1);
      expect(new Set(lookups).size).toBe(1); // every run of the call had the same idempotency key
      const charge = results.find((r) => r.toolCallId === 'call_charge')!;
      if (point === 'tool_started') {
        // It ran once and its outcome is unknown: not run again, the model is told so.
        expect(charges).toHaveLength(1);
        expect(charge.status).toBe('interrupted');
      } else if (point === 'checkpoint' && storeName === 'RedisSessionStore') {
        // Its "started" entry reached Redis whole (a list element is written whole or not at all), then
        // the process died before the tool ran: for the journal it started, so it is not run (outcome unknown).
        expect(charges).toHaveLength(0);
        expect(charge.status).toBe('interrupted');
      } else {
        expect(charges).toHaveLength(1);
        expect(charge.status).toBe('success');
      }
    });
  });
});
