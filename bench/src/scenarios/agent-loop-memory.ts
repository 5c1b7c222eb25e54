/**
 * S1 in memory (issue 6): the S1 exchange with the model's events replayed from memory, so the
 * agent loop's own cost per reply is measured without the HTTP client, the socket and the test
 * server, whose timing dominates S1 over loopback. The replayed events are those
 * `OpenAIChatModel` emits for the exchange, delivered as a stream delivers them: the call's first
 * event after a macrotask (a response arriving), each further one after a microtask (`for await`
 * over the chunks).
 */
import { Agent, InMemorySessionStore, type ChatModel, type ModelEvent, type ModelRequest } from '@rxscope/core';
import { Observable } from 'rxjs';
import type { Analysis, Check, Scenario, TimedResultView } from '../harness/scenario.js';
import { fmt, pairedOverhead } from './agent-loop.js';
import {
  checkOutcome,
  FINAL_TEXT,
  FIRST_TEXT,
  MODEL,
  modelReply,
  type Outcome,
  rxscopeContenders,
  rxscopeReply,
  SYSTEM,
  addToolOf,
} from './exchange.js';
import { comparedTable } from './compare-table.js';
import { comparedBuild, currentBuild } from './rxscope-build.js';

const MAX_OVERHEAD_MS = 0.5;
/** Step checkpoints (issue 31): what they may add to a reply, in-memory store, paired with the same store without them. */
const MAX_CHECKPOINT_MS = 0.3;

/** The S1 agent with an in-memory session store, with or without step checkpoints. */
const storedAgent = (model: ChatModel, checkpoints: boolean) =>
  new Agent({
    name: 'assistant',
    sysPrompt: SYSTEM,
    model,
    tools: [addToolOf(currentBuild)],
    store: new InMemorySessionStore(),
    sessionId: 's1',
    checkpoints,
  });

const textEvents = (blockId: string, text: readonly string[]): ModelEvent[] => [
  { type: 'TEXT_BLOCK_START', blockId },
  ...text.map((delta) => ({ type: 'TEXT_BLOCK_DELTA' as const, blockId, delta })),
  { type: 'TEXT_BLOCK_END', blockId },
];

/** The first call's events: 20 text deltas, then the `add` call with its arguments in 3 deltas. */
const FIRST_CALL: readonly ModelEvent[] = [
  ...textEvents('blk_text_1', FIRST_TEXT),
  { type: 'TOOL_CALL_START', blockId: 'blk_call_1', toolCallId: 'call_add_1', name: 'add' },
  { type: 'TOOL_CALL_DELTA', blockId: 'blk_call_1', delta: '{"a":' },
  { type: 'TOOL_CALL_DELTA', blockId: 'blk_call_1', delta: '2,"b"' },
  { type: 'TOOL_CALL_DELTA', blockId: 'blk_call_1', delta: ':3}' },
  { type: 'TOOL_CALL_END', blockId: 'blk_call_1' },
  {
    type: 'MODEL_CALL_END',
    model: MODEL,
    usage: { inputTokens: 60, outputTokens: 40 },
    finishReason: 'tool_calls',
    responseModel: MODEL,
  },
];

/** The second call's events (after the tool result): 20 text deltas. */
const FINAL_CALL: readonly ModelEvent[] = [
  ...textEvents('blk_text_2', FINAL_TEXT),
  {
    type: 'MODEL_CALL_END',
    model: MODEL,
    usage: { inputTokens: 110, outputTokens: 20 },
    finishReason: 'stop',
    responseModel: MODEL,
  },
];

const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A {@link ChatModel} that replays the exchange: the first call's events, or the second's once the
 * conversation holds a tool result. Every event is a new object, as an adapter makes them.
 */
export class ReplayModel implements ChatModel {
  readonly modelName = MODEL;
  readonly provider = 'memory';

