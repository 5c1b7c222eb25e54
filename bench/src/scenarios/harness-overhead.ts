/**
 * Harness overhead per reasoning step as the conversation grows (issue 16): the same two-step
 * reply (a call of a trivial tool, then a text answer) on a conversation of 10, 100 and 1,000
 * messages, by a bare `Agent` and by `createHarnessAgent` with the coding preset (a local sandbox,
 * compaction, eviction, plan mode, the task list, workspace context and `@path` all on). The
 * model replays its events from memory, so the figures are framework time only. Before each
 * reply an outermost bench middleware trims the conversation back to its size (the same cost for
 * both), so every reply sees the same conversation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, Observable, toArray } from 'rxjs';
import { z } from 'zod';
import {
  Agent,
  type ChatModel,
  createMsg,
  defineTool,
  type Middleware,
  type ModelEvent,
  type ModelRequest,
  type Msg,
} from '@rxscope/core';
import { createHarnessAgent, presets } from '@rxscope/harness';
import { FileSessionStore } from '@rxscope/core/node';
import type { Analysis, Check, Contender, Scenario, TimedResultView } from '../harness/scenario.js';
import { fmt, pairedOverhead } from './agent-loop.js';

const SIZES = [10, 100, 1000] as const;
const STEPS = 2;

/** Answers with one `lookup` call, then (once the conversation's last message holds its result) with text. */
class StepModel implements ChatModel {
  readonly modelName = 'bench-memory';
  readonly provider = 'memory';
  stream(request: ModelRequest): Observable<ModelEvent> {
    const last = request.messages[request.messages.length - 1];
    const answered = last?.role === 'assistant' && last.content.some((b) => b.type === 'tool_result');
    const events: ModelEvent[] = answered
      ? [
          { type: 'TEXT_BLOCK_START', blockId: 't' },
          { type: 'TEXT_BLOCK_DELTA', blockId: 't', delta: 'The answer is 42.' },
          { type: 'TEXT_BLOCK_END', blockId: 't' },
          {
            type: 'MODEL_CALL_END',
            model: this.modelName,
            usage: { inputTokens: 100, outputTokens: 5 },
            finishReason: 'stop',
          },
        ]
      : [
          { type: 'TOOL_CALL_START', blockId: 'c', toolCallId: `call_${request.messages.length}`, name: 'lookup' },
          { type: 'TOOL_CALL_DELTA', blockId: 'c', delta: '{"key":"answer"}' },
          { type: 'TOOL_CALL_END', blockId: 'c' },
          {
            type: 'MODEL_CALL_END',
            model: this.modelName,
            usage: { inputTokens: 100, outputTokens: 5 },
            finishReason: 'tool_calls',
          },
        ];
    return new Observable<ModelEvent>((subscriber) => {
      let stopped = false;
      void Promise.resolve().then(() => {
        for (const e of events) {
          if (stopped) return;
          subscriber.next({ ...e });
        }
        subscriber.complete();
      });
      return () => {
        stopped = true;
      };
    });
  }
}

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up',
  input: z.object({ key: z.string() }),
  readOnly: true,
  execute: ({ key }) => `${key} = 42`,
});

/** A conversation of `n` messages: user questions and assistant answers, every fourth with a tool call and result. */
function conversation(n: number): Msg[] {
  const out: Msg[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0)
      out.push(
        createMsg('user', `Question ${i}: what does module ${i} do, and where is it used? ${'context '.repeat(20)}`),
      );
    else if (i % 4 === 1) {
      out.push(
        createMsg('assistant', [
          { type: 'tool_call', id: `old_${i}`, name: 'lookup', arguments: `{"key":"module${i}"}` },
          {
            type: 'tool_result',
            toolCallId: `old_${i}`,
            name: 'lookup',
            status: 'success',
            output: [{ type: 'text', text: `module${i} = ${'x'.repeat(120)}` }],
          },
          { type: 'text', text: `Module ${i} parses input; it is used by the loader. ${'detail '.repeat(15)}` },
        ]),
      );
    } else out.push(createMsg('assistant', `Module ${i} formats output for the CLI. ${'detail '.repeat(25)}`));
  }
  return out;
}

/** Outermost bench middleware: before each reply, the conversation is trimmed back to its first `n` messages. */
const trimTo = (n: number): Middleware => ({
  key: 'bench-trim',
  onAgent: (_agent, ctx, input, next) => {
    const len = ctx.conversation.messages.length;
    if (len > n) ctx.conversation.replaceMessages(n, len, []);
    return next(input);
  },
});

/** A saved session of `n` messages. */
const stateOf = (n: number) => ({
  version: 1,
  agentName: 'bench',
  sessionId: `bench-${n}`,
  context: conversation(n),
  middlewareState: {},
  permissions: { mode: 'default', rules: [] },
});

const SAVE = 'save-1000';
const SAVED_SIZE = 1000;
const MAX_SAVE_MS = 5;

