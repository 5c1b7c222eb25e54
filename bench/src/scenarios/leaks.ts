/**
 * S4 — leaks (issue 6): 20,000 sequential replies of the agent exchange; heap after a forced GC
 * at 1,000 and at 20,000 replies (and points between); listeners, timers and sockets left open.
 * Each contender runs in a fresh child process against a fresh server.
 */
import { type Middleware } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import OpenAI from 'openai';
import { runInChild } from '../harness/child-process.js';
import type { Check, CustomScenario, Table } from '../harness/scenario.js';
import { startServerProcess } from '../harness/server.js';
import {
  BUILTINS_LABEL,
  builtins,
  EXCHANGE_SERVER,
  exchangeAgent,
  floorReply,
  MODEL,
  passThrough,
  rxscopeReply,
} from './exchange.js';

const MAX_GROWTH = 0.05;

type Kind = 'openai' | 'rxscope+10mw' | 'rxscope+builtins';
const KINDS: readonly Kind[] = ['openai', 'rxscope+10mw', 'rxscope+builtins'];
const LABELS: Record<Kind, string> = {
  openai: 'plain `openai` client, the exchange by hand (the floor)',
  'rxscope+10mw': '`Agent.reply()`, 10 pass-through middlewares',
  'rxscope+builtins': `\`Agent.reply()\` with ${BUILTINS_LABEL}`,
};

/** The floor runs this share of the replies: enough for its heap trend and its keep-alive pool, which the rxscope contenders are compared with. */
const FLOOR_SHARE = 0.25;

interface ChildArgs {
  readonly url: string;
  readonly kind: Kind;
  readonly checkpoints: readonly number[];
  /** Smoke run: one GC per checkpoint. */
  readonly quick?: boolean;
}

/** The state of the process after a number of replies. */
export interface Checkpoint {
  readonly replies: number;
  /** `heapUsed` after forced GCs, MiB. */
  readonly heapMiB: number;
  /** Active handles and requests by type (`process.getActiveResourcesInfo()`). */
  readonly resources: Readonly<Record<string, number>>;
  /** Listeners on `process`, all events together. */
  readonly processListeners: number;
}

export interface LeakFigures {
  readonly checkpoints: readonly Checkpoint[];
  /** Warnings emitted (MaxListenersExceededWarning and the like), by name. */
  readonly warnings: Readonly<Record<string, number>>;
  /** Milliseconds per reply over the whole run. */
  readonly msPerReply: number;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** Forced GCs until the heap stops shrinking (with turns of the event loop between, so finalizers run). */
async function settledHeap(rounds: number): Promise<number> {
  let last = Number.POSITIVE_INFINITY;
  for (let i = 0; i < rounds; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
    const now = process.memoryUsage().heapUsed;
    if (now >= last * 0.999) return now;
    last = now;
  }
  return last;
}

function resources(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) out[r] = (out[r] ?? 0) + 1;
  return out;
}

const processListeners = () => process.eventNames().reduce((n, e) => n + process.listenerCount(e), 0);

/** Runs in the child process: sequential replies of one contender, a checkpoint at each given count. */
export async function leakChild(args: ChildArgs): Promise<LeakFigures> {
  const warnings: Record<string, number> = {};
  const onWarning = (w: Error) => {
    warnings[w.name] = (warnings[w.name] ?? 0) + 1;
  };
  process.on('warning', onWarning);
  const client = new OpenAI({ apiKey: 'bench', baseURL: args.url, maxRetries: 0 });
  const model = new OpenAIChatModel({ model: MODEL, apiKey: 'bench', baseURL: args.url, maxRetries: 0 });
  const mws: Middleware[] = args.kind === 'rxscope+builtins' ? builtins() : passThrough(10);
  const one = () => (args.kind === 'openai' ? floorReply(client) : rxscopeReply(exchangeAgent(model, mws)));
  const checkpoints: Checkpoint[] = [];
  const last = Math.max(...args.checkpoints);
  const t0 = performance.now();
  for (let i = 1; i <= last; i++) {
    const r = await one();
    if (r.toolRuns !== 1) throw new Error(`${args.kind}: reply ${i} ran the tool ${r.toolRuns} times`);
    if (args.checkpoints.includes(i)) {
      const heap = await settledHeap(args.quick ? 1 : 5);
      checkpoints.push({
        replies: i,
        heapMiB: heap / 2 ** 20,
        resources: resources(),
        processListeners: processListeners(),
      });
    }
  }
  const msPerReply = (performance.now() - t0) / last;
  process.off('warning', onWarning);
  return { checkpoints, warnings, msPerReply };
}

