/**
 * S5 — first token (issue 6): time from subscribing to a reply to its first
 * `TEXT_BLOCK_DELTA`, against the plain `openai` client's time from `create()` to its first
 * content chunk. Same server and exchange as S1; each operation still consumes its reply to the
 * end (so the connection returns to the pool), but reports only the time to the first text.
 */
import { type Middleware } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import OpenAI from 'openai';
import { packageVersion } from '../harness/machine.js';
import type { Scenario, SelfTimed } from '../harness/scenario.js';
import { startServerProcess } from '../harness/server.js';
import {
  BUILTINS_LABEL,
  builtins,
  checkOutcome,
  EXCHANGE_SERVER,
  exchangeAgent,
  floorReply,
  MODEL,
  type Outcome,
  passThrough,
  rxscopeReply,
} from './exchange.js';

type Timed = SelfTimed & { readonly outcome: Outcome };

export const firstToken: Scenario = {
  id: 'first-token',
  title: 'S5 — First token: subscribe → first TEXT_BLOCK_DELTA vs the floor',
  description:
    'The S1 exchange (zero-latency test server on 127.0.0.1, own process, keep-alive). `openai`: time from calling `client.chat.completions.create({stream: true})` to the first chunk with content. ' +
    'rxscope: time from `agent.reply(user).subscribe()` (the agent is created before the clock starts; `reply()` only builds a cold Observable) to the first `TEXT_BLOCK_DELTA`: ' +
    'the reply queue, `onAgent`/`onReasoning`/`onModelCall` chains, system prompt, request building in `OpenAIChatModel`, the HTTP round trip, SSE parsing, and the event passing out through every layer. ' +
    'Each operation then consumes the rest of its reply (not timed). Differences are per reply, in ms.',
  baseline: 'openai',
  overhead: true,
  selfTimed: true,
  sizes: {
    quick: { warmup: 3, rounds: 2, batch: 3 },
    full: { warmup: 100, rounds: 60, batch: 8 },
  },
  async setup() {
    const server = await startServerProcess(EXCHANGE_SERVER);
    const client = new OpenAI({ apiKey: 'bench', baseURL: server.url, maxRetries: 0 });
    const model = new OpenAIChatModel({ model: MODEL, apiKey: 'bench', baseURL: server.url, maxRetries: 0 });
    const timeRx = async (mws: readonly Middleware[]): Promise<Timed> => {
      const agent = exchangeAgent(model, mws);
      let first = Number.NaN;
      const t0 = performance.now();
      const outcome = await rxscopeReply(agent, { onFirstText: () => (first = performance.now() - t0) });
      return { elapsedMs: first, outcome };
    };
    const ten = passThrough(10);
    const stack = builtins();
    return {
      contenders: [
        {
          name: 'openai',
          label: 'plain `openai` client: `create()` → first content chunk',
          async run(): Promise<Timed> {
            let first = Number.NaN;
            const t0 = performance.now();
            const outcome = await floorReply(client, { onFirstText: () => (first = performance.now() - t0) });
            return { elapsedMs: first, outcome };
          },
        },
        { name: 'rxscope', label: '`subscribe()` → first `TEXT_BLOCK_DELTA`, no middleware', run: () => timeRx([]) },
        { name: 'rxscope+10mw', label: 'the same, 10 pass-through middlewares on every hook', run: () => timeRx(ten) },
        { name: 'rxscope+builtins', label: `the same, ${BUILTINS_LABEL}`, run: () => timeRx(stack) },
      ],
      check: (name, result) => checkOutcome(name, (result as Timed).outcome),
      notes: [`Packages: ${['openai', '@langchain/openai', 'rxjs'].map(packageVersion).join(', ')}`],
      teardown: () => server.close(),
    };
  },
};
