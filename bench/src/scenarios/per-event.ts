/**
 * S2 — per-event cost (issue 6): one model call streaming 100 and 10,000 chunks through 0, 10
 * and 50 middlewares; ns per event, and the 10,000/100 ratio (flat: no per-event cost that grows
 * with the stream). Measured twice: over HTTP from the test server against the plain `openai`
 * client streaming the same chunks (what a caller pays above the floor), and with an in-memory
 * model that emits the same model events synchronously (the framework alone, no I/O).
 */
import type { ChatModel, Middleware, ModelEvent } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import type { ServerTurn } from '@rxscope/core/testing/node';
import OpenAI from 'openai';
import { from, type Observable } from 'rxjs';
import { packageVersion } from '../harness/machine.js';
import type { Analysis, Check, Contender, Scenario, Table, TimedResultView } from '../harness/scenario.js';
import { startServerProcess } from '../harness/server.js';
import { streamByHand } from './sse-by-hand.js';
import { comparedTable } from './compare-table.js';
import { passThrough, SYSTEM, USER } from './exchange.js';
import { comparedBuild, currentBuild, type RxscopeBuild } from './rxscope-build.js';

const SIZES = [100, 10_000] as const;
const LAYERS = [0, 10, 50] as const;
const MAX_NS_PER_EVENT = 2000;
const MAX_GROWTH = 1.2;

const chunks = (n: number) => Array.from({ length: n }, (_, i) => `w${i} `);
const turnOf = (n: number): ServerTurn => ({ text: chunks(n), usage: { inputTokens: 20, outputTokens: n } });
const modelFor = (n: number) => `chunks-${n}`;

/** Agent events of a reply with one model call of n text chunks: REPLY_START, MODEL_CALL_START, TEXT_BLOCK_START, n deltas, TEXT_BLOCK_END, MODEL_CALL_END, REPLY_END. */
const eventsOf = (n: number) => n + 6;

/** A ChatModel that emits the model events of one n-chunk text answer synchronously (no I/O). */
class MemoryModel implements ChatModel {
  readonly provider = 'memory';
  private readonly events: readonly ModelEvent[];
  constructor(
    readonly modelName: string,
    n: number,
  ) {
    const blockId = 'blk_text';
    this.events = [
      { type: 'TEXT_BLOCK_START', blockId },
      ...chunks(n).map((delta) => ({ type: 'TEXT_BLOCK_DELTA' as const, blockId, delta })),
      { type: 'TEXT_BLOCK_END', blockId },
      { type: 'MODEL_CALL_END', model: modelName, finishReason: 'stop', usage: { inputTokens: 20, outputTokens: n } },
    ];
  }
  stream(): Observable<ModelEvent> {
    return from(this.events);
  }
}

/** One reply of a new agent, subscribed to completion; resolves with the number of events and the text length. */
function reply(
  model: ChatModel,
  middlewares: readonly Middleware[],
  build: RxscopeBuild = currentBuild,
): Promise<{ events: number; chars: number }> {
  const agent = build.newAgent({ name: 'assistant', sysPrompt: SYSTEM, model, middlewares });
  return new Promise((resolve, reject) => {
    let events = 0;
    let chars = 0;
    let finish: string | undefined;
    agent.reply(USER).subscribe({
      next: (e) => {
        events++;
        if (e.type === 'TEXT_BLOCK_DELTA') chars += e.delta.length;
        else if (e.type === 'REPLY_END') finish = e.finishReason;
      },
      error: reject,
      complete: () =>
        finish === 'completed' ? resolve({ events, chars }) : reject(new Error(`reply ended ${finish}`)),
    });
  });
}

const name = (path: 'http' | 'memory', layers: number, n: number) =>
  `${path === 'http' ? 'rxscope' : 'memory'}+${layers}/${n}`;

