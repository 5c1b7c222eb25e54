/**
 * The child process of the concurrency-at-scale scenario: one contender, measured at each N in
 * turn (see `concurrency-scale.ts` for what and why).
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { OpenAIChatModel } from '@rxscope/core/openai';
import OpenAI from 'openai';
import {
  builtins,
  EXPECTED_TEXT,
  exchangeAgent,
  floorReply,
  MODEL,
  passThrough,
  rxscopeReply,
  type Outcome,
} from './exchange.js';
import { fetchSseReply } from './fetch-sse.js';

/** The contenders, in the order of the report. */
export const SCALE_KINDS = [
  'fetch-sse',
  'openai',
  'rxscope',
  'rxscope+10mw',
  'rxscope+builtins',
  'openai-agents',
  'ai-sdk',
  'langchain',
] as const;
export type ScaleKind = (typeof SCALE_KINDS)[number];

export interface ScaleChildArgs {
  readonly url: string;
  readonly kind: ScaleKind;
  /** Replies in flight, ascending; 1 is measured as replies one after another (see {@link ScaleFigures}). */
  readonly sizes: readonly number[];
  /** Replies of the warm-up waves (each wave's replies at once), after the first reply. */
  readonly warmup: readonly number[];
  /** Replies one after another at N = 1. */
  readonly sequential: number;
  /**
   * A path to write a heap snapshot to when every reply of the largest N below 2,000 is held (and
   * one to `…-before.heapsnapshot` before they start), for the notes on where the bytes go.
   */
  readonly snapshot?: string;
}

/** What one contender measured at one N. */
export interface ScaleFigures {
  readonly n: number;
  /** Live heap after a forced GC with all N replies held mid-stream, minus the heap before, per reply (KB). */
  readonly heapPerReplyKB: number;
  /** The same for external memory and array buffers (undici's socket and body buffers), per reply (KB). */
  readonly externalPerReplyKB: number;
  /** CPU time (user + system) of the process per reply, forced GCs left out (ms). */
  readonly cpuPerReplyMs: number;
  /** Event-loop delay p99 and max while the N replies ran (forced GCs left out), ms. */
  readonly eldP99Ms: number;
  readonly eldMaxMs: number;
  readonly failed: number;
  readonly errors: Readonly<Record<string, number>>;
}

export interface ScaleResult {
  /** CPU time of the very first reply of the fresh process (imports done, nothing compiled yet), ms. */
  readonly firstReplyCpuMs: number;
  readonly figures: readonly ScaleFigures[];
}

const exposed = (globalThis as { gc?: (o?: { type: 'major'; execution: 'sync' }) => void }).gc;
/** A full GC that keeps compiled code (plain `gc()` flushes it: the next replies would recompile). */
const gc = (): void => exposed?.({ type: 'major', execution: 'sync' });
const cpuMs = (since?: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The live heap after full GCs: a GC, a pause for V8's concurrent sweeping to finish (until it
 * has, `heapUsed` still counts some of the dead objects: single readings then moved by ±30 KB per
 * reply at N = 1,000), and another GC.
 */
async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  gc();
  await sleep(100);
  gc();
  await sleep(100);
  gc();
  return process.memoryUsage();
}

/**
 * Event-loop delay over spans of a run (before the forced GCs and after), one
 * `monitorEventLoopDelay` per span: a monitor disabled and enabled again would count the GCs'
 * pause as one delay. Histograms of that kind cannot be merged: the figures are the larger of
 * the spans' p99 (and max).
 */
class LoopDelay {
  private readonly spans: IntervalHistogram[] = [];
  start(): void {
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    this.spans.push(h);
  }
  stop(): void {
    this.spans.at(-1)?.disable();
  }
  get p99Ms(): number {
    return Math.max(0, ...this.spans.filter((h) => h.count).map((h) => h.percentile(99) / 1e6));
  }
  get maxMs(): number {
    return Math.max(0, ...this.spans.filter((h) => h.count).map((h) => h.max / 1e6));
  }
}

