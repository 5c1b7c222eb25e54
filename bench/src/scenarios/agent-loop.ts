/**
 * S1 — the agent loop (issue 6): one reply = a streamed model call of 20 text chunks ending in a
 * tool call, the tool run, a second streamed call of 20 text chunks. The plain `openai` client
 * driving the same exchange by hand is the floor; rxscope (bare, 10 pass-through middlewares,
 * the built-in stack) and the field's agent loops (LangChain `createAgent`, the AI SDK's
 * `streamText` with a tool, OpenAI Agents JS `run` with streaming) are measured against it.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import {
  Agent as OpenAIAgent,
  OpenAIChatCompletionsModel,
  run as runOpenAIAgent,
  setTracingDisabled,
  tool as openAITool,
} from '@openai/agents';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { stepCountIs, streamText, tool as aiTool } from 'ai';
import { createAgent, tool as langchainTool } from 'langchain';
import OpenAI from 'openai';
import { packageVersion } from '../harness/machine.js';
import type { Analysis, Check, Scenario, TimedResultView } from '../harness/scenario.js';
import { startServerProcess } from '../harness/server.js';
import {
  ADD_DESCRIPTION,
  add,
  addInput,
  checkOutcome,
  EXCHANGE_SERVER,
  floorReply,
  sseFloorReply,
  MODEL,
  modelReply,
  type Outcome,
  SYSTEM,
  toolRunCount,
  USER,
  rxscopeContenders,
} from './exchange.js';
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
    setTracingDisabled(true);
    const server = await startServerProcess(EXCHANGE_SERVER);
    const apiKey = 'bench';
    const client = new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 });

    const model = new OpenAIChatModel({ model: MODEL, apiKey, baseURL: server.url, maxRetries: 0 });
    const other = await comparedBuild();

    // LangChain: createAgent over ChatOpenAI, tokens streamed with streamMode 'messages'.
    const lcModel = new ChatOpenAI({
      model: MODEL,
      apiKey,
      configuration: { baseURL: server.url },
      maxRetries: 0,
      streaming: true,
      streamUsage: true,
    });
    const lcAdd = langchainTool(({ a, b }: { a: number; b: number }) => add(a, b), {
      name: 'add',
      description: ADD_DESCRIPTION,
      schema: addInput,
    });
    const lcAgent = createAgent({ model: lcModel, tools: [lcAdd], systemPrompt: SYSTEM });

    // AI SDK: the OpenAI provider's chat-completions model, streamText with the tool and up to 5 steps.
    const provider = createOpenAI({ apiKey, baseURL: server.url });
    const aiModel = provider.chat(MODEL);
    const aiTools = {
      add: aiTool({
        description: ADD_DESCRIPTION,
        inputSchema: addInput,
        execute: ({ a, b }) => Promise.resolve(add(a, b)),
      }),
    };

    // OpenAI Agents: a chat-completions model over its own openai client (tracing disabled: no exporter).
    const agentsAgent = new OpenAIAgent({
      name: 'assistant',
      instructions: SYSTEM,
      model: new OpenAIChatCompletionsModel(new OpenAI({ apiKey, baseURL: server.url, maxRetries: 0 }), MODEL),
      tools: [
        openAITool({
          name: 'add',
          description: ADD_DESCRIPTION,
          parameters: addInput,
          execute: ({ a, b }) => Promise.resolve(add(a, b)),
        }),
      ],
    });

    const counted = async (f: () => Promise<string>): Promise<Outcome> => {
      const runs0 = toolRunCount();
      const text = await f();
      return { text, toolRuns: toolRunCount() - runs0 };
    };

    return {
      contenders: [
        {
          name: 'openai',
          label: 'the floor: plain `openai` client, the exchange by hand',
          run: () => floorReply(client),
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
        {
          name: 'langchain',
          label:
            '`createAgent({model: ChatOpenAI, tools})` (langchain 1.5), `agent.stream(…, {streamMode: "messages"})`',
          run: () =>
            counted(async () => {
              let text = '';
              const stream = await lcAgent.stream(
                { messages: [{ role: 'user', content: USER }] },
                { streamMode: 'messages' },
              );
              for await (const [chunk] of stream) {
                if (chunk.type === 'ai' && typeof chunk.content === 'string') text += chunk.content;
              }
              return text;
            }),
        },
        {
          name: 'ai-sdk',
          label: '`streamText({model: openai.chat(…), tools, stopWhen: stepCountIs(5)})`, `fullStream` iterated',
          run: () =>
            counted(async () => {
              let text = '';
              const result = streamText({
                model: aiModel,
                system: SYSTEM,
                prompt: USER,
                tools: aiTools,
                stopWhen: stepCountIs(5),
                maxRetries: 0,
              });
              for await (const part of result.fullStream) {
                if (part.type === 'text-delta') text += part.text;
                else if (part.type === 'error') throw part.error;
              }
              return text;
            }),
        },
        {
          name: 'openai-agents',
          label:
            '`run(agent, input, {stream: true})` with `OpenAIChatCompletionsModel`, events iterated, `completed` awaited',
          run: () =>
            counted(async () => {
              let text = '';
              const result = await runOpenAIAgent(agentsAgent, USER, { stream: true });
              for await (const event of result) {
                if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta')
                  text += event.data.delta;
              }
              await result.completed;
              return text;
            }),
        },
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
  const compared = comparedTable(r);
  return { checks, notes: sseFloorNotes(r), ...(compared ? { tables: [compared] } : {}) };
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
