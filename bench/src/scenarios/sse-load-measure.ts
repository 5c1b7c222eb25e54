/**
 * The SSE load measurement (used by the `sse-load` scenario and its CI spec): the node-service
 * example in one process holding N event streams of agent replies from a client process over
 * loopback, the model (the OpenAI-compatible test server) in a third. Then a client that stops
 * reading, against a reply larger than the service's bound.
 */
import { type Actor, forkActor } from '../harness/actor.js';
import { startServerProcess } from '../harness/server.js';
import { quantile, sortedCopy } from '../harness/stats.js';
import type { StreamResult } from './sse-load-client.js';
import type { MemoryPeaks, ServerMemory } from './sse-load-service.js';

export interface SseLoadSizes {
  /** Concurrent streams (one session and one reply each). */
  readonly streams: number;
  /** Text chunks per reply. */
  readonly chunks: number;
  /** The model's delay before each chunk, ms. */
  readonly chunkDelayMs: number;
  /** Sessions streamed once before measuring (JIT, pools). */
  readonly warmup: number;
  /** The slow-client part: chunks of 64 KiB in the big reply. */
  readonly bigChunks: number;
  /** The service's `maxQueuedBytes` in the slow-client part; undefined: the example's default (16 MiB). */
  readonly maxQueuedBytes?: number;
}

export interface SlowRun {
  readonly mode: 'reader' | 'reader+slow';
  /** Before the reply, after GC. */
  readonly before: ServerMemory;
  /** Peaks during the reply (no GC). */
  readonly peaks: Omit<MemoryPeaks, 'closed'>;
  /** After the reply, after GC, the reader still connected. */
  readonly after: ServerMemory;
  /** The reading client's stream: complete and correct? */
  readonly reader: StreamResult;
  /** ms from the POST to the server closing the slow client's connection (undefined: it did not). */
  readonly slowDroppedAfterMs?: number;
  /** Bytes the server had written into the slow connection when it closed it (held by the kernel's socket buffers). */
  readonly slowBytesWritten?: number;
  /** ms from the POST to the reader's `REPLY_END`. */
  readonly replyMs: number;
}