export const perEvent: Scenario = {
  id: 'per-event',
  title: 'S2 — Per-event cost: 100 and 10,000 chunks through 0, 10 and 50 middlewares',
  description:
    'One reply of a new `Agent` with one model call that streams N text chunks (N = 100 and 10,000; the reply has N + 6 events), through 0, 10 or 50 `PassThroughMiddleware`s ' +
    '(each of `onAgent`, `onReasoning`, `onActing`, `onModelCall` returns `next(input).pipe(map((e) => e))`, so a model event passes 3 × M operators). ' +
    '`rxscope+M/N` streams from the test server over HTTP (127.0.0.1, zero latency, own process) through `OpenAIChatModel`; `openai/N` is the plain `openai` client streaming the same N chunks (the floor); ' +
    "`openai-sse/N` is the plain client with the body read by hand with a push parser, as `OpenAIChatModel` reads it (the SDK's `Stream` costs about 10 µs per event, more than the framework). " +
    '`memory+M/N` uses an in-memory model that emits the same model events synchronously: the framework alone, no I/O. ' +
    "ns per event = time per reply / (N + 6); over HTTP the framework's share is (rxscope − openai-sse) / (N + 6), paired per round. " +
    'The 10,000/100 ratio compares ns per event at the two lengths: a per-event cost that grows with the stream would push it above 1 (fixed per-reply costs spread over more events pull it below 1).',
  baseline: 'openai/100',
  rewarm: 1,
  sizes: {
    quick: { warmup: 1, rounds: 1, batch: 2 },
    full: { warmup: 3, rounds: 10, batch: 20 },
  },
  async setup(config) {
    const sizes = config.quick ? ([20, 200] as const) : SIZES;
    const server = await startServerProcess({
      turn: turnOf(100),
      byModel: Object.fromEntries(sizes.map((n) => [modelFor(n), turnOf(n)])),
    });
    const apiKey = 'bench';
    const client = new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 });
    const stacks = new Map(LAYERS.map((m) => [m, passThrough(m)]));
    // With --compare: the in-memory contenders of the compared commit too (`memory+M/N@<sha>`).
    const other = await comparedBuild();
    const contenders: Contender[] = [];
    for (const n of sizes) {
      // Long streams: fewer operations per round so that one round stays short.
      const batch = n > 1000 ? Math.max(1, Math.round(config.batch / 10)) : config.batch;
      const params: OpenAI.Chat.ChatCompletionCreateParamsStreaming = {
        model: modelFor(n),
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: USER },
        ],
        stream: true,
        stream_options: { include_usage: true },
      };
      contenders.push({
        name: `openai/${n}`,
        label: `plain \`openai\` client, ${n} chunks`,
        batch,
        async run() {
          const stream = await client.chat.completions.create(params);
          let chars = 0;
          let events = 0;
          for await (const chunk of stream) {
            events++;
            chars += chunk.choices[0]?.delta.content?.length ?? 0;
          }
          return { events, chars };
        },
      });
      contenders.push({
        name: `openai-sse/${n}`,
        label: `plain \`openai\` client, the body read by hand (push parser), ${n} chunks`,
        batch,
        async run() {
          let chars = 0;
          let events = 0;
          await streamByHand(client, params, (chunk) => {
            events++;
            chars += chunk.choices[0]?.delta.content?.length ?? 0;
          });
          return { events, chars };
        },
      });
      const http = new OpenAIChatModel({ model: modelFor(n), apiKey, baseURL: server.url, maxRetries: 0 });
      const memory = new MemoryModel(modelFor(n), n);
      for (const m of LAYERS) {
        contenders.push({
          name: name('http', m, n),
          label: `\`OpenAIChatModel\` over HTTP, ${m} middlewares, ${n} chunks`,
          batch,
          run: () => reply(http, stacks.get(m)!),
        });
      }
      for (const m of LAYERS) {
        contenders.push({
          name: name('memory', m, n),
          label: `in-memory model, ${m} middlewares, ${n} chunks`,
          batch,
          run: () => reply(memory, stacks.get(m)!),
        });
        if (other) {
          contenders.push({
            name: `${name('memory', m, n)}${other.tag}`,
            label: `in-memory model, ${m} middlewares, ${n} chunks, at ${other.tag.slice(1)}`,
            batch,
            run: () => reply(memory, stacks.get(m)!, other),
          });
        }
      }
    }
    return {
      contenders,
      check(c, result) {
        const n = Number(c.split('/')[1]!.split('@')[0]);
        const r = result as { events: number; chars: number };
        const chars = chunks(n).join('').length;
        if (r.chars !== chars) throw new Error(`${c} streamed ${r.chars} characters, expected ${chars}`);
        if (!c.startsWith('openai') && r.events !== eventsOf(n))
          throw new Error(`${c} emitted ${r.events} events, expected ${eventsOf(n)}`);
      },
      notes: [`Packages: ${['openai', '@langchain/openai', 'rxjs'].map(packageVersion).join(', ')}`],
      teardown: () => server.close(),
    };
  },
  analyze: (r) => {
    const analysis = analyzePerEvent(r);
    const compared = comparedTable(r);
    return compared ? { ...analysis, tables: [...(analysis.tables ?? []), compared] } : analysis;
  },
};

