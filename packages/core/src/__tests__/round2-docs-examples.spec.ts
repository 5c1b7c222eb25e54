/**
 * The examples of docs/getting-started.md "Messages into a running reply: send()" and
 * docs/node-services.md "Graceful shutdown", run as tests with what a reader would notice.
 */
import { filter, lastValueFrom, map, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, defineTool, InMemorySessionStore, isEvent, textOfMsg } from '../index.js';
import { ScriptedChatModel } from '../testing/index.js';

describe('getting started: send()', () => {
  it('a message sent while a tool runs is a user HINT_BLOCK before the next model call, and in that request', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks a word up in the dictionary',
      input: z.object({ word: z.string() }),
      execute: async ({ word }) => {
        await new Promise((r) => setTimeout(r, 50));
        return `${word}: a tiny speck`;
      },
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'lookup', input: { word: 'mote' } }] },
      { text: 'A mote is a tiny speck (in French: "grain de poussière").' },
    ]);
    const agent = new Agent({ model, tools: [lookup] });

    const seen = lastValueFrom(
      agent.reply('What is a mote?').pipe(
        filter(isEvent('MODEL_CALL_START', 'TOOL_RESULT_END', 'HINT_BLOCK', 'REPLY_END')),
        map((e) => (e.type === 'HINT_BLOCK' ? `${e.type} ${e.hintSource}: ${e.text}` : e.type)),
        toArray(),
      ),
    );
    agent.send('Also give the French word.'); // the user types while the agent works
    expect(await seen).toEqual([
      'MODEL_CALL_START',
      'TOOL_RESULT_END',
      'HINT_BLOCK user: Also give the French word.',
      'MODEL_CALL_START',
      'REPLY_END',
    ]);
    // The second request holds it (a hint of the reply so far; adapters send it as a user turn), the first did not.
    const hints = (i: number) => model.requests[i]!.messages.flatMap((m) => m.content.filter((b) => b.type === 'hint'));
    expect(hints(0)).toEqual([]);
    expect(hints(1)).toMatchObject([{ type: 'hint', source: 'user', text: 'Also give the French word.' }]);
    expect(agent.context[1]!.content.map((b) => b.type)).toEqual(['tool_call', 'tool_result', 'hint', 'text']);
  });

  it('sent while idle, the message joins the next reply after its own input', async () => {
    const model = new ScriptedChatModel([{ text: 'Bonjour !' }]);
    const agent = new Agent({ model });
    agent.send('Answer in French.');
    expect(agent.queued.map(textOfMsg)).toEqual(['Answer in French.']);
    await agent.call('Say hello');
    expect(agent.queued).toEqual([]);
    const [input, reply] = model.requests[0]!.messages;
    expect(textOfMsg(input!)).toBe('Say hello');
    expect(reply!.content).toMatchObject([{ type: 'hint', source: 'user', text: 'Answer in French.' }]);
  });
});

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