  stream(request: ModelRequest): Observable<ModelEvent> {
    const answered = request.messages.some((m) => m.content.some((b) => b.type === 'tool_result'));
    const events = answered ? FINAL_CALL : FIRST_CALL;
    return new Observable<ModelEvent>((subscriber) => {
      let stopped = false;
      const run = async () => {
        await macrotask();
        for (const e of events) {
          await Promise.resolve();
          if (stopped) return;
          subscriber.next({ ...e });
        }
        subscriber.complete();
      };
      run().catch((err: unknown) => subscriber.error(err));
      return () => {
        stopped = true;
      };
    });
  }
}

export const agentLoopMemory: Scenario = {
  id: 'agent-loop-memory',
  title: "S1 in memory — the agent loop's own cost per reply, without I/O",
  description:
    "The S1 exchange (two model calls of 20 text deltas, an `add` tool call between) with the model's events replayed from memory by a `ReplayModel`: the events `OpenAIChatModel` emits for the exchange, each call's first one after a macrotask (as a response arrives) and each further one after a microtask (as `for await` over a stream delivers them). " +
    '`replay` is the floor here: the same model driven by hand (events collected, tool-call arguments assembled, `JSON.parse`, zod, the second request built), no agent. ' +
    'The rxscope contenders are those of S1 (a new `Agent` per reply; `rxscope+10mw`: 10 pass-through middlewares whose four onion hooks each add a `map`). ' +
    'Overhead = contender − replay, per reply: what the agent loop itself costs, without the HTTP client, the socket and the test server, whose timing dominates S1 over loopback.',
  baseline: 'replay',
  overhead: true,
  sizes: {
    quick: { warmup: 3, rounds: 2, batch: 3 },
    full: { warmup: 3000, rounds: 40, batch: 100 },
  },
  async setup() {
    const model = new ReplayModel();
    const other = await comparedBuild();
    return {
      contenders: [
        {
          name: 'replay',
          label: 'the floor: the replayed exchange driven by hand (no agent)',
          run: () => modelReply(model),
        },
        ...rxscopeContenders(model),
        {
          name: 'rxscope+store',
          label:
            '`Agent.reply()` with an `InMemorySessionStore`, `checkpoints: false` (loaded and saved once per reply)',
          run: () => rxscopeReply(storedAgent(model, false)),
        },
        {
          name: 'rxscope+checkpoints',
          label: 'the same with step checkpoints on (the default: a journal entry per step, per tool start and result)',
          run: () => rxscopeReply(storedAgent(model, true)),
        },
        ...(other ? rxscopeContenders(model, other) : []),
      ],
      check: (name: string, result: unknown) => checkOutcome(name, result as Outcome),
      teardown: () => Promise.resolve(),
    };
  },
  analyze: (r: TimedResultView): Analysis => {
    const checks: Check[] = [];
    for (const name of ['rxscope', 'rxscope+10mw', 'rxscope+builtins']) {
      const over = pairedOverhead(r, name, 'replay');
      if (over === undefined) continue;
      checks.push({
        text: `${name}: the agent loop's own time per reply, without I/O (paired rounds; S1's target of ${MAX_OVERHEAD_MS} ms read for the framework alone)`,
        value: fmt(over),
        limit: `≤ +${MAX_OVERHEAD_MS} ms`,
        met: over <= MAX_OVERHEAD_MS,
      });
    }
    const checkpoints = pairedOverhead(r, 'rxscope+checkpoints', 'rxscope+store');
    if (checkpoints !== undefined) {
      checks.push({
        text: 'step checkpoints: rxscope+checkpoints over rxscope+store, per reply (paired rounds)',
        value: fmt(checkpoints),
        limit: `≤ +${MAX_CHECKPOINT_MS} ms`,
        met: checkpoints <= MAX_CHECKPOINT_MS,
      });
    }
    const compared = comparedTable(r);
    return { checks, ...(compared ? { tables: [compared] } : {}) };
  },
};
