/**
 * Leaks under cancellation (issue 19): rounds of 1,000 concurrent replies, each unsubscribed at a
 * random (seeded) point; heap, handles, listeners, child processes and the server's sockets
 * afterwards. Each contender runs in a fresh child process against its own test server.
 */
import { runInChild } from '../harness/child-process.js';
import type { Check, CustomScenario, Table } from '../harness/scenario.js';
import { startServerProcess } from '../harness/server.js';
import {
  CANCEL_FINAL_TURN,
  CANCEL_FIRST_TURN,
  type CancelArgs,
  type CancelFigures,
  type CancelKind,
  type ProcessState,
} from './cancel-leaks-child.js';
import { BUILTINS_LABEL } from './exchange.js';

const KINDS: readonly CancelKind[] = ['rxscope+10mw', 'rxscope+builtins'];
const LABELS: Record<CancelKind, string> = {
  'rxscope+10mw': '`Agent.reply()`, 10 pass-through middlewares',
  'rxscope+builtins': `\`Agent.reply()\` with ${BUILTINS_LABEL}`,
};
const SEED = 19;
const MAX_GROWTH = 0.05;

const fmt = (r: Readonly<Record<string, number>>) =>
  Object.entries(r)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';
const count = (r: Readonly<Record<string, number>>) => Object.values(r).reduce((a, b) => a + b, 0);