const ns = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1));

function analyzePerEvent(r: TimedResultView): Analysis {
  const by = new Map(r.contenders.map((c) => [c.name, c]));
  const sizes = [...new Set(r.contenders.map((c) => Number(c.name.split('/')[1]!.split('@')[0])))].sort(
    (a, b) => a - b,
  );
  if (sizes.length < 2) return {};
  const [small, large] = [sizes[0]!, sizes[sizes.length - 1]!];
  /** ns per event of a contender at size n (over HTTP: above openai-sse, the client reading the body as the adapter does, paired per round). */
  const perEvent = (path: 'http' | 'memory', m: number, n: number): number | undefined => {
    const c = by.get(name(path, m, n));
    if (!c) return undefined;
    if (path === 'memory') return (c.ms.median * 1e6) / eventsOf(n);
    const floor = by.get(`openai-sse/${n}`);
    if (!floor) return undefined;
    const d = c.roundMedians.map((v, i) => v - floor.roundMedians[i]!).sort((a, b) => a - b);
    return (d[Math.floor(d.length / 2)]! * 1e6) / eventsOf(n);
  };
  const rows: string[][] = [];
  const checks: Check[] = [];
  for (const path of ['memory', 'http'] as const) {
    for (const m of LAYERS) {
      const a = perEvent(path, m, small);
      const b = perEvent(path, m, large);
      if (a === undefined || b === undefined) continue;
      const growth = b / a;
      rows.push([
        path === 'memory' ? `in-memory model, ${m} middlewares` : `over HTTP, ${m} middlewares (above openai-sse)`,
        ns(a),
        ns(b),
        `${growth.toFixed(2)}`,
        path === 'memory' || m === 0 ? '' : ns((b - (perEvent('http', 0, large) ?? 0)) / m),
      ]);
      if (m === 10) {
        checks.push({
          text: `${path === 'memory' ? 'in memory' : 'over HTTP, above openai-sse'}: at most 2 µs per event with 10 middlewares (${large} chunks)`,
          value: `${ns(b)} ns`,
          limit: `≤ ${MAX_NS_PER_EVENT} ns`,
          met: b <= MAX_NS_PER_EVENT,
        });
      }
      if (m === 10 || path === 'memory') {
        checks.push({
          text: `${path === 'memory' ? 'in memory' : 'over HTTP'}, ${m} middlewares: ns per event at ${large} / at ${small} chunks stays flat`,
          value: growth.toFixed(2),
          limit: `≤ ${MAX_GROWTH}`,
          met: growth <= MAX_GROWTH,
        });
      }
    }
  }
  const fs = by.get(`openai/${small}`);
  const fl = by.get(`openai/${large}`);
  if (fs && fl) {
    const a = (fs.ms.median * 1e6) / eventsOf(small);
    const b = (fl.ms.median * 1e6) / eventsOf(large);
    rows.push(['the floor: plain `openai` client, whole time per chunk', ns(a), ns(b), (b / a).toFixed(2), '']);
  }
  const ss = by.get(`openai-sse/${small}`);
  const sl = by.get(`openai-sse/${large}`);
  if (ss && sl) {
    const a = (ss.ms.median * 1e6) / eventsOf(small);
    const b = (sl.ms.median * 1e6) / eventsOf(large);
    rows.push(['openai-sse: the body read by hand, whole time per chunk', ns(a), ns(b), (b / a).toFixed(2), '']);
  }
  const table: Table = {
    title: 'ns per event (median reply time / events)',
    columns: [
      'path',
      `${small} chunks`,
      `${large} chunks`,
      `${large}/${small}`,
      `ns per event per middleware (${large}, HTTP)`,
    ],
    rows,
  };
  return { tables: [table], checks };
}