export interface SseLoadFigures {
  readonly sizes: SseLoadSizes;
  /** Server memory: after the warm-up (no stream open), with N streams open and N replies waiting for the model, after the replies ended (streams open), after the clients left. */
  readonly memory: {
    readonly base: ServerMemory;
    readonly held: ServerMemory;
    readonly ended: ServerMemory;
    readonly left: ServerMemory;
  };
  readonly results: {
    readonly streams: number;
    readonly accepted: number;
    readonly complete: number;
    readonly failures: readonly StreamResult[];
  };
  /** Text-delta latencies, ms: appended to the session log in the service → read by the client. */
  readonly latency: {
    readonly n: number;
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly max: number;
  };
  /** From the model's release to the last `REPLY_END`, ms; and the ideal (chunks × delay + spread). */
  readonly streamingMs: number;
  readonly idealMs: number;
  readonly textEventsPerSecond: number;
  readonly clock: { readonly serviceRttMs: number; readonly clientRttMs: number };
  readonly slow: readonly SlowRun[];
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `${i ? ' ' : ''}w${i + 1}`);
const sessions = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const waitUntil = async (what: string, ok: () => Promise<boolean>, timeoutMs: number) => {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
const actor = (file: string) => forkActor(new URL(file, import.meta.url));

/** Runs the load part and the slow-client part; every child process is gone when it resolves. */
export async function measureSseLoad(sizes: SseLoadSizes, log: (line: string) => void): Promise<SseLoadFigures> {
  const text = words(sizes.chunks);
  const spreadMs = sizes.chunkDelayMs;
  const model = await startServerProcess({
    turn: { text, usage: { inputTokens: 50, outputTokens: sizes.chunks } },
    chunkDelayMs: sizes.chunkDelayMs,
    hold: { spreadMs },
    keepAliveTimeoutMs: 120_000,
  });
  const children: Actor[] = [];
  try {
    const service = await actor('./sse-load-service.js');
    const client = await actor('./sse-load-client.js');
    children.push(service, client);
    const { url } = await service.ask<{ url: string }>('start', { modelUrl: model.url });
    const expected = text.join('');
    const requests = async () => (await model.connections()).requests;

    const round = async (names: readonly string[]) => {
      const already = await requests();
      const { accepted } = await client.ask<{ accepted: number }>('open', {
        url,
        sessions: names,
        text: 'Hello',
        expected,
      });
      await waitUntil('the model requests', async () => (await requests()) >= already + accepted, 120_000);
      return accepted;
    };
    log(`warm-up: ${sizes.warmup} streams`);
    await round(sessions('warm', sizes.warmup));
    model.release();
    await client.ask('ended', { timeoutMs: 60_000 });
    await client.ask('close');
    await client.ask('arrivals');
    const base = await service.ask<ServerMemory>('snapshot');

    log(`${sizes.streams} streams`);
    await service.ask('stamping', true);
    const accepted = await round(sessions('s', sizes.streams));
    const held = await service.ask<ServerMemory>('snapshot');
    const t0 = performance.now();
    model.release();
    const results = await client.ask<StreamResult[]>('ended', { timeoutMs: 300_000 });
    const streamingMs = performance.now() - t0;
    const ended = await service.ask<ServerMemory>('snapshot');
    const stamps = new Map(await service.ask<[string, number][]>('stamps'));
    const arrivals = await client.ask<[string, number][]>('arrivals');
    const [s, c] = [await service.clockOffset(), await client.clockOffset()];
    const latencies = sortedCopy(
      arrivals.flatMap(([id, at]) => {
        const sent = stamps.get(id);
        return sent === undefined ? [] : [at - c.offsetMs - (sent - s.offsetMs)];
      }),
    );
    await client.ask('close');
    await waitUntil(
      'the streams to close',
      async () => (await service.ask<ServerMemory>('snapshot')).sockets <= 32,
      30_000,
    );
    const left = await service.ask<ServerMemory>('snapshot');
    await service.ask('close');
    await Promise.all([service.exit(), client.exit()]);

    const failures = results.filter((r) => !r.ended || r.finishReason !== 'completed' || !r.textOk || r.error);
    const slow = await slowClient(sizes, log);
    return {
      sizes,
      memory: { base, held, ended, left },
      results: {
        streams: sizes.streams,
        accepted,
        complete: results.length - failures.length,
        failures: failures.slice(0, 5),
      },
      latency: {
        n: latencies.length,
        p50: quantile(latencies, 0.5),
        p90: quantile(latencies, 0.9),
        p99: quantile(latencies, 0.99),
        max: latencies.at(-1) ?? Number.NaN,
      },
      streamingMs,
      idealMs: sizes.chunks * sizes.chunkDelayMs + spreadMs,
      textEventsPerSecond: (latencies.length / streamingMs) * 1000,
      clock: { serviceRttMs: s.rttMs, clientRttMs: c.rttMs },
      slow,
    };
  } finally {
    await Promise.all(children.map((a) => a.exit()));
    await model.close();
  }
}

const BIG_CHUNK = 64 * 1024;

/** One big reply (bigChunks × 64 KiB) read by one client, with and without a second client on the same session that never reads. */
async function slowClient(sizes: SseLoadSizes, log: (line: string) => void): Promise<SlowRun[]> {
  const text = Array.from(
    { length: sizes.bigChunks },
    (_, i) => `${String(i).padStart(6, '0')}${'x'.repeat(BIG_CHUNK - 6)}`,
  );
  const model = await startServerProcess({ turn: { text, usage: { inputTokens: 50, outputTokens: text.length } } });
  const runs: SlowRun[] = [];
  try {
    for (const mode of ['reader', 'reader+slow'] as const) {
      log(`slow client: ${mode}, a reply of ${((sizes.bigChunks * BIG_CHUNK) / 2 ** 20).toFixed(0)} MiB`);
      const service = await actor('./sse-load-service.js');
      const client = await actor('./sse-load-client.js');
      try {
        const { url } = await service.ask<{ url: string }>('start', {
          modelUrl: model.url,
          ...(sizes.maxQueuedBytes !== undefined ? { maxQueuedBytes: sizes.maxQueuedBytes } : {}),
        });
        const before = await service.ask<ServerMemory>('snapshot');
        await service.ask('startSampling');
        const slowPort = mode === 'reader+slow' ? await client.ask<number>('slow', { url, session: 'big' }) : undefined;
        if (slowPort !== undefined)
          await waitUntil(
            'the slow stream',
            async () => (await service.ask<ServerMemory>('snapshot')).sockets >= 1,
            10_000,
          );
        const s = await service.clockOffset();
        const t0 = performance.now();
        const posted = performance.timeOrigin + t0;
        await client.ask('open', { url, sessions: ['big'], text: 'Hello', expected: text.join('') });
        const [reader] = await client.ask<StreamResult[]>('ended', { timeoutMs: 120_000 });
        const replyMs = performance.now() - t0;
        const { closed, ...peaks } = await service.ask<MemoryPeaks>('stopSampling');
        const after = await service.ask<ServerMemory>('snapshot');
        const dropped = slowPort !== undefined ? closed[String(slowPort)] : undefined;
        runs.push({
          mode,
          before,
          peaks,
          after,
          reader: reader!,
          replyMs,
          ...(dropped !== undefined
            ? { slowDroppedAfterMs: dropped.at - s.offsetMs - posted, slowBytesWritten: dropped.bytesWritten }
            : {}),
        });
        await client.ask('closeSlow');
        await client.ask('close');
        await service.ask('close');
      } finally {
        await Promise.all([service.exit(), client.exit()]);
      }
    }
  } finally {
    await model.close();
  }
  return runs;
}
