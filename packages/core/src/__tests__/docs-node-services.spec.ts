/**
 * docs/node-services.md "Graceful shutdown", run as a test with what a reader would notice.
 */
import { filter, lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, defineTool, InMemorySessionStore, isEvent, textOfMsg } from '../index.js';
import { ScriptedChatModel } from '../testing/index.js';

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
    const after = agentFor('orders');
    const resumed = lastValueFrom(after.reply({ type: 'RESUME_REPLY' }).pipe(toArray()));
    while (started < 2) await new Promise((r) => setTimeout(r, 1));
    release();
    const events = await resumed;
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(textOfMsg(after.context[1]!)).toBe('Both orders are packed.');
    expect(after.pending).toBeUndefined();
  });
});
