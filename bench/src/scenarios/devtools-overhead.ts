/**
 * The devtools recorder's cost on S1: the S1 exchange from the OpenAI-compatible test server (its
 * own process, loopback) through `OpenAIChatModel`, by an agent with the production built-ins,
 * with and without the recorder, paired per round; and the recorder's own time per reply with the
 * model replayed from memory (no I/O), for the absolute figure.
 */
import { OpenAIChatModel } from '@rxscope/core/openai';
import { DevtoolsMiddleware, DevtoolsRecorder, instrumentMiddlewares } from '@rxscope/devtools';
import type { Analysis, Check, Contender, Scenario, TimedResultView } from '../harness/scenario.js';
import { startServerProcess } from '../harness/server.js';
import { ReplayModel } from './agent-loop-memory.js';
import { fmt, pairedOverhead } from './agent-loop.js';
import {
  BUILTINS_LABEL,
  builtins,
  checkOutcome,
  EXCHANGE_SERVER,
  exchangeAgent,
  MODEL,
  type Outcome,
  rxscopeReply,
} from './exchange.js';

/** What the recorder may add to an S1 reply, relative to the same reply without it. */
const MAX_SHARE = 0.05;

const BASE = 'builtins';

export const devtoolsOverhead: Scenario = {
  id: 'devtools-overhead',
  title: 'Devtools recorder overhead on S1',
  description:
    'S1: one reply = two streamed chat completions of 20 text chunks (an `add` tool call between) from the OpenAI-compatible test server (127.0.0.1, its own process, keep-alive) through `OpenAIChatModel`, one new `Agent` per reply, with the production built-ins (' +
    BUILTINS_LABEL +
    '). `builtins`: without the devtools. `builtins+devtools`: a `DevtoolsMiddleware` first (every event recorded, model requests redacted, into one `DevtoolsRecorder` shared by all replies with its default bounds). ' +
    '`builtins+devtools-layers`: `instrumentMiddlewares(recorder, builtins)` (also which layer each event passed). ' +
    `Overhead = contender − builtins per reply, paired per round, as a share of builtins (wall time, and CPU time of the process from the medians); target ≤ ${MAX_SHARE * 100} %. ` +
    "`memory` and `memory+devtools`: the same two without I/O (the model replayed from memory, as in S1 in memory): the recorder's absolute time per reply.",
  baseline: BASE,
  overhead: true,
  sizes: {
    quick: { warmup: 3, rounds: 2, batch: 3 },
    full: { warmup: 400, rounds: 60, batch: 10 },
  },
  async setup() {
    const server = await startServerProcess(EXCHANGE_SERVER);
    const model = new OpenAIChatModel({ model: MODEL, apiKey: 'bench', baseURL: server.url, maxRetries: 0 });
    const memory = new ReplayModel();
    const stack = builtins();
    const recorder = new DevtoolsRecorder();
    const layered = new DevtoolsRecorder();
    const plain = [new DevtoolsMiddleware({ recorder }), ...stack];
    const instrumented = instrumentMiddlewares(layered, stack);
    const inMemory = new DevtoolsRecorder();
    const memoryPlain = [new DevtoolsMiddleware({ recorder: inMemory }), ...stack];
    const contenders: Contender[] = [
      {
        name: BASE,
        label: `\`Agent.reply()\` with ${BUILTINS_LABEL}`,
        run: () => rxscopeReply(exchangeAgent(model, stack)),
      },
      {
        name: 'builtins+devtools',
        label: 'the same with `new DevtoolsMiddleware({ recorder })` first',
        run: () => rxscopeReply(exchangeAgent(model, plain)),
      },
      {
        name: 'builtins+devtools-layers',
        label: 'the same with `instrumentMiddlewares(recorder, builtins)` (layers recorded)',
        run: () => rxscopeReply(exchangeAgent(model, instrumented)),
      },
      {
        name: 'memory',
        label: 'builtins, the model replayed from memory',
        run: () => rxscopeReply(exchangeAgent(memory, stack)),
      },
      {
        name: 'memory+devtools',
        label: 'builtins+devtools, the model replayed from memory',
        run: () => rxscopeReply(exchangeAgent(memory, memoryPlain)),
      },
    ];
    return {
      contenders,
      check: (name: string, result: unknown) => {
        checkOutcome(name, result as Outcome);
        const kept =
          name === 'builtins+devtools'
            ? recorder
            : name === 'builtins+devtools-layers'
              ? layered
              : name === 'memory+devtools'
                ? inMemory
                : undefined;
        if (kept && kept.replies()[0]?.status !== 'completed') throw new Error(`${name}: the reply was not recorded`);
      },
      notes: [`recorder bounds: ${recorder.options.maxReplies} replies, ${recorder.options.maxBytes} bytes`],
      teardown: () => server.close(),
    };
  },
  analyze: (r: TimedResultView): Analysis => {
    const find = (name: string) => r.contenders.find((x) => x.name === name);
    const base = find(BASE);
    const rows: string[][] = [];
    for (const name of ['builtins+devtools', 'builtins+devtools-layers']) {
      const over = pairedOverhead(r, name, BASE);
      const c = find(name);
      if (over === undefined || !base || !c) continue;
      const cpuShare = c.cpuMs.median / base.cpuMs.median - 1;
      rows.push([name, fmt(over), pct(over / base.ms.median), pct(cpuShare)]);
    }
    const checks: Check[] = [];
    const over = pairedOverhead(r, 'builtins+devtools', BASE);
    const memory = find('memory');
    const recorded = find('memory+devtools');
    if (over !== undefined && base && memory && recorded) {
      // The recorder's CPU per reply does not depend on I/O: measured where nothing else varies
      // (no socket, no server), then set against the CPU of an S1 reply.
      const cpu = recorded.cpuMs.median - memory.cpuMs.median;
      const share = over / base.ms.median;
      const cpuShare = cpu / base.cpuMs.median;
      rows.push([
        'memory+devtools − memory (no I/O)',
        fmt(pairedOverhead(r, 'memory+devtools', 'memory') ?? NaN),
        '—',
        `${cpu.toFixed(3)} ms CPU`,
      ]);
      checks.push({
        text: 'builtins+devtools: what the recorder adds to an S1 reply, wall (paired rounds) and CPU (its CPU per reply without I/O over the CPU of an S1 reply), as shares of the reply without it',
        value: `wall ${pct(share)} (${fmt(over)}); CPU ${pct(cpuShare)} (${cpu.toFixed(3)} of ${base.cpuMs.median.toFixed(2)} ms)`,
        limit: `≤ ${MAX_SHARE * 100} %`,
        met: share <= MAX_SHARE && cpuShare <= MAX_SHARE,
      });
    }
    return {
      tables: [
        {
          title: 'Recorder overhead per S1 reply',
          columns: ['contender', 'paired overhead', 'share of the reply', 'CPU share (medians, not paired)'],
          rows,
        },
      ],
      checks,
      notes: [
        'With `instrumentMiddlewares` every wrapped hook adds an operator to each event: the layers cost more than the plain recorder (the table); the target is set for the plain one.',
      ],
    };
  },
};

const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