export const cancelLeaks: CustomScenario = {
  kind: 'custom',
  id: 'cancel-leaks',
  title: 'Leaks under cancellation: 1,000 concurrent replies unsubscribed at random points',
  description:
    "Each round starts 1,000 replies at once (a new `Agent` each, sharing one `OpenAIChatModel` and the middleware instances) against the test server over HTTP (its own process, a connection per request, 5 ms before each chunk): the first call streams 10 text chunks and calls two tools, `add` and `pause` (which runs `sleep 0.3` in a child process, started with the call's abort signal), the second streams 10 chunks. " +
    "Every reply is unsubscribed at a random point drawn from a seeded generator (mulberry32, seed 19): half after a number of events (0 to 110% of a whole reply's, synchronously inside `next`; 0 = right after subscribing), half after a time (0 to a whole reply's median duration at this concurrency, measured in a warm-up round of 1,000 whole replies); the draws past the end let some replies complete. " +
    "Before the rounds, after the first and after the last: the process's state once teardown has settled (up to 10 s for killed children to exit and sockets to close), i.e. `heapUsed` after forced GCs, the active handles by type (`process.getActiveResourcesInfo()`: sockets, timers, child processes), the listeners on `process` and on the signals, and the live child processes (`/proc/self/task/*/children`); warnings are counted over the run. After the last round, while the child is still alive, the test server reports how many sockets are open.",
  run: async (ctx) => {
    const quick = ctx.config.quick;
    const concurrent = quick ? 30 : 1000;
    const rounds = quick ? 2 : 10;
    const kinds = ctx.only?.length ? KINDS.filter((k) => ctx.only!.includes(k)) : KINDS;
    const figures = new Map<
      CancelKind,
      CancelFigures & { readonly serverSockets: number; readonly requests: number }
    >();
    // One contender after the other (1,000 concurrent replies load both cores); a quick run in this process.
    for (const kind of kinds) {
      const server = await startServerProcess({
        turn: CANCEL_FIRST_TURN,
        afterToolTurn: CANCEL_FINAL_TURN,
        chunkDelayMs: 5,
        keepAlive: false,
      });
      try {
        ctx.log(`${kind}: ${rounds} rounds of ${concurrent} concurrent replies`);
        const args: CancelArgs = {
          url: server.url,
          kind,
          concurrent,
          rounds,
          seed: SEED,
          gcRounds: quick ? 1 : 6,
          settleMs: quick ? 1000 : 10_000,
        };
        const { result, alive } = await runInChild(
          new URL('./cancel-leaks-child.js', import.meta.url).href,
          'cancelChild',
          args,
          // Sockets close asynchronously after a cancelled request (the client's side, then the
          // server's): give them up to 5 s, as the fault matrix's `waitForConnections(0)` does.
          async () => {
            const end = Date.now() + 5000;
            let c = await server.connections();
            while (c.open > 0 && Date.now() < end) {
              await new Promise((r) => setTimeout(r, 50));
              c = await server.connections();
            }
            return c;
          },
          { inProcess: quick },
        );
        figures.set(kind, { ...(result as CancelFigures), serverSockets: alive!.open, requests: alive!.requests });
      } finally {
        await server.close();
      }
    }
    const f2 = (v: number) => v.toFixed(2);
    const growth = (x: CancelFigures) => (x.afterLast.heapMiB - x.afterFirst.heapMiB) / x.afterFirst.heapMiB;
    const heapTable: Table = {
      title: 'Heap after forced GC (MiB)',
      columns: [
        'contender',
        'what',
        'before',
        'after round 1',
        `after round ${rounds}`,
        `growth 1 → ${rounds}`,
        'replies cut / completed / failed',
        'seconds',
      ],
      align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right'],
      rows: [...figures].map(([k, x]) => [
        k,
        LABELS[k],
        f2(x.before.heapMiB),
        f2(x.afterFirst.heapMiB),
        f2(x.afterLast.heapMiB),
        `${(growth(x) * 100).toFixed(1)}%`,
        `${x.endings.cut.toLocaleString('en-US')} / ${x.endings.completed} / ${x.endings.error}`,
        x.seconds.toFixed(0),
      ]),
    };
    const state = (s: ProcessState) =>
      `${fmt(s.resources)}; ${s.processListeners} process listeners (${s.signalListeners} on signals); ${s.childProcesses} child processes`;
    const openTable: Table = {
      title: 'Left open',
      columns: [
        'contender',
        'before the rounds',
        `after round ${rounds}`,
        'warnings',
        'sockets open on the server at the end (requests served)',
      ],
      align: ['left', 'left', 'left', 'left', 'right'],
      rows: [...figures].map(([k, x]) => [
        k,
        state(x.before),
        state(x.afterLast),
        fmt(x.warnings),
        `${x.serverSockets} (${x.requests.toLocaleString('en-US')})`,
      ]),
    };
    const checks: Check[] = [];
    for (const [k, x] of figures) {
      const [a, b] = [x.before, x.afterLast];
      checks.push({
        text: `${k}: heap growth between the first and the last round of cancelled replies`,
        value: `${(growth(x) * 100).toFixed(1)}% (${f2(x.afterFirst.heapMiB)} → ${f2(b.heapMiB)} MiB)`,
        limit: `< ${MAX_GROWTH * 100}%`,
        met: growth(x) < MAX_GROWTH,
      });
      checks.push({
        text: `${k}: back to the baseline (no more active handles, process or signal listeners, child processes than before; no socket open on the server; no warnings)`,
        value: `${state(b)}; ${x.serverSockets} socket(s) on the server; ${Object.keys(x.warnings).length ? fmt(x.warnings) : 'no warnings'}`,
        limit: 'as before',
        met:
          count(b.resources) <= count(a.resources) &&
          b.processListeners <= a.processListeners &&
          b.signalListeners <= a.signalListeners &&
          b.childProcesses <= a.childProcesses &&
          x.serverSockets === 0 &&
          !Object.keys(x.warnings).length,
      });
    }
    const any = [...figures.values()][0];
    return {
      tables: [heapTable, openTable],
      checks,
      notes: [
        `${rounds} rounds × ${concurrent} concurrent replies per contender, seed ${SEED}`,
        ...(any
          ? [
              `A whole reply: ${any.wholeReply.events} events, ${any.wholeReply.medianMs.toFixed(0)} ms median with ${concurrent} at once (first contender's warm-up)`,
            ]
          : []),
        ...[...figures].map(
          ([k, x]) =>
            `${k}: ${x.byEvents.toLocaleString('en-US')} cut by event count, ${x.byTime.toLocaleString('en-US')} by time`,
        ),
      ],
      data: Object.fromEntries(figures),
    };
  },
};
