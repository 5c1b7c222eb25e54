/**
 * The child process of the `cancel-leaks` scenario: rounds of many concurrent replies, each
 * unsubscribed at a random point (seeded), against the test server over HTTP; the process's
 * state (heap, active handles, listeners, child processes) at checkpoints.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, defineTool, type Middleware } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import type { ServerTurn } from '@rxscope/core/testing/node';
import { Subscription } from 'rxjs';
import { z } from 'zod';
import { addTool, builtins, MODEL, passThrough, SYSTEM, USER } from './exchange.js';

export type CancelKind = 'rxscope+10mw' | 'rxscope+builtins';

/** The first call: text, then calls of `add` and of `pause` (a tool that runs a child process). */
export const CANCEL_FIRST_TURN: ServerTurn = {
  text: Array.from({ length: 10 }, (_, i) => `${i ? ' ' : ''}t${i + 1}`),
  toolCalls: [
    { name: 'add', input: { a: 2, b: 3 }, id: 'call_add' },
    { name: 'pause', input: { ms: 300 }, id: 'call_pause' },
  ],
};
export const CANCEL_FINAL_TURN: ServerTurn = { text: Array.from({ length: 10 }, (_, i) => `${i ? ' ' : ''}a${i + 1}`) };

/** Runs `sleep` for `ms`, killed (SIGTERM, by Node's `spawn({signal})`) when the call is cancelled. */
const pauseTool = defineTool({
  name: 'pause',
  description: 'Waits a while in a child process.',
  input: z.object({ ms: z.number() }),
  execute: ({ ms }, { signal }) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn('sleep', [String(ms / 1000)], { signal, stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve('waited') : reject(new Error(`sleep exited ${code}`))));
    }),
});

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How a reply ended: cut by the consumer, or it ran to its end first. */
type Ending = 'cut' | 'completed' | 'error';

/** A whole reply: its events and how long it took. */
function wholeReply(agent: Agent): Promise<{ events: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    let events = 0;
    agent.reply(USER).subscribe({
      next: () => void events++,
      complete: () => resolve({ events, ms: performance.now() - t0 }),
      error: reject,
    });
  });
}

/** Subscribes to a reply and unsubscribes after `events` events (0: right after subscribing), or after `ms` milliseconds. */
function cutReply(agent: Agent, cut: { readonly events?: number; readonly ms?: number }): Promise<Ending> {
  return new Promise<Ending>((resolve) => {
    let seen = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (e: Ending) => {
      clearTimeout(timer);
      resolve(e);
    };
    // Created first, so that a cut during the synchronous part of subscribe() unsubscribes the reply as soon as it is added.
    const sub = new Subscription();
    sub.add(
      agent.reply(USER).subscribe({
        next: () => {
          if (cut.events !== undefined && ++seen >= cut.events) {
            sub.unsubscribe(); // synchronously, inside next, as a consumer may
            finish('cut');
          }
        },
        complete: () => finish('completed'),
        error: () => finish('error'),
      }),
    );
    if (cut.events === 0) {
      sub.unsubscribe();
      finish('cut');
    } else if (cut.ms !== undefined && !sub.closed) {
      timer = setTimeout(() => {
        sub.unsubscribe();
        finish('cut');
      }, cut.ms);
    }
  });
}