const fmtResources = (r: Readonly<Record<string, number>>) =>
  Object.entries(r)
    .filter(([k]) => k !== 'PipeWrap' && k !== 'ProcessWrap' && k !== 'TTYWrap')
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';

export const leaks: CustomScenario = {
  kind: 'custom',
  id: 'leaks',
  title: 'S4 — Leaks: 20,000 sequential replies',
  description:
    'The S1 exchange (two streamed calls, a tool call between; zero latency) repeated 20,000 times one after the other, each contender in a fresh child process against its own test server, the three side by side (the floor, for reference, 5,000 times). ' +
    'rxscope contenders create an `Agent` per reply and share one `OpenAIChatModel` and the middleware instances, so anything a reply leaves behind in a shared object (the model, a middleware, rxjs, the HTTP client) accumulates. ' +
    "At each checkpoint: forced GCs until the heap stops shrinking (`heapUsed`), the process's active handles by type (`process.getActiveResourcesInfo()`: sockets, timers), and the listeners on `process`; warnings (e.g. `MaxListenersExceededWarning`) are counted over the whole run. " +
    "After the last reply, while the child is still alive, the test server reports how many sockets are open: the HTTP client's pool keeps its idle keep-alive connections (the floor shows how many; undici unrefs idle sockets, so they do not appear among the child's active handles); more than the floor's would be connections left open.",
  run: async (ctx) => {
    const checkpoints = ctx.config.quick ? [20, 50] : [1000, 5000, 10_000, 20_000];
    const kinds = ctx.only?.length ? KINDS.filter((k) => ctx.only!.includes(k)) : KINDS;
    const figures = new Map<Kind, LeakFigures & { readonly serverSockets: number; readonly requests: number }>();
    // A quick run (CI) measures nothing worth keeping: it runs in this process, without the forks and their imports.
    const each = async (kind: Kind) => {
      const server = await startServerProcess(EXCHANGE_SERVER);
      try {
        ctx.log(
          `${kind}: ${kind === 'openai' && !ctx.config.quick ? checkpoints.at(-1)! * FLOOR_SHARE : checkpoints.at(-1)} replies`,
        );
        // While the child is still alive: how many of its connections does the server see open?
        const own =
          kind === 'openai' && !ctx.config.quick
            ? checkpoints.filter((c) => c <= checkpoints.at(-1)! * FLOOR_SHARE)
            : checkpoints;
        const { result, alive } = await runInChild(
          import.meta.url,
          'leakChild',
          { url: server.url, kind, checkpoints: own, quick: ctx.config.quick } satisfies ChildArgs,
          () => server.connections(),
          { inProcess: ctx.config.quick },
        );
        figures.set(kind, { ...(result as LeakFigures), serverSockets: alive!.open, requests: alive!.requests });
      } finally {
        await server.close();
      }
    };
    // Full runs: the contenders side by side (each in its own process with its own server; heap
    // and handles are per process), so that 45,000 replies fit in a few minutes on 2 cores. A quick
    // run (CI) runs in this process, one contender after the other (they share the tool counter).
    if (ctx.config.quick) for (const kind of kinds) await each(kind);
    else await Promise.all(kinds.map(each));
    const ordered = new Map(kinds.flatMap((k) => (figures.has(k) ? [[k, figures.get(k)!] as const] : [])));
    figures.clear();
    for (const [k, v] of ordered) figures.set(k, v);
    const [first, lastCount] = [checkpoints[0]!, checkpoints.at(-1)!];
    const f = (v: number, d = 2) => v.toFixed(d);
    const heapTable: Table = {
      title: 'Heap after forced GC (MiB) by replies done',
      columns: [
        'contender',
        'what',
        ...checkpoints.map((c) => c.toLocaleString('en-US')),
        `growth ${first.toLocaleString('en-US')} → ${lastCount.toLocaleString('en-US')}`,
        'ms per reply',
      ],
      align: ['left', 'left', ...checkpoints.map(() => 'right' as const), 'right', 'right'],
      rows: [...figures].map(([k, x]) => {
        const a = x.checkpoints[0]!.heapMiB;
        const b = x.checkpoints.at(-1)!.heapMiB;
        const at = (n: number) => x.checkpoints.find((c) => c.replies === n);
        return [
          k,
          LABELS[k],
          ...checkpoints.map((n) => (at(n) ? f(at(n)!.heapMiB) : '—')),
          `${f(((b - a) / a) * 100, 1)}% (to ${x.checkpoints.at(-1)!.replies.toLocaleString('en-US')})`,
          f(x.msPerReply),
        ];
      }),
    };
    const openTable: Table = {
      title: `Left open at ${first.toLocaleString('en-US')} and at ${lastCount.toLocaleString('en-US')} replies`,
      columns: [
        'contender',
        `active handles at ${first}`,
        'active handles at the end',
        'process listeners',
        'warnings',
        'sockets open on the server at the end (requests served)',
      ],
      align: ['left', 'left', 'left', 'right', 'left', 'right'],
      rows: [...figures].map(([k, x]) => [
        k,
        fmtResources(x.checkpoints[0]!.resources),
        fmtResources(x.checkpoints.at(-1)!.resources),
        `${x.checkpoints[0]!.processListeners} → ${x.checkpoints.at(-1)!.processListeners}`,
        Object.entries(x.warnings)
          .map(([n, c]) => `${n} ${c}`)
          .join(', ') || 'none',
        `${x.serverSockets} (${x.requests.toLocaleString('en-US')})`,
      ]),
    };
    const checks: Check[] = [];
    for (const [k, x] of figures) {
      if (k === 'openai') continue;
      const a = x.checkpoints[0]!;
      const b = x.checkpoints.at(-1)!;
      const growth = (b.heapMiB - a.heapMiB) / a.heapMiB;
      checks.push({
        text: `${k}: heap growth between ${first.toLocaleString('en-US')} and ${lastCount.toLocaleString('en-US')} replies`,
        value: `${f(growth * 100, 1)}% (${f(a.heapMiB)} → ${f(b.heapMiB)} MiB)`,
        limit: `< ${MAX_GROWTH * 100}%`,
        met: growth < MAX_GROWTH,
      });
      const count = (c: Checkpoint) =>
        Object.entries(c.resources).reduce(
          (n, [t, v]) => n + (t === 'PipeWrap' || t === 'ProcessWrap' || t === 'TTYWrap' ? 0 : v),
          0,
        );
      const poolSize = figures.get('openai')?.serverSockets ?? 2;
      const ok =
        count(b) <= count(a) &&
        x.serverSockets <= poolSize &&
        b.processListeners <= a.processListeners &&
        !Object.keys(x.warnings).length;
      checks.push({
        text: `${k}: nothing left open (active handles and process listeners do not grow; the server sees no more open sockets than the floor's idle keep-alive pool; no warnings)`,
        value: `handles: ${fmtResources(b.resources)}; ${b.processListeners} process listeners; ${x.serverSockets} socket(s) open on the server; ${Object.keys(x.warnings).length ? JSON.stringify(x.warnings) : 'no warnings'}`,
        limit: 'no growth',
        met: ok,
      });
    }
    return {
      tables: [heapTable, openTable],
      checks,
      notes: [`Checkpoints: ${checkpoints.join(', ')} replies`],
      data: Object.fromEntries(figures),
    };
  },
};
