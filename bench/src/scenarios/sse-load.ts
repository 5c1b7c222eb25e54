/**
 * Load (issue 19): the node-service example holding 1,000 concurrent SSE streams of agent
 * replies in one process; memory per stream, text-delta latency, and a client that stops reading.
 */
import type { Check, CustomScenario, Table } from '../harness/scenario.js';
import { measureSseLoad, type SseLoadSizes } from './sse-load-measure.js';

const FULL: SseLoadSizes = { streams: 1000, chunks: 30, chunkDelayMs: 100, warmup: 50, bigChunks: 1600 };
const QUICK: SseLoadSizes = {
  streams: 20,
  chunks: 5,
  chunkDelayMs: 5,
  warmup: 5,
  bigChunks: 160,
  maxQueuedBytes: 256 * 1024,
};
const DEFAULT_MAX_QUEUED = 16 * 2 ** 20;

const MiB = (b: number) => (b / 2 ** 20).toFixed(1);
const KB = (b: number) => (b / 1000).toFixed(1);
const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

export const sseLoad: CustomScenario = {
  kind: 'custom',
  id: 'sse-load',
  title: 'Load — the node-service holding 1,000 SSE streams',
  description:
    'Three processes on one machine, over loopback: the node-service example (`startService` from `examples/node-service`, as its `main.ts` starts it, with the real `OpenAIChatModel`, its in-memory session bus and default SSE settings but a 1 s heartbeat instead of 15 s: the response of a stream starts with its first event or heartbeat, and the client waits for every stream to start before posting its message), a client process, and the OpenAI-compatible test server. ' +
    'The client opens one event stream per session (`GET /api/sessions/:id/events`, a connection each) and POSTs a message to each session; every reply streams the same text, one word per chunk, with a fixed delay before each chunk. ' +
    'The model holds every request until all N have arrived (the service then has N streams open and N replies waiting: the *held* snapshot), then answers them spread over one chunk interval, so the streams run at a steady rate rather than in lockstep. ' +
    'Memory per stream = (server `heapUsed` after forced GCs − the same after a warm-up with no stream open) / N; RSS likewise (RSS includes freed memory not yet returned to the system). ' +
    "Latency of a text delta = the client reading its bytes from the socket − the service appending it to the session's log (the agent emitting it, before the SSE handler writes it), both on `performance.timeOrigin + performance.now()`, corrected by each process's clock offset against the parent (measured by IPC round trips, under 1 ms). " +
    'The slow client: a socket that sends the GET for a session and never reads, next to a normal reader of the same session, while the model streams one large reply (64 KiB chunks); the same without the slow client for comparison. The server memory is sampled every 10 ms (peaks, no GC).',
  run: async (ctx) => {
    const sizes = ctx.config.quick ? QUICK : FULL;
    const f = await measureSseLoad(sizes, (line) => ctx.log(line));
    const n = sizes.streams;
    const per = (a: number, b: number) => (b - a) / n;
    const m = f.memory;
    const memoryTable: Table = {
      title: `Server memory (node-service process) with ${n.toLocaleString('en-US')} streams`,
      columns: [
        'when',
        'heapUsed after GC (MiB)',
        'RSS (MiB)',
        'external (MiB)',
        'TCP connections',
        'heap per stream (KB)',
        'RSS per stream (KB)',
      ],
      align: ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
      rows: [
        [
          'after the warm-up, no stream open (base)',
          MiB(m.base.heapUsed),
          MiB(m.base.rss),
          MiB(m.base.external),
          String(m.base.sockets),
          '—',
          '—',
        ],
        [
          `${n} streams open, ${n} replies waiting for the model`,
          MiB(m.held.heapUsed),
          MiB(m.held.rss),
          MiB(m.held.external),
          String(m.held.sockets),
          KB(per(m.base.heapUsed, m.held.heapUsed)),
          KB(per(m.base.rss, m.held.rss)),
        ],
        [
          `${n} replies ended, streams still open (each session's log holds its reply)`,
          MiB(m.ended.heapUsed),
          MiB(m.ended.rss),
          MiB(m.ended.external),
          String(m.ended.sockets),
          KB(per(m.base.heapUsed, m.ended.heapUsed)),
          KB(per(m.base.rss, m.ended.rss)),
        ],
        [
          'the clients left (sessions and logs kept)',
          MiB(m.left.heapUsed),
          MiB(m.left.rss),
          MiB(m.left.external),
          String(m.left.sockets),
          KB(per(m.base.heapUsed, m.left.heapUsed)),
          KB(per(m.base.rss, m.left.rss)),
        ],
      ],
    };
    const l = f.latency;
    const latencyTable: Table = {
      title: 'Text-delta latency: appended to the session log in the service → read by the client (ms)',
      columns: [
        'text deltas',
        'p50',
        'p90',
        'p99',
        'max',
        'text deltas per second',
        'all replies streamed in (ms)',
        'ideal (ms)',
      ],
      rows: [
        [
          l.n.toLocaleString('en-US'),
          ms(l.p50),
          ms(l.p90),
          ms(l.p99),
          ms(l.max),
          Math.round(f.textEventsPerSecond).toLocaleString('en-US'),
          ms(f.streamingMs),
          ms(f.idealMs),
        ],
      ],
    };
    const bound = sizes.maxQueuedBytes ?? DEFAULT_MAX_QUEUED;
    const slowTable: Table = {
      title: `A client that stops reading (reply of ${MiB(sizes.bigChunks * 64 * 1024)} MiB; the service drops a stream past ${MiB(bound)} MiB queued)`,
      columns: [
        'clients on the session',
        'heap before (MiB)',
        'peak heapUsed (MiB)',
        'peak external (MiB)',
        'peak RSS (MiB)',
        'heap after GC (MiB)',
        'reader got the whole reply',
        'slow connection closed by the server',
      ],
      align: ['left', 'right', 'right', 'right', 'right', 'right', 'left', 'left'],
      rows: f.slow.map((r) => [
        r.mode === 'reader' ? 'one reader' : 'one reader + one that never reads',
        MiB(r.before.heapUsed),
        MiB(r.peaks.heapUsed),
        MiB(r.peaks.external),
        MiB(r.peaks.rss),
        MiB(r.after.heapUsed),
        r.reader.textOk && r.reader.finishReason === 'completed'
          ? `yes, in ${ms(r.replyMs)} ms`
          : `no (${r.reader.finishReason ?? r.reader.error})`,
        r.mode === 'reader'
          ? '—'
          : r.slowDroppedAfterMs !== undefined
            ? `yes, ${ms(r.slowDroppedAfterMs)} ms after the POST, ${MiB(r.slowBytesWritten ?? 0)} MiB written into it (kernel buffers)`
            : '**no**',
      ]),
    };
    const [reader, slow] = f.slow;
    const extra =
      slow && reader
        ? Math.max(slow.peaks.heapUsed + slow.peaks.external - (reader.peaks.heapUsed + reader.peaks.external), 0)
        : NaN;
    const checks: Check[] = [
      {
        text: `all ${n.toLocaleString('en-US')} streams carry their whole reply, well ended`,
        value: `${f.results.complete.toLocaleString('en-US')} of ${n.toLocaleString('en-US')} complete (${f.results.accepted} POSTs accepted)`,
        limit: `${n}`,
        met: f.results.complete === n,
      },
      {
        text: 'a client that stops reading is dropped and costs the server at most its bound: the extra peak heap + external memory over the run with only the reader',
        value: `${MiB(extra)} MiB extra; dropped: ${slow?.slowDroppedAfterMs !== undefined ? 'yes' : 'no'}; the reader's reply ${slow?.reader.textOk ? 'complete' : 'incomplete'}`,
        limit: `≤ ${MiB(bound)} MiB + 8 MiB, dropped, reader complete`,
        met: extra <= bound + 8 * 2 ** 20 && slow?.slowDroppedAfterMs !== undefined && slow.reader.textOk === true,
      },
    ];
    return {
      tables: [memoryTable, latencyTable, slowTable],
      checks,
      notes: [
        `Sizes: ${n} streams, replies of ${sizes.chunks} text chunks, ${sizes.chunkDelayMs} ms before each chunk, ${sizes.warmup} streams of warm-up; the slow-client part: ${sizes.bigChunks} chunks of 64 KiB${sizes.maxQueuedBytes ? `, \`maxQueuedBytes\` ${sizes.maxQueuedBytes}` : ", the service's default `maxQueuedBytes`"}`,
        `Clock offsets measured with IPC round trips of ${f.clock.serviceRttMs.toFixed(2)} ms (service) and ${f.clock.clientRttMs.toFixed(2)} ms (client)`,
        ...(f.results.failures.length ? [`Failed streams (first 5): ${JSON.stringify(f.results.failures)}`] : []),
      ],
      data: f,
    };
  },
};
