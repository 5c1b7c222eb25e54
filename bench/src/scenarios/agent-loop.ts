/**
 * S1 — the agent loop (issue 6): one reply = a streamed model call of 20 text chunks ending in a
 * tool call, the tool run, a second streamed call of 20 text chunks. The plain `openai` client
 * driving the same exchange by hand is the floor; rxscope (bare, 10 pass-through middlewares,
 * the built-in stack) and the field's agent loops (LangChain `createAgent`, the AI SDK's
 * `streamText` with a tool, OpenAI Agents JS `run` with streaming) are measured against it.
 */
import { OpenAIChatModel } from '@rxscope/core/openai';
import OpenAI from 'openai';
import { packageVersion } from '../harness/machine.js';
import type { Analysis, Check, Scenario, TimedResultView } from '../harness/scenario.js';
import { startServerProcess } from '../harness/server.js';
import {
  checkOutcome,
  EXCHANGE_SERVER,
  floorReply,
  sseFloorReply,
  MODEL,
  modelReply,
  type Outcome,
  rxscopeContenders,
} from './exchange.js';
import { fetchSseReply } from './fetch-sse.js';
import { peers } from './peers.js';
import { comparedTable } from './compare-table.js';
import { comparedBuild } from './rxscope-build.js';

const MAX_OVERHEAD_MS = 0.5;

export const agentLoop: Scenario = {
  id: 'agent-loop',
  title: 'S1 — Agent loop: one reply with a tool round trip, rxscope vs the field',
  description:
    'One reply = two streamed chat completions from the OpenAI-compatible test server (127.0.0.1, zero added latency, its own process, HTTP keep-alive): ' +
    'the first streams 20 text chunks and then a call of the `add` tool (arguments in 3 chunks), the contender runs the tool (zod-validated input) and sends its result, ' +
    'the second streams 20 text chunks; every contender streams and collects all 40 text deltas (checked before measuring) and gets usage chunks. ' +
    '`openai` is the floor: the plain `openai` client driving the same exchange by hand (tool-call deltas assembled, `JSON.parse`, zod, second request). ' +
    '`fetch-sse` (a reference: the fetch floor) drives the same exchange with `fetch` and a minimal SSE reader, no SDK: what a JavaScript client cannot go below. ' +
    "`openai-sse` (a reference, not the floor) is the floor with each streamed body read by hand with a push parser instead of the SDK's `Stream`, as rxscope's adapter reads it. " +
    "`openai-model` drives the same exchange by hand over rxscope's `OpenAIChatModel` (no agent): what the model adapter alone adds. " +
    'rxscope contenders subscribe to `agent.reply(user)` of a new `Agent` per reply (sharing one `OpenAIChatModel`, tool and middleware instances; a new agent keeps the conversation from growing, as the other contenders are stateless). ' +
    '`rxscope+10mw` has 10 `PassThroughMiddleware`s on every hook: each of `onAgent`, `onReasoning`, `onActing`, `onModelCall` returns `next(input).pipe(map((e) => e))` ' +
    '(a real operator per layer, not `next(input)` itself) and `onSystemPrompt` returns the prompt. ' +
    'No retries anywhere (`maxRetries: 0` in every client; RetryMiddleware never fires). Overhead = contender − floor, per reply.',
  baseline: 'openai',
  overhead: true,
  sizes: {
    quick: { warmup: 3, rounds: 2, batch: 3 },
    // 600 replies of warm-up: V8 optimises a function only after it has run enough, and most of
    // the loop's functions run once or twice per reply. After 60 replies (the size until
    // 2026-12-02) the loop still ran largely unoptimised code: the in-memory loop measured
    // +0.36 ms per reply at 60 warm-up replies and +0.12 ms at 3,000 in one paired run. A
    // service answers thousands of replies; its steady state is what this measures.
    full: { warmup: 600, rounds: 100, batch: 8 },
  },
  async setup() {
    const server = await startServerProcess(EXCHANGE_SERVER);
    const apiKey = 'bench';
    const client = new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 });

    const model = new OpenAIChatModel({ model: MODEL, apiKey, baseURL: server.url, maxRetries: 0 });
    const other = await comparedBuild();
    const target = { baseURL: server.url, apiKey };

    return {
      contenders: [
        {
          name: 'openai',
          label: 'the floor: plain `openai` client, the exchange by hand',
          run: () => floorReply(client),
        },
        {
          name: 'fetch-sse',
          label:
            'reference, the fetch floor: `fetch` and a minimal SSE reader (lines split, `data:` parsed), no SDK, the exchange by hand',
          run: () => fetchSseReply(target),
        },
        {
          name: 'openai-sse',
          label:
            "reference, not the floor: the plain `openai` client sending the requests, each streamed body read by hand with a push parser (`asResponse()` + `eventsource-parser`), as rxscope's adapter reads it",
          run: () => sseFloorReply(client),
        },
        {
          name: 'openai-model',
          label: "rxscope's model adapter without the agent: the exchange by hand over `OpenAIChatModel.stream()`",
          run: () => modelReply(model),
        },
        ...rxscopeContenders(model),
        ...(other
          ? rxscopeContenders(other.newOpenAIModel({ model: MODEL, apiKey, baseURL: server.url, maxRetries: 0 }), other)
          : []),
        ...peers(server.url, apiKey).map((p) => ({ name: p.name, label: p.label, run: () => p.reply() })),
      ],
      check: (name, result) => checkOutcome(name, result as Outcome),
      notes: [
        `Packages: ${['openai', 'rxjs', 'langchain', '@langchain/core', '@langchain/openai', 'ai', '@ai-sdk/openai', '@openai/agents', 'zod'].map(packageVersion).join(', ')}`,
        'The AI SDK is the 6.x line: `ai` 7 requires Node 22, the bench runs on Node 20.',
      ],
      teardown: () => server.close(),
    };
  },
  analyze: (r) => analyzeOverheads(r),
};