/** One reply of the contender, resolved with its outcome. */
async function starterOf(kind: ScaleKind, url: string): Promise<() => Promise<Outcome>> {
  const apiKey = 'bench';
  switch (kind) {
    case 'fetch-sse':
      return () => fetchSseReply({ baseURL: url, apiKey });
    case 'openai': {
      const client = new OpenAI({ apiKey, baseURL: url, maxRetries: 0 });
      return () => floorReply(client);
    }
    case 'rxscope':
    case 'rxscope+10mw':
    case 'rxscope+builtins': {
      const model = new OpenAIChatModel({ model: MODEL, apiKey, baseURL: url, maxRetries: 0 });
      const mws = kind === 'rxscope+10mw' ? passThrough(10) : kind === 'rxscope+builtins' ? builtins() : [];
      return () => rxscopeReply(exchangeAgent(model, mws));
    }
    default: {
      // The field's libraries load only in their own contender's process.
      const { peers } = await import('./peers.js');
      const peer = peers(url, apiKey).find((p) => p.name === kind)!;
      return () => peer.reply();
    }
  }
}

/**
 * Asks the server's stream gate to close, open, or how many responses it holds. Retried: with
 * thousands of connections opening at once, the request may find the listen queue full.
 */
async function gate(url: string, what: 'close' | 'open' | 'held'): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await askGate(url, what);
    } catch (e) {
      if (attempt === 5) {
        const cause = (e as { cause?: { code?: string; message?: string } }).cause;
        throw new Error(`the stream gate did not answer ${what}: ${String(e)} (${cause?.code ?? cause?.message})`, {
          cause: e,
        });
      }
      await sleep(200 * attempt);
    }
  }
}

async function askGate(url: string, what: 'close' | 'open' | 'held'): Promise<number> {
  const res = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    body: JSON.stringify({ model: `gate:${what}`, messages: [{ role: 'user', content: what }] }),
  });
  const body = (await res.json()) as { choices: { message: { content: string } }[] };
  return Number(body.choices[0]!.message.content);
}

