/**
 * docs/node-services.md "Graceful shutdown", run as a test with what a reader would notice. The
 * page's resume example is a file in ./docs/node-services/ that the page shows through a
 * `<!-- snippet: ... -->` marker (checked by scripts/doc-snippets.spec.ts).
 *
 * Not run here: the section's first block, which wires `shutdownAgents` to `terminationSignal()`
 * and ends the process with `process.exit(0)` (src/node/shutdown-agents.spec.ts tests both
 * functions). The page's other sections are not mirrored by any spec.
 */
import { filter, lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, type AgentEvent, defineTool, InMemorySessionStore, isEvent } from '../index.js';
import { ScriptedChatModel } from '../testing/index.js';
import { resumeOrders } from './docs/node-services/resume.js';

describe('node services: graceful shutdown', () => {
  it('shutdown() saves the running reply; RESUME_REPLY in a new agent finishes it', async () => {
    const store = new InMemorySessionStore();
    let release!: () => void;
    let started = 0;
    const packOrder = defineTool({
      name: 'pack_order',
      description: 'Packs one order',
      input: z.object({ order: z.number() }),
      execute: ({ order }) =>
        new Promise<string>((resolve) => {
          started++;
          release = () => resolve(`order ${order} packed`);
        }),
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'pack_order', input: { order: 1 } },
          { name: 'pack_order', input: { order: 2 } },
        ],
      },
      { text: 'Both orders are packed.' },
    ]);
    const agentFor = (sessionId: string) => new Agent({ model, tools: [packOrder], store, sessionId });

    const before = agentFor('orders');
    const ends = lastValueFrom(before.reply('Pack orders 1 and 2').pipe(filter(isEvent('REPLY_END')), toArray()));
    while (started < 1) await new Promise((r) => setTimeout(r, 1));
    const done = before.shutdown({ graceMs: 10_000, reason: 'received SIGTERM' });
    release();
    expect(await done).toMatchObject({ sessionId: 'orders', finishReason: 'shutdown', cut: false });
    expect((await ends)[0]).toMatchObject({
      finishReason: 'shutdown',
      stopReason: { code: 'shutdown', message: 'received SIGTERM' },
    });

    // The next process: the same session, resumed; order 2 is packed then.
    const rendered: AgentEvent[] = [];
    await resumeOrders(model, [packOrder], store, (e) => rendered.push(e));
    while (started < 2) await new Promise((r) => setTimeout(r, 1));
    release();
    while (!rendered.some(isEvent('REPLY_END'))) await new Promise((r) => setTimeout(r, 1));
    expect(rendered[0]).toMatchObject({ type: 'REPLY_START', replyId: (await ends)[0]!.replyId });
    expect(rendered.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    const text = rendered.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('');
    expect(text).toBe('Both orders are packed.');
    expect((await store.load('orders'))?.state.pending).toBeUndefined();
  });
});