const reply = async (agent: Agent): Promise<unknown> => {
  const events = await lastValueFrom(agent.reply('What is the answer?').pipe(toArray()), { defaultValue: [] });
  const end = events[events.length - 1];
  if (end?.type !== 'REPLY_END' || end.finishReason !== 'completed')
    throw new Error(`reply ended ${JSON.stringify(end)}`);
  return events.length;
};

export const harnessOverhead: Scenario = {
  id: 'harness-overhead',
  title: 'Harness overhead per reasoning step as the conversation grows (10, 100, 1,000 messages)',
  description:
    `One reply of ${STEPS} reasoning steps (a \`lookup\` tool call, then a text answer; the model replays from memory) on a conversation of 10, 100 or 1,000 messages. ` +
    "`bare-N`: `new Agent` with the tool. `harness-N`: `createHarnessAgent({...presets.coding(), sandbox: 'local'})` with the same tool (sandbox lifecycle, `@path`, workspace context, task list, plan mode, compaction, eviction, file tools). " +
    'An outermost bench middleware trims the conversation back to N messages before each reply, in both. ' +
    `Harness overhead per step = (harness-N − bare-N) / ${STEPS}, paired per round. Target: the 1,000-message step costs at most 2× the 10-message step. ` +
    `\`${SAVE}\`: what saving a ${SAVED_SIZE}-message harness session costs after a reply (\`saveState()\`, then \`FileSessionStore.save\` under its lock); target ≤ ${MAX_SAVE_MS} ms.`,
  baseline: 'bare-10',
  sizes: {
    quick: { warmup: 3, rounds: 2, batch: 3 },
    full: { warmup: 300, rounds: 20, batch: 50 },
  },
  setup() {
    const model = new StepModel();
    const workspace = mkdtempSync(join(tmpdir(), 'rxscope-bench-harness-'));
    const contenders: Contender[] = SIZES.flatMap((n) => {
      const state = stateOf(n);
      const bare = new Agent({
        name: 'bench',
        model,
        tools: [lookup],
        middlewares: [trimTo(n)],
        state: structuredClone(state),
      });
      const harness = createHarnessAgent({
        ...presets.coding(),
        name: 'bench',
        model,
        workspace,
        sandbox: 'local',
        tools: [lookup],
        middlewares: [trimTo(n)],
        state: structuredClone(state),
      });
      return [
        { name: `bare-${n}`, label: `\`new Agent\`, ${n} messages`, run: () => reply(bare) },
        {
          name: `harness-${n}`,
          label: `\`createHarnessAgent\` (coding preset, local sandbox), ${n} messages`,
          run: () => reply(harness),
        },
      ];
    });
    // A 1,000-message harness session written as a service writes it after each reply.
    const store = new FileSessionStore({ dir: join(workspace, '.sessions') });
    const saved = createHarnessAgent({
      ...presets.coding(),
      name: 'bench',
      model,
      workspace,
      sandbox: 'local',
      tools: [lookup],
      state: structuredClone(stateOf(SAVED_SIZE)),
    });
    let version = 0;
    contenders.push({
      name: SAVE,
      label: `\`saveState()\` of a ${SAVED_SIZE}-message harness session + \`FileSessionStore.save\` (JSON written, renamed, under its lock)`,
      run: async () => {
        version = await store.save('bench-save', saved.saveState(), version);
        return version;
      },
    });
    return Promise.resolve({
      contenders,
      teardown: () => {
        rmSync(workspace, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
  analyze: (r: TimedResultView): Analysis => {
    const perStep = SIZES.map((n) => {
      const over = pairedOverhead(r, `harness-${n}`, `bare-${n}`);
      return { n, over: over === undefined ? undefined : over / STEPS };
    });
    const rows = perStep.map(({ n, over }) => [String(n), over === undefined ? '—' : fmt(over)]);
    const checks: Check[] = [];
    const small = perStep[0]!.over;
    const large = perStep[2]!.over;
    if (small !== undefined && large !== undefined) {
      const ratio = large / small;
      checks.push({
        text: 'harness overhead per step at 1,000 messages ≤ 2× the overhead at 10 messages (framework time only)',
        value: `${ratio.toFixed(2)}×`,
        limit: '≤ 2×',
        met: ratio <= 2,
      });
    }
    const save = r.contenders.find((c) => c.name === SAVE);
    if (save) {
      checks.push({
        text: `a ${SAVED_SIZE}-message session's \`saveState()\` + store write (FileSessionStore) takes at most ${MAX_SAVE_MS} ms`,
        value: `${save.ms.median.toFixed(2)} ms (median; CPU ${save.cpuMs.median.toFixed(2)} ms)`,
        limit: `≤ ${MAX_SAVE_MS} ms`,
        met: save.ms.median <= MAX_SAVE_MS,
      });
    }
    return {
      tables: [
        {
          title: 'Harness overhead per reasoning step (paired per round)',
          columns: ['messages', 'harness − bare, per step'],
          align: ['right', 'right'],
          rows,
        },
      ],
      checks,
    };
  },
};