class Failures {
  count = 0;
  readonly reasons = new Map<string, number>();
  add(e: unknown): void {
    this.count++;
    const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
    const why = `${e instanceof Error ? e.message : String(e)}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
    this.reasons.set(why.slice(0, 160), (this.reasons.get(why.slice(0, 160)) ?? 0) + 1);
  }
}

/** Runs one reply and checks its text; failures are counted, never thrown. */
const checked = (start: () => Promise<Outcome>, failures: Failures): Promise<void> =>
  start().then(
    (r) => {
      if (r.text !== EXPECTED_TEXT) failures.add(new Error(`a reply streamed "${r.text.slice(0, 60)}…"`));
    },
    (e: unknown) => failures.add(e),
  );

/**
 * N replies in flight: the gate closed, the replies started (in slices of 100 per macrotask, as
 * requests arriving together would be), the heap measured once all N are held mid-stream.
 */
async function measureMany(
  start: () => Promise<Outcome>,
  n: number,
  url: string,
  snapshot?: string,
): Promise<ScaleFigures> {
  const failures = new Failures();
  let settled = 0;
  await gate(url, 'close');
  const before = await settledMemory();
  if (snapshot)
    (await import('node:v8')).writeHeapSnapshot(snapshot.replace(/(\.heapsnapshot)?$/, '-before.heapsnapshot'));
  const eld = new LoopDelay();
  eld.start();
  const cpu0 = process.cpuUsage();
  const runs: Promise<void>[] = [];
  for (let i = 0; i < n; i += 100) {
    for (let j = i; j < Math.min(n, i + 100); j++) runs.push(checked(start, failures).finally(() => settled++));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const deadline = performance.now() + 300_000;
  while ((await gate(url, 'held')) + settled < n) {
    if (performance.now() > deadline)
      throw new Error(`${n} replies: not all held mid-stream after 300 s (${settled} settled)`);
    await sleep(50);
  }
  eld.stop();
  const gcCpu0 = process.cpuUsage();
  const during = await settledMemory();
  if (snapshot) (await import('node:v8')).writeHeapSnapshot(snapshot);
  const gcCpu = cpuMs(gcCpu0);
  eld.start();
  await gate(url, 'open');
  await Promise.all(runs);
  const cpu = cpuMs(cpu0) - gcCpu;
  eld.stop();
  const perReply = (bytes: number) => bytes / 1024 / n;
  return {
    n,
    heapPerReplyKB: perReply(during.heapUsed - before.heapUsed),
    externalPerReplyKB: perReply(during.external + during.arrayBuffers - before.external - before.arrayBuffers),
    cpuPerReplyMs: cpu / n,
    eldP99Ms: eld.p99Ms,
    eldMaxMs: eld.maxMs,
    failed: failures.count,
    errors: Object.fromEntries(failures.reasons),
  };
}

/**
 * N = 1: CPU and event-loop delay over `sequential` replies one after another (one reply's CPU
 * is a few ms and the clock's resolution and a stray GC would dominate a single sample); the
 * heap of one held reply, the median of three.
 */
async function measureOne(start: () => Promise<Outcome>, url: string, sequential: number): Promise<ScaleFigures> {
  const failures = new Failures();
  gc();
  const eld = new LoopDelay();
  eld.start();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < sequential; i++) await checked(start, failures);
  const cpu = cpuMs(cpu0) / sequential;
  eld.stop();
  const heaps: ScaleFigures[] = [];
  for (let i = 0; i < 3; i++) heaps.push(await measureMany(start, 1, url));
  heaps.sort((a, b) => a.heapPerReplyKB - b.heapPerReplyKB);
  const mid = heaps[1]!;
  return {
    n: 1,
    heapPerReplyKB: mid.heapPerReplyKB,
    externalPerReplyKB: mid.externalPerReplyKB,
    cpuPerReplyMs: cpu,
    eldP99Ms: eld.p99Ms,
    eldMaxMs: eld.maxMs,
    failed: failures.count + heaps.reduce((s, h) => s + h.failed, 0),
    errors: Object.fromEntries(failures.reasons),
  };
}

/** Runs in the child process: the first reply, the warm-up waves, then each N. */
export async function scaleChild(args: ScaleChildArgs): Promise<ScaleResult> {
  const start = await starterOf(args.kind, args.url);
  const cpu0 = process.cpuUsage();
  const first = new Failures();
  await checked(start, first);
  const firstReplyCpuMs = cpuMs(cpu0);
  if (first.count) throw new Error(`${args.kind}: the first reply failed: ${[...first.reasons.keys()].join('; ')}`);
  for (const wave of args.warmup) await Promise.all(Array.from({ length: wave }, () => start().catch(() => undefined)));
  const snapshotAt = Math.max(...args.sizes.filter((n) => n < 2000));
  const figures: ScaleFigures[] = [];
  // N = 1 after the sizes below 2,000: V8 still optimises the request path (the `openai` client's
  // makeRequest alone takes 100–200 ms of TurboFan on a background thread, counted in the
  // process's CPU time) for the first few hundred replies; a dozen replies measured then would
  // carry it. By then the process has run more than 1,000 replies.
  const order = [
    ...args.sizes.filter((n) => n > 1 && n < 2000),
    ...args.sizes.filter((n) => n === 1),
    ...args.sizes.filter((n) => n >= 2000),
  ];
  for (const n of order) {
    figures.push(
      n === 1
        ? await measureOne(start, args.url, args.sequential)
        : await measureMany(start, n, args.url, n === snapshotAt ? args.snapshot : undefined),
    );
  }
  return { firstReplyCpuMs, figures: [...figures].sort((a, b) => a.n - b.n) };
}
