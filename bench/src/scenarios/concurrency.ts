/**
 * S3 — concurrency (issue 6): 1,000 replies of the agent exchange in flight at once, the server
 * waiting 5 ms before each streamed chunk. Wall time against the ideal, peak RSS, and memory per
 * in-flight reply. Each contender runs in a fresh child process (its peak RSS is its own).
 */
import { type Agent } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import OpenAI from 'openai';
import { runInChild } from '../harness/child-process.js';
import type { Check, CustomScenario, Table } from '../harness/scenario.js';
import { startServerProcess } from '../harness/server.js';
import {
  EXCHANGE_LINES,
  EXCHANGE_SERVER,
  EXPECTED_TEXT,
  exchangeAgent,
  floorReply,
  MODEL,
  nextOnly,
  passThrough,
  rxscopeReply,
  type Outcome,
} from './exchange.js';

const DELAY_MS = 5;
const MAX_KB_PER_REPLY = 20;
const MAX_WALL_RATIO = 1.2;

type Kind = 'openai' | 'rxscope' | 'rxscope+10next' | 'rxscope+10mw';
const KINDS: readonly Kind[] = ['openai', 'rxscope', 'rxscope+10next', 'rxscope+10mw'];
const LABELS: Record<Kind, string> = {
  openai: 'plain `openai` client, the exchange by hand (the floor)',
  rxscope: '`Agent.reply()`, no middleware (one agent per reply)',
  'rxscope+10next': "`Agent.reply()`, 10 middlewares whose hooks return `next(input)` (the chain's own cost per layer)",
  'rxscope+10mw': '`Agent.reply()`, 10 pass-through middlewares (each hook adds a `map`)',
};
/** Replies in flight of the smaller run (C), where the machine is not the bottleneck. */
const FEW = 20;

interface ChildArgs {
  readonly url: string;
  readonly kind: Kind;
  readonly replies: number;
  readonly alone: number;
  /** Smoke run: one GC where two would settle the heap better. */
  readonly quick?: boolean;
}

/** What one contender's child process measured. */
export interface ConcurrencyFigures {
  /** Median time of one reply alone (nothing else in flight), ms. */
  readonly aloneMs: number;
  /** Wall time of `replies` replies started at once, ms. */
  readonly wallMs: number;
  /** CPU time (user + system) of this process during run A, per reply, ms. */
  readonly cpuPerReplyMs: number;
  /** Median wall time of three runs of {@link FEW} replies started at once, ms. */
  readonly fewWallMs: number;
  /** Median and slowest reply of the concurrent run, ms. */
  readonly replyMedianMs: number;
  readonly replyMaxMs: number;
  /** Process peak RSS (whole life of the child), MiB. */
  readonly peakRssMiB: number;
  /** Highest RSS sampled during the concurrent run minus the RSS before it, MiB. */
  readonly rssGrowthMiB: number;
  /** Heap after a forced GC with every reply in flight minus the heap after a forced GC before, per reply, KB. */
  readonly heapPerReplyKB: number;
  /** The same for external memory and array buffers (the HTTP client's buffers live there), per reply, KB. */
  readonly externalPerReplyKB: number;
  /** Replies that failed (connection errors) in runs A and B, and why. */
  readonly failed: number;
  readonly errors: Readonly<Record<string, number>>;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

/** Runs in the child process: measures one contender. */
export async function concurrencyChild(args: ChildArgs): Promise<ConcurrencyFigures> {
  const client = new OpenAI({ apiKey: 'bench', baseURL: args.url, maxRetries: 0 });
  const model = new OpenAIChatModel({ model: MODEL, apiKey: 'bench', baseURL: args.url, maxRetries: 0 });
  const mws = args.kind === 'rxscope+10mw' ? passThrough(10) : args.kind === 'rxscope+10next' ? nextOnly(10) : [];
  const start = (onFirstText?: () => void): Promise<Outcome> => {
    if (args.kind === 'openai') return floorReply(client, onFirstText ? { onFirstText } : {});
    const agent: Agent = exchangeAgent(model, mws);
    return rxscopeReply(agent, onFirstText ? { onFirstText } : {});
  };
  // Warm up (JIT) and fill the connection pool in waves of at most 250 more replies: the
  // measured runs then find as many keep-alive connections as replies, as a service in steady
  // state does (1,000 simultaneous connects would overflow the server's listen backlog, 511 in
  // Node, and get some connections reset: the client's and the OS's matter, not the framework's).
  let failed = 0;
  const errors = new Map<string, number>();
  const fail = (e: unknown) => {
    failed++;
    const cause = (e as { cause?: { cause?: { code?: string }; code?: string; message?: string } })?.cause;
    const why =
      `${e instanceof Error ? e.message : String(e)}${cause ? ` (${cause.cause?.code ?? cause.code ?? cause.message})` : ''}`.slice(
        0,
        160,
      );
    errors.set(why, (errors.get(why) ?? 0) + 1);
  };
  for (const n of [...new Set([100, 250, 500, 750, args.replies].map((w) => Math.min(w, args.replies)))]) {
    await Promise.all(Array.from({ length: n }, () => start().catch(() => undefined)));
  }

  // Run A: wall time and RSS of `replies` replies started at once.
  if (!args.quick) gc();
  const rss0 = process.memoryUsage.rss();
  let rssMax = rss0;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, process.memoryUsage.rss());
  }, 10);
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: args.replies }, async () => {
      const t = performance.now();
      try {
        const r = await start();
        if (r.text !== EXPECTED_TEXT) throw new Error(`${args.kind}: a reply streamed "${r.text}"`);
        times.push(performance.now() - t);
      } catch (e) {
        fail(e);
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  rssMax = Math.max(rssMax, process.memoryUsage.rss());

  // Run B: live memory with every reply in flight (each has streamed its first text chunk).
  await new Promise((r) => setTimeout(r, args.quick ? 0 : 200));
  gc();
  if (!args.quick) gc();
  const before = process.memoryUsage();
  let started = 0;
  let release!: () => void;
  const allStarted = new Promise<void>((r) => (release = r));
  const count = () => {
    if (++started === args.replies) release();
  };
  const runs = Array.from({ length: args.replies }, () =>
    start(count).catch((e: unknown) => {
      fail(e);
      count();
    }),
  );
  await allStarted;
  gc();
  if (!args.quick) gc();
  const during = process.memoryUsage();
  await Promise.all(runs);

  // Run C: fewer replies at once, three times: the same exchange where the machine keeps up.
  const few = Math.min(FEW, args.replies);
  const fewWalls: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await Promise.all(Array.from({ length: few }, () => start().catch(fail)));
    fewWalls.push(performance.now() - t);
  }

  // Last, one reply at a time: what a reply takes with nothing else in flight.
  const alone: number[] = [];
  for (let i = 0; i < args.alone; i++) {
    const t = performance.now();
    await start();
    alone.push(performance.now() - t);
  }

  const kb = (b: number) => b / 1024 / args.replies;
  return {
    aloneMs: median(alone),
    wallMs,
    fewWallMs: median(fewWalls),
    cpuPerReplyMs: (cpu.user + cpu.system) / 1000 / args.replies,
    replyMedianMs: median(times),
    replyMaxMs: Math.max(...times),
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    rssGrowthMiB: (rssMax - rss0) / 2 ** 20,
    heapPerReplyKB: kb(during.heapUsed - before.heapUsed),
    failed,
    errors: Object.fromEntries(errors),
    externalPerReplyKB: kb(during.external + during.arrayBuffers - before.external - before.arrayBuffers),
  };
}