export const fmt = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(2)} ms`;

/**
 * The median of a contender's per-round differences to `floor` (paired: measured moments apart),
 * in ms per operation; undefined when either was not measured.
 */
export function pairedOverhead(r: TimedResultView, name: string, floor: string): number | undefined {
  const c = r.contenders.find((x) => x.name === name);
  const f = r.contenders.find((x) => x.name === floor);
  if (!c || !f) return undefined;
  const d = c.roundMedians.map((m, i) => m - f.roundMedians[i]!).sort((a, b) => a - b);
  return d.length % 2 ? d[(d.length - 1) / 2]! : (d[d.length / 2 - 1]! + d[d.length / 2]!) / 2;
}

/** The most bare rxscope may add per reply over the floor (paired rounds). */
const MAX_BARE_OVERHEAD_MS = 0.3;

/**
 * How many times lower than each field contender's rxscope+10mw's overhead must be: the second
 * round of performance work raised LangChain's from 10× to 25× and OpenAI Agents' from 5× to 8×.
 */
const FIELD_FACTORS = [
  ['langchain', 25],
  ['ai-sdk', 5],
  ['openai-agents', 8],
] as const;

/** How far above the fetch floor rxscope with 10 middlewares may be per S1 reply (paired rounds). */
const MAX_FETCH_FLOOR_MS = 0.6;

/** Overheads above the floor (paired per-round differences) and the targets they are held to. */
function analyzeOverheads(r: TimedResultView): Analysis {
  const over = (name: string): number | undefined => pairedOverhead(r, name, 'openai');
  const ours = over('rxscope+10mw');
  const bare = over('rxscope');
  const checks: Check[] = [];
  if (bare !== undefined) {
    checks.push({
      text: `bare rxscope adds at most ${MAX_BARE_OVERHEAD_MS} ms per reply over the floor (paired rounds)`,
      value: fmt(bare),
      limit: `≤ +${MAX_BARE_OVERHEAD_MS} ms`,
      met: bare <= MAX_BARE_OVERHEAD_MS,
    });
  }
  if (ours !== undefined) {
    checks.push({
      text: `rxscope with 10 middlewares adds at most ${MAX_OVERHEAD_MS} ms per reply over the floor (paired rounds)`,
      value: fmt(ours),
      limit: `≤ +${MAX_OVERHEAD_MS} ms`,
      met: ours <= MAX_OVERHEAD_MS,
    });
    for (const [name, factor] of FIELD_FACTORS) {
      const theirs = over(name);
      if (theirs === undefined) continue;
      const ratio = theirs / Math.max(ours, 1e-3);
      checks.push({
        text: `rxscope+10mw's overhead is at least ${factor}× lower than ${name}'s`,
        value:
          ours <= 0
            ? `${name} ${fmt(theirs)} vs ${fmt(ours)} (rxscope+10mw below the floor: no ratio)`
            : `${name} ${fmt(theirs)} vs ${fmt(ours)} = ${ratio.toFixed(1)}×`,
        limit: `≥ ${factor}×`,
        met: ours <= 0 ? theirs > 0 : ratio >= factor,
      });
    }
  }
  const fetchFloor = pairedOverhead(r, 'rxscope+10mw', 'fetch-sse');
  if (fetchFloor !== undefined) {
    checks.push({
      text: `rxscope with 10 middlewares within +${MAX_FETCH_FLOOR_MS} ms of the fetch floor (fetch-sse) per reply (paired rounds)`,
      value: fmt(fetchFloor),
      limit: `≤ +${MAX_FETCH_FLOOR_MS} ms`,
      met: fetchFloor <= MAX_FETCH_FLOOR_MS,
    });
  }
  const compared = comparedTable(r);
  return {
    checks,
    notes: [...sseFloorNotes(r), ...fetchFloorNotes(r)],
    ...(compared ? { tables: [compared] } : {}),
  };
}

/**
 * rxscope's adapter reads a stream with a push parser, the floor through the SDK's `Stream`: the
 * overheads against `openai-sse` (the floor read as the adapter reads) show what the loop and
 * the middlewares cost without that difference.
 */
function sseFloorNotes(r: TimedResultView): string[] {
  const sse = pairedOverhead(r, 'openai-sse', 'openai');
  if (sse === undefined) return [];
  const parts = ['openai-model', 'rxscope', 'rxscope+10mw', 'rxscope+builtins']
    .map((name) => [name, pairedOverhead(r, name, 'openai-sse')] as const)
    .filter((x): x is readonly [string, number] => x[1] !== undefined)
    .map(([name, v]) => `${name} ${fmt(v)}`);
  return [
    `Reading the body by hand instead of through the SDK's \`Stream\` (openai-sse) is ${fmt(sse)} per reply against the floor. ` +
      `Against openai-sse (paired rounds): ${parts.join(', ')}.`,
  ];
}

/** Each contender's distance to the fetch floor (`fetch` + a minimal SSE reader, no SDK). */
function fetchFloorNotes(r: TimedResultView): string[] {
  const parts = ['openai', 'openai-sse', 'openai-model', 'rxscope', 'rxscope+10mw', 'rxscope+builtins']
    .map((name) => [name, pairedOverhead(r, name, 'fetch-sse')] as const)
    .filter((x): x is readonly [string, number] => x[1] !== undefined)
    .map(([name, v]) => `${name} ${fmt(v)}`);
  return parts.length ? [`Above the fetch floor (fetch-sse, paired rounds): ${parts.join(', ')}.`] : [];
}
