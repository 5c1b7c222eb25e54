/**
 * Step checkpoints (issue 31): what one step's checkpoint costs in each store that keeps a
 * journal, in a session of 10 and of 1,000 messages. A checkpoint appends one journal entry (the
 * step's events), never the session: its cost must not grow with the conversation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Agent, createMsg, JOURNAL_VERSION, type AgentEvent, type JournalEntry, type Msg } from '@rxscope/core';
import { FileSessionStore, RedisSessionStore } from '@rxscope/core/node';
import { startRedisServer } from '@rxscope/core/testing/node';
import type { Analysis, Check, Contender, Scenario, TimedResultView } from '../harness/scenario.js';

const SIZES = [10, 1000] as const;
const LIMIT_MS = { file: 1, redis: 2 } as const;
/** The journal is dropped every this many appends (as a reply's end drops it), so it stays reply-sized. */
const PER_REPLY = 20;

/** A conversation of `n` messages of a few hundred bytes each. */
function conversation(n: number): Msg[] {
  return Array.from({ length: n }, (_, i) =>
    createMsg(i % 2 ? 'assistant' : 'user', `Message ${i}: ${'some conversation text '.repeat(12)}`),
  );
}

/** A model step's events as a reply journals them: a text block of 20 deltas and a tool call. */
function stepEvents(): AgentEvent[] {
  const base = { replyId: 'reply_bench', source: 'bench', createdAt: Date.now() };
  let id = 0;
  const e = (fields: Record<string, unknown>) => ({ ...base, id: `evt_${id++}`, ...fields }) as unknown as AgentEvent;
  return [
    e({ type: 'MODEL_CALL_START', model: 'bench' }),
    e({ type: 'TEXT_BLOCK_START', blockId: 't' }),
    ...Array.from({ length: 20 }, (_, i) => e({ type: 'TEXT_BLOCK_DELTA', blockId: 't', delta: `word${i} ` })),
    e({ type: 'TEXT_BLOCK_END', blockId: 't' }),
    e({ type: 'TOOL_CALL_START', blockId: 'c', toolCallId: 'call_1', name: 'add' }),
    e({ type: 'TOOL_CALL_DELTA', blockId: 'c', delta: '{"a":2,"b":3}' }),
    e({ type: 'TOOL_CALL_END', blockId: 'c' }),
    e({
      type: 'MODEL_CALL_END',
      model: 'bench',
      usage: { inputTokens: 60, outputTokens: 40 },
      finishReason: 'tool_calls',
    }),
  ];
}

export const checkpoint: Scenario = {
  id: 'checkpoint',
  title: "Step checkpoints — one step's journal entry, File and Redis, at 10 and 1,000 messages",
  description:
    "One step's checkpoint: `store.appendJournal(sessionId, entry)` with the entry a reply writes after a model step " +
    '(25 events: a text block of 20 deltas and a tool call), in a session whose saved state holds 10 or 1,000 messages. ' +
    '`file-N`: `FileSessionStore` on the local disk, each entry flushed with `fdatasync` (the default `fsync: true`). ' +
    '`redis-N`: `RedisSessionStore` on a redis-server on loopback (one `RPUSH` in a Lua script). ' +
    `The journal is dropped every ${PER_REPLY} entries, as a reply's end drops it. ` +
    `Targets: ≤ ${LIMIT_MS.file} ms (File) and ≤ ${LIMIT_MS.redis} ms (Redis) per checkpoint, the same at 10 and 1,000 messages.`,
  baseline: 'file-10',
  sizes: {
    quick: { warmup: 3, rounds: 2, batch: 3 },
    full: { warmup: 200, rounds: 20, batch: 50 },
  },
  async setup() {
    const dir = mkdtempSync(join(tmpdir(), 'rxscope-bench-checkpoint-'));
    const server = await startRedisServer();
    const redis = new Redis(server.url);
    const file = new FileSessionStore({ dir });
    const onRedis = new RedisSessionStore({ redis, prefix: 'bench:checkpoint:' });
    const events = stepEvents();
    const contenders: Contender[] = [];
    for (const [kind, store] of [
      ['file', file],
      ['redis', onRedis],
    ] as const) {
      for (const n of SIZES) {
        const sessionId = `${kind}-${n}`;
        const seeded = new Agent({
          name: 'bench',
          model: { modelName: 'bench', provider: 'bench', stream: () => undefined as never },
          sessionId,
          state: {
            version: 3,
            agentName: 'bench',
            sessionId,
            context: conversation(n),
            middlewareState: {},
            permissions: { mode: 'default', rules: [] },
          },
        });
        const version = await store.save(sessionId, seeded.saveState(), 0);
        let appended = 0;
        const entry: JournalEntry = {
          v: JOURNAL_VERSION,
          base: version,
          replyId: 'reply_bench',
          step: 1,
          toolSteps: 0,
          events,
        };
        contenders.push({
          name: sessionId,
          label: `\`${kind === 'file' ? 'FileSessionStore' : 'RedisSessionStore'}.appendJournal\`, a session of ${n} messages`,
          run: async () => {
            if (++appended % PER_REPLY === 0) await store.clearJournal(sessionId);
            await store.appendJournal(sessionId, entry);
            return appended;
          },
        });
      }
    }
    return {
      contenders,
      teardown: async () => {
        redis.disconnect();
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  analyze: (r: TimedResultView): Analysis => {
    const checks: Check[] = [];
    for (const kind of ['file', 'redis'] as const) {
      const medians = SIZES.map((n) => r.contenders.find((c) => c.name === `${kind}-${n}`)?.ms.median);
      for (const [i, n] of SIZES.entries()) {
        const m = medians[i];
        if (m === undefined) continue;
        checks.push({
          text: `one step's checkpoint, ${kind === 'file' ? 'FileSessionStore' : 'RedisSessionStore'}, ${n} messages`,
          value: `${m.toFixed(3)} ms (median)`,
          limit: `≤ ${LIMIT_MS[kind]} ms`,
          met: m <= LIMIT_MS[kind],
        });
      }
      const [small, large] = medians;
      if (small !== undefined && large !== undefined) {
        checks.push({
          text: `${kind}: flat in the conversation's length (1,000 messages ÷ 10 messages, medians)`,
          value: `${(large / small).toFixed(2)}×`,
          limit: '≤ 1.5×',
          met: large / small <= 1.5,
        });
      }
    }
    return { checks };
  },
};