export const concurrency: CustomScenario = {
  kind: 'custom',
  id: 'concurrency',
  title: 'S3 — Concurrency: 1,000 replies in flight, 5 ms between chunks',
  description:
    `1,000 replies of the S1 exchange (two streamed calls of 20 text chunks, a tool call between) started at once; the test server (own process, keep-alive) waits ${DELAY_MS} ms before each streamed line. ` +
    `The ideal is the server's schedule: ${EXCHANGE_LINES} lines per reply × ${DELAY_MS} ms = ${EXCHANGE_LINES * DELAY_MS} ms, what a reply takes with zero processing cost. ` +
    "Each contender runs in a fresh child process (`--expose-gc`): a warm-up in waves of 100, 250, 500, 750 and 1,000 concurrent replies (so that the pool holds a keep-alive connection per reply, as in a service in steady state; 1,000 simultaneous connects overflow the server's listen backlog of 511 and get some reset), then run A (all replies at once: wall time, RSS sampled every 10 ms), run B " +
    '(all replies at once again; when every reply has streamed its first text chunk, two forced GCs and `process.memoryUsage()`: live heap per in-flight reply, and external + array-buffer memory, where undici keeps socket and body buffers), ' +
    `then run C (${FEW} replies at once, three times, the median wall time: the same exchange where the machine keeps up), and last 5 replies one at a time (“alone”). ` +
    "The server keeps connections alive for 30 s (Node's default 5 s let a loaded client reuse connections the server was closing: ECONNRESET). " +
    'rxscope replies each have their own `Agent` (sharing the model and middleware instances), as a service with 1,000 sessions would. ' +
    "`rxscope+10next` has 10 middlewares whose hooks return `next(input)` itself (what the chain costs per layer); `rxscope+10mw` the pass-through middlewares of S1, each onion hook adding a `map` operator (an Observable and a subscriber per layer per reply: the middleware's own cost). " +
    "“Memory besides the HTTP client's own” is rxscope's live heap per reply minus the floor's: both use the same `openai` client over the same fetch.",
  run: async (ctx) => {
    const replies = ctx.config.quick ? 20 : 1000;
    const delay = ctx.config.quick ? 1 : DELAY_MS;
    const alone = ctx.config.quick ? 2 : 5;
    const kinds = ctx.only?.length ? KINDS.filter((k) => ctx.only!.includes(k)) : KINDS;
    const figures = new Map<Kind, ConcurrencyFigures>();
    // A quick run (CI) measures nothing worth keeping: it runs in this process, without the forks and their imports.
    const each = async (kind: Kind) => {
      // A fresh server per contender: its recorded requests and sockets start from zero.
      // A 30 s keep-alive on the server: 1,000 replies keep up to 2,000 connections in the pool,
      // and at Node's default 5 s some get closed while a loaded client picks them (ECONNRESET).
      const server = await startServerProcess({ ...EXCHANGE_SERVER, chunkDelayMs: delay, keepAliveTimeoutMs: 30_000 });
      try {
        ctx.log(`${kind}: ${replies} replies in flight`);
        const { result } = await runInChild<ConcurrencyFigures>(
          import.meta.url,
          'concurrencyChild',
          { url: server.url, kind, replies, alone, quick: ctx.config.quick } satisfies ChildArgs,
          undefined,
          { inProcess: ctx.config.quick },
        );
        figures.set(kind, result);
      } finally {
        await server.close();
      }
    };
    for (const kind of kinds) await each(kind);
    const ideal = EXCHANGE_LINES * delay;
    const f = (v: number, d = 1) => v.toFixed(d);
    const table: Table = {
      title: `${replies} replies in flight (ideal ${ideal} ms per reply)`,
      columns: [
        'contender',
        'what',
        'one reply alone (ms)',
        'wall, all at once (ms)',
        'wall / ideal',
        'wall / alone',
        'client CPU per reply (ms)',
        `wall, ${Math.min(FEW, replies)} at once (ms)`,
        'its wall / ideal',
        'reply median / max (ms)',
        'peak RSS (MiB)',
        'RSS growth (MiB)',
        'live heap per reply (KB)',
        'external + buffers per reply (KB)',
        'failed replies',
      ],
      align: [
        'left',
        'left',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
      ],
      rows: [...figures].map(([k, x]) => [
        k,
        LABELS[k],
        f(x.aloneMs),
        f(x.wallMs, 0),
        `${f(x.wallMs / ideal, 2)}×`,
        `${f(x.wallMs / x.aloneMs, 2)}×`,
        f(x.cpuPerReplyMs, 2),
        f(x.fewWallMs, 0),
        `${f(x.fewWallMs / ideal, 2)}×`,
        `${f(x.replyMedianMs, 0)} / ${f(x.replyMaxMs, 0)}`,
        f(x.peakRssMiB, 0),
        f(x.rssGrowthMiB, 0),
        f(x.heapPerReplyKB),
        f(x.externalPerReplyKB),
        String(x.failed),
      ]),
    };
    const checks: Check[] = [];
    const floor = figures.get('openai');
    for (const k of ['rxscope', 'rxscope+10next', 'rxscope+10mw'] as const) {
      const x = figures.get(k);
      if (!x) continue;
      const broken = x.failed > 0 || (floor?.failed ?? 0) > 0;
      if (broken) {
        checks.push({
          text: `${k}: ${replies} replies in flight complete without errors (else the figures above mean nothing)`,
          value: `${x.failed} failed: ${JSON.stringify(x.errors)}${floor?.failed ? `; the floor: ${floor.failed} failed` : ''}`,
          limit: '0 failed',
          met: false,
        });
        continue;
      }
      if (floor) {
        const own = x.heapPerReplyKB - floor.heapPerReplyKB;
        checks.push({
          text: `${k}: memory per in-flight reply besides the HTTP client's own (live heap per reply − the floor's)`,
          value: `${f(own)} KB (${f(x.heapPerReplyKB)} − ${f(floor.heapPerReplyKB)})`,
          limit: `< ${MAX_KB_PER_REPLY} KB`,
          met: own < MAX_KB_PER_REPLY,
        });
      }
      checks.push({
        text: `${k}: wall time of ${replies} replies in flight within 1.2× of the ideal`,
        value: `${f(x.wallMs / ideal, 2)}× (${f(x.wallMs, 0)} ms; the floor: ${floor ? `${f(floor.wallMs / ideal, 2)}×` : '—'})`,
        limit: `≤ ${MAX_WALL_RATIO}×`,
        met: x.wallMs / ideal <= MAX_WALL_RATIO,
      });
      checks.push({
        text: `${k}: the same with ${Math.min(FEW, replies)} replies in flight (where the machine keeps up)`,
        value: `${f(x.fewWallMs / ideal, 2)}× (${f(x.fewWallMs, 0)} ms; the floor: ${floor ? `${f(floor.fewWallMs / ideal, 2)}×` : '—'})`,
        limit: `≤ ${MAX_WALL_RATIO}×`,
        met: x.fewWallMs / ideal <= MAX_WALL_RATIO,
      });
    }
    return {
      tables: [table],
      checks,
      notes: [
        `Replies in flight: ${replies}; server delay ${delay} ms before each streamed line; ${alone} replies alone`,
      ],
      data: Object.fromEntries(figures),
    };
  },
};
