// The worker pool end to end, as built (`tsc -b` output): a real redis-server, the offline model
// (the OpenAI-compatible test server) over HTTP, and three child processes — one HTTP front, two
// reply workers. A reply suspended for confirmation on one worker is answered on the other; a
// message sent from the front reaches the running reply's next step; a worker killed (SIGKILL)
// mid-reply loses nothing: BullMQ hands its job to the other worker, which continues the reply from its last checkpoint.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromAgentEventStream, type AgentEvent, type Msg, textOfMsg } from '@rxscope/core';
import { startRedisServer, type OpenAITestServer, type RedisTestServer } from '@rxscope/core/testing/node';
import type { Subscription } from 'rxjs';
import { startOfflineModel } from './offline.js';

const DIST = join(__dirname, '..', 'dist');

interface Proc {
  readonly child: ChildProcess;
  readonly out: string[];
  /** Resolves with the first match of `pattern` in stdout (already printed or to come). */
  line(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  readonly exited: Promise<number | null>;
}

function start(file: string, env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [join(DIST, file)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => out.push(...chunk.toString().split('\n').filter(Boolean)));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const line = async (pattern: RegExp, timeoutMs = 10_000) => {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 25))) {
      for (const l of out) {
        const m = pattern.exec(l);
        if (m) return m;
      }
    }
    throw new Error(
      `${file}: no line matching ${pattern} within ${timeoutMs} ms; stdout: ${out.join(' | ')}; stderr: ${err}`,
    );
  };
  return { child, out, line, exited };
}