/** The state of the process. */
export interface ProcessState {
  /** `heapUsed` after forced GCs, MiB. */
  readonly heapMiB: number;
  /** Active handles and requests by type (`process.getActiveResourcesInfo()`), this harness's IPC pipe left out. */
  readonly resources: Readonly<Record<string, number>>;
  /** Listeners on `process`, all events together, and on the signals (SIGINT, SIGTERM, SIGHUP). */
  readonly processListeners: number;
  readonly signalListeners: number;
  /** Live child processes of this process (Linux: /proc/self/task/<tid>/children). */
  readonly childProcesses: number;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const OWN = new Set(['PipeWrap', 'ProcessWrap', 'TTYWrap']);

function childProcesses(): number {
  try {
    return readdirSync('/proc/self/task').reduce(
      (n, tid) =>
        n + readFileSync(`/proc/self/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).length,
      0,
    );
  } catch {
    return process.getActiveResourcesInfo().filter((r) => r === 'ProcessWrap').length;
  }
}

function resources(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) if (!OWN.has(r)) out[r] = (out[r] ?? 0) + 1;
  return out;
}
const total = (r: Readonly<Record<string, number>>) => Object.values(r).reduce((a, b) => a + b, 0);

/** Waits (up to `ms`) until no more child processes and handles than in `baseline` are left (teardown is asynchronous: a killed child exits, a socket closes), then measures. */
export async function settledState(
  baseline: ProcessState | undefined,
  ms: number,
  gcRounds: number,
): Promise<ProcessState> {
  const end = Date.now() + ms;
  while (
    baseline &&
    Date.now() < end &&
    (childProcesses() > baseline.childProcesses || total(resources()) > total(baseline.resources))
  )
    await new Promise((r) => setTimeout(r, 50));
  let heap = Number.POSITIVE_INFINITY;
  for (let i = 0; i < gcRounds; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
    const now = process.memoryUsage().heapUsed;
    if (now >= heap * 0.999) break;
    heap = now;
  }
  return {
    heapMiB: process.memoryUsage().heapUsed / 2 ** 20,
    resources: resources(),
    processListeners: process.eventNames().reduce((n, e) => n + process.listenerCount(e), 0),
    signalListeners: ['SIGINT', 'SIGTERM', 'SIGHUP'].reduce((n, s) => n + process.listenerCount(s), 0),
    childProcesses: childProcesses(),
  };
}

export interface CancelArgs {
  readonly url: string;
  readonly kind: CancelKind;
  readonly concurrent: number;
  readonly rounds: number;
  readonly seed: number;
  readonly gcRounds: number;
  /** How long to wait for teardown to settle before measuring, ms. */
  readonly settleMs: number;
}

export interface CancelFigures {
  /** Before the rounds (after a warm-up of whole replies), after the first round, after the last. */
  readonly before: ProcessState;
  readonly afterFirst: ProcessState;
  readonly afterLast: ProcessState;
  readonly endings: Readonly<Record<Ending, number>>;
  /** Replies cut by event count and by time. */
  readonly byEvents: number;
  readonly byTime: number;
  readonly warnings: Readonly<Record<string, number>>;
  readonly seconds: number;
  /** A whole reply in the warm-up round (`concurrent` of them at once): its events, its median duration. */
  readonly wholeReply: { readonly events: number; readonly medianMs: number };
}

/** Runs in the child process (or, for a smoke run, in this one). */
export async function cancelChild(args: CancelArgs): Promise<CancelFigures> {
  const warnings: Record<string, number> = {};
  const onWarning = (w: Error) => void (warnings[w.name] = (warnings[w.name] ?? 0) + 1);
  process.on('warning', onWarning);
  const model = new OpenAIChatModel({ model: MODEL, apiKey: 'bench', baseURL: args.url, maxRetries: 0 });
  const mws: Middleware[] = args.kind === 'rxscope+builtins' ? builtins() : passThrough(10);
  const agent = () => new Agent({ sysPrompt: SYSTEM, model, tools: [addTool, pauseTool], middlewares: mws });
  const t0 = performance.now();
  // Warm-up: a round of whole replies (JIT, the HTTP client's pool), which also gives the range
  // of the cuts: by event count up to 10% past a whole reply's events (so some replies complete),
  // by time up to its median duration at this concurrency. Then the baseline.
  const whole = await Promise.all(Array.from({ length: args.concurrent }, () => wholeReply(agent())));
  const events = Math.max(...whole.map((w) => w.events));
  const medianMs = whole.map((w) => w.ms).sort((a, b) => a - b)[Math.floor(whole.length / 2)]!;
  const before = await settledState(undefined, 0, args.gcRounds);
  const random = seeded(args.seed);
  const endings: Record<Ending, number> = { cut: 0, completed: 0, error: 0 };
  let byEvents = 0;
  let afterFirst = before;
  for (let round = 0; round < args.rounds; round++) {
    const replies = Array.from({ length: args.concurrent }, () => {
      const byTime = random() < 0.5;
      if (byTime) return cutReply(agent(), { ms: random() * medianMs });
      byEvents++;
      return cutReply(agent(), { events: Math.floor(random() * events * 1.1) });
    });
    for (const e of await Promise.all(replies)) endings[e]++;
    if (round === 0) afterFirst = await settledState(before, args.settleMs, args.gcRounds);
  }
  const afterLast = await settledState(before, args.settleMs, args.gcRounds);
  process.off('warning', onWarning);
  const all = args.concurrent * args.rounds;
  return {
    before,
    afterFirst,
    afterLast,
    endings,
    byEvents,
    byTime: all - byEvents,
    warnings,
    seconds: (performance.now() - t0) / 1000,
    wholeReply: { events, medianMs },
  };
}
