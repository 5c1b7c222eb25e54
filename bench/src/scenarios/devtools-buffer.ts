/**
 * The devtools recorder's ring buffer over 20,000 replies: S1 replies (replayed from memory)
 * recorded by one `DevtoolsRecorder` with its default bounds; the heap after forced GCs at
 * points along the way must stay flat once the buffer is full, and the buffer within its bounds.
 */
import { DevtoolsMiddleware, DevtoolsRecorder } from '@rxscope/devtools';
import type { Check, CustomScenario } from '../harness/scenario.js';
import { ReplayModel } from './agent-loop-memory.js';
import { builtins, exchangeAgent, rxscopeReply } from './exchange.js';

const REPLIES = 20_000;
/** Heap growth allowed from the first checkpoint after the buffer filled to the last. */
const MAX_GROWTH = 0.1;

const gc = (globalThis as { gc?: () => void }).gc;
const heapMiB = () => {
  for (let i = 0; i < 3; i++) gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

export const devtoolsBuffer: CustomScenario = {
  kind: 'custom',
  id: 'devtools-buffer',
  title: 'Devtools recorder: the ring buffer over 20,000 replies',
  description:
    `${REPLIES.toLocaleString('en')} sequential S1 replies (replayed from memory, production built-ins, a new \`Agent\` per reply) recorded by one \`DevtoolsRecorder\` with its default bounds (500 replies, 32 MiB). ` +
    `Heap after forced GCs at checkpoints; target: at most +${MAX_GROWTH * 100} % from the checkpoint after the buffer filled (2,000 replies) to the last, and the buffer within its bounds.`,
  async run(ctx) {
    if (!gc) throw new Error('run the bench with node --expose-gc (npm run bench does)');
    const total = ctx.config.quick ? 2_500 : REPLIES;
    const points = ctx.config.quick ? [2_000, 2_500] : [2_000, 5_000, 10_000, 15_000, 20_000];
    const model = new ReplayModel();
    const recorder = new DevtoolsRecorder();
    const middlewares = [new DevtoolsMiddleware({ recorder }), ...builtins()];
    const rows: string[][] = [];
    const heaps: number[] = [];
    const started = performance.now();
    for (let i = 1; i <= total; i++) {
      await rxscopeReply(exchangeAgent(model, middlewares));
      if (points.includes(i)) {
        const heap = heapMiB();
        heaps.push(heap);
        const stats = recorder.stats();
        rows.push([
          i.toLocaleString('en'),
          heap.toFixed(1),
          String(stats.replies),
          (stats.bytes / 2 ** 20).toFixed(2),
          stats.events.toLocaleString('en'),
        ]);
        ctx.log(`  ${i} replies: heap ${heap.toFixed(1)} MiB, buffer ${stats.replies} replies`);
      }
    }
    const msPerReply = (performance.now() - started) / total;
    const growth = heaps.at(-1)! / heaps[0]! - 1;
    const stats = recorder.stats();
    const checks: Check[] = [
      {
        text: `heap after forced GC, from ${points[0]!.toLocaleString('en')} replies to ${total.toLocaleString('en')}`,
        value: `${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} %`,
        limit: `≤ +${MAX_GROWTH * 100} %`,
        met: growth <= MAX_GROWTH,
      },
      {
        text: 'the buffer within its bounds at the end (replies, bytes)',
        value: `${stats.replies} replies, ${(stats.bytes / 2 ** 20).toFixed(2)} MiB`,
        limit: `≤ ${recorder.options.maxReplies} replies, ≤ ${(recorder.options.maxBytes / 2 ** 20).toFixed(0)} MiB`,
        met: stats.replies <= recorder.options.maxReplies && stats.bytes <= recorder.options.maxBytes,
      },
    ];
    return {
      tables: [
        {
          title: 'Heap and buffer along the run',
          columns: ['replies', 'heap MiB', 'replies kept', 'buffer MiB', 'events kept'],
          rows,
        },
      ],
      checks,
      notes: [`${msPerReply.toFixed(2)} ms per reply over the run`],
      data: { rows, msPerReply },
    };
  },
};