describe('examples/worker-pool: a front and two workers on one Redis', () => {
  jest.setTimeout(60_000);
  let redis: RedisTestServer;
  let model: OpenAITestServer;
  let dir: string;
  let env: Record<string, string>;
  let front: Proc;
  let frontUrl: string;
  const workers = new Map<string, Proc>();
  const streams: Subscription[] = [];

  const startWorker = async (name: string) => {
    const worker = start('worker.js', { ...env, WORKER_NAME: name });
    workers.set(name, worker);
    await worker.line(new RegExp(`worker ${name} ready`));
  };
  const post = async (path: string, body: unknown = {}) => {
    const res = await fetch(`${frontUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(202);
    return (await res.json()) as { jobId?: string };
  };
  const get = async <T>(path: string) => (await (await fetch(`${frontUrl}${path}`)).json()) as T;
  const finished = async (jobId: string) => {
    for (let i = 0; i < 400; i++) {
      const job = await get<{
        state: string;
        result?: { replyId: string; finishReason: string };
        failedReason?: string;
      }>(`/api/jobs/${jobId}`);
      if (job.state === 'completed') return job.result!;
      if (job.state === 'failed') throw new Error(`job ${jobId} failed: ${job.failedReason}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`job ${jobId} did not finish`);
  };
  /** The session's events as a browser reads them through the front (SSE). */
  const watch = (sessionId: string) => {
    const events: AgentEvent[] = [];
    streams.push(fromAgentEventStream(`${frontUrl}/api/sessions/${sessionId}/events`).subscribe((e) => events.push(e)));
    return events;
  };
  const ranOn = async (proc: Map<string, Proc>, jobId: string) => {
    for (let i = 0; i < 200; i++) {
      for (const [name, w] of proc) if (w.out.some((l) => l.startsWith(`job ${jobId} `))) return name;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no worker started job ${jobId}`);
  };
  const conversation = async (sessionId: string) =>
    (await get<{ messages: Msg[] }>(`/api/sessions/${sessionId}`)).messages.map((m) => [m.role, textOfMsg(m)]);

  beforeAll(async () => {
    redis = await startRedisServer();
    model = await startOfflineModel();
    dir = await mkdtemp(join(tmpdir(), 'worker-pool-'));
    env = {
      REDIS_URL: redis.url,
      MODEL_URL: model.url,
      WORK_DIR: join(dir, 'workspaces'),
      PREFIX: 'pool-test:',
      LOCK_MS: '1500',
      STALLED_MS: '500',
      STOCK_MS: '1500',
      PORT: '0',
    };
    front = start('front.js', env);
    frontUrl = (await front.line(/front on (http:\S+)/))[1]!;
    await Promise.all([startWorker('w1'), startWorker('w2')]);
  }, 30_000);
  afterAll(async () => {
    for (const s of streams) s.unsubscribe();
    for (const proc of [front, ...workers.values()]) {
      if (proc && proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      await proc?.exited;
    }
    await model?.close();
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('resumes on the other worker a reply suspended for confirmation on one (which shut down gracefully)', async () => {
    const events = watch('ship');
    await new Promise((r) => setTimeout(r, 200));
    const { jobId } = await post('/api/sessions/ship/messages', { message: 'Please ship B-7' });
    expect(await finished(jobId!)).toMatchObject({ finishReason: 'awaiting_confirmation' });
    const first = await ranOn(workers, jobId!);
    const confirm = events.find((e) => e.type === 'REQUIRE_USER_CONFIRM');
    const call = confirm?.type === 'REQUIRE_USER_CONFIRM' ? confirm.toolCalls[0]! : undefined;
    expect(call).toMatchObject({ name: 'ship_order', input: { order: 'B-7' } });

    const stopping = workers.get(first)!;
    stopping.child.kill('SIGTERM'); // the suspended reply is in the store, not in this worker
    expect(await stopping.exited).toBe(0);
    const answer = await post('/api/sessions/ship/confirm', { results: [{ toolCallId: call!.id, confirmed: true }] });
    expect(await finished(answer.jobId!)).toMatchObject({ finishReason: 'completed' });
    expect(await ranOn(workers, answer.jobId!)).not.toBe(first);
    expect((await conversation('ship')).at(-1)).toEqual([
      'assistant',
      expect.stringContaining('Done: order B-7 shipped.'),
    ]);
    await startWorker(first); // two workers again for the next tests
  });

  it("keeps two users apart: Bob's model request never holds Alice's message, and Bob is answered while Alice's reply still streams", async () => {
    const aliceEvents = watch('alice-7f3c9a1e');
    const bobEvents = watch('bob-0d52e6b4');
    await new Promise((r) => setTimeout(r, 200));
    const before = model.requests.length;
    // A story streams one word every 100 ms: Alice's reply stays open for seconds.
    const alice = await post('/api/sessions/alice-7f3c9a1e/messages', { message: 'Tell me a story. My card is 4111.' });
    for (let i = 0; i < 200 && !aliceEvents.some((e) => e.type === 'TEXT_BLOCK_DELTA'); i++)
      await new Promise((r) => setTimeout(r, 25));
    const bob = await post('/api/sessions/bob-0d52e6b4/messages', { message: 'What did the last customer say?' });
    expect(await finished(bob.jobId!)).toMatchObject({ finishReason: 'completed' });
    expect(bobEvents.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    const ours = model.requests.slice(before);
    const aliceRequest = ours.find((r) => JSON.stringify(r.body).includes('4111'));
    expect(aliceRequest?.completed).toBe(false); // Alice's reply is still streaming
    expect(ours.filter((r) => JSON.stringify(r.body).includes('What did the last customer say?'))).toHaveLength(1);
    for (const r of ours)
      if (JSON.stringify(r.body).includes('last customer')) expect(JSON.stringify(r.body)).not.toContain('4111');
    expect(await finished(alice.jobId!)).toMatchObject({ finishReason: 'completed' });
  });

  it('delivers a message sent from the front to the running reply, at its next step', async () => {
    const events = watch('stock');
    await new Promise((r) => setTimeout(r, 200));
    const { jobId } = await post('/api/sessions/stock/messages', { message: 'How much stock lamps?' });
    for (let i = 0; i < 200 && !events.some((e) => e.type === 'TOOL_CALL_START'); i++)
      await new Promise((r) => setTimeout(r, 25));
    await post('/api/sessions/stock/inbox', { text: 'Gift-wrap them please' }); // while check_stock runs on a worker
    expect(await finished(jobId!)).toMatchObject({ finishReason: 'completed' });
    expect(events.some((e) => e.type === 'HINT_BLOCK')).toBe(true);
    expect((await conversation('stock')).at(-1)?.[1]).toContain('Noted your message: Gift-wrap them please');
  });

  it('a worker killed mid-reply: the other worker continues the reply from its last checkpoint, under the same id', async () => {
    const events = watch('story');
    await new Promise((r) => setTimeout(r, 200));
    expect(await finished((await post('/api/sessions/story/messages', { message: 'Hello' })).jobId!)).toMatchObject({
      finishReason: 'completed',
    });
    const { jobId } = await post('/api/sessions/story/messages', { message: 'Tell me a story' });
    const victim = await ranOn(workers, jobId!);
    for (
      let i = 0;
      i < 200 && !events.some((e) => e.type === 'TEXT_BLOCK_DELTA' && e.replyId !== events[0]!.replyId);
      i++
    ) {
      await new Promise((r) => setTimeout(r, 25));
    }
    workers.get(victim)!.child.kill('SIGKILL');
    await workers.get(victim)!.exited;
    workers.delete(victim);

    const result = await finished(jobId!);
    expect(result.finishReason).toBe('completed');
    // The killed worker's reply is not ended with an error: once its lease expired, the other worker
    // recovered it from the session's journal (its open blocks closed on the bus, then the same reply goes on).
    const ends = events.filter((e) => e.type === 'REPLY_END');
    expect(ends.map((e) => e.type === 'REPLY_END' && e.finishReason)).toEqual(['completed', 'completed']);
    expect(result.replyId).toBe(ends[1]!.replyId);
    expect(events.filter((e) => e.type === 'CUSTOM' && e.name === 'reply_recovered').map((e) => e.replyId)).toEqual([
      result.replyId,
    ]);
    expect(await conversation('story')).toEqual([
      ['user', 'Hello'],
      ['assistant', 'You said: "Hello".'],
      ['user', 'Tell me a story'],
      ['assistant', expect.stringMatching(/^Once upon a time .* meant for\.$/)],
    ]);
  });
});
