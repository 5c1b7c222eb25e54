import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { InMemorySessionStore } from '../state/session-store.js';
import { defineTool } from '../tool/tool.js';
import { ScriptedChatModel } from '../testing/scripted-model.js';
import { runReply } from '../testing/run-reply.js';
import type { ConversationCut, Middleware } from '../middleware/middleware.js';
import { Agent } from './agent.js';
import { AgentUsageError } from './errors.js';
import { ReplyRunningError, UnknownMessageError } from './fork.js';

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys',
  input: z.object({}),
  execute: () => 'deployed',
});

/** An agent that answered three questions ("one", "two", "three"): six messages. */
async function threeTurns(extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  const model = new ScriptedChatModel([{ text: 'A1' }, { text: 'A2' }, { text: 'A3' }, { text: 'again' }]);
  const agent = new Agent({ model, tools: [deploy], ...extra });
  for (const q of ['one', 'two', 'three']) await runReply(agent, agent.reply(q));
  return agent;
}
const texts = (agent: Agent) =>
  agent.context.map((m) => m.content.map((b) => (b.type === 'text' ? b.text : '')).join(''));

describe('agent.fork() and agent.rewind()', () => {
  it('fork keeps the conversation up to the message (inclusive), or before it; the original is unchanged', async () => {
    const agent = await threeTurns();
    const [, a1, q2] = agent.context;
    const upTo = agent.fork({ upTo: a1!.id });
    expect(texts(upTo)).toEqual(['one', 'A1']);
    expect(upTo.sessionId).not.toBe(agent.sessionId);
    expect(texts(agent.fork({ before: q2!.id, sessionId: 'other' }))).toEqual(['one', 'A1']);
    expect(texts(agent.fork({ before: agent.context[0]!.id }))).toEqual([]);
    expect(texts(agent)).toEqual(['one', 'A1', 'two', 'A2', 'three', 'A3']);
    // The fork goes on on its own.
    const reply = await upTo.call('four');
    expect(reply.content).toEqual([{ type: 'text', text: 'again' }]);
    expect(texts(upTo)).toEqual(['one', 'A1', 'four', 'again']);
    expect(texts(agent)).toHaveLength(6);
  });

  it('rewind keeps the conversation up to the message and drops a suspended reply; a fork carries neither it nor queued messages', async () => {
    const model = new ScriptedChatModel([
      { text: 'A1' },
      { toolCalls: [{ id: 'd1', name: 'deploy', input: {} }] },
      { text: 'after rewind' },
    ]);
    const agent = new Agent({ model, tools: [deploy], permissions: { rules: [{ behavior: 'ask', tool: 'deploy' }] } });
    await runReply(agent, agent.reply('one'));
    const asked = await runReply(agent, agent.reply('deploy it'));
    expect(asked.at(-1)).toMatchObject({ finishReason: 'awaiting_confirmation' });
    agent.send('queued note');
    const fork = agent.fork({ upTo: agent.context[1]!.id });
    expect(fork.pending).toBeUndefined();
    expect(fork.queued).toEqual([]);

    agent.rewind({ to: agent.context[1]!.id });
    expect(agent.pending).toBeUndefined();
    expect(texts(agent)).toEqual(['one', 'A1']);
    expect(agent.queued).toHaveLength(1); // still for the next reply
    await runReply(agent, agent.reply('next'));
    expect(texts(agent).at(-1)).toBe('after rewind');
  });

  it('refuses an unknown message id naming it, a misspelt option, and a rewind while a reply runs — nothing changes', async () => {
    const agent = await threeTurns();
    const before = agent.context;
    expect(() => agent.rewind({ to: 'msg_nope' })).toThrow(UnknownMessageError);
    expect(() => agent.fork({ upTo: 'msg_nope' })).toThrow(/no message "msg_nope"/);
    expect(() => agent.fork({ upto: before[0]!.id } as never)).toThrow(
      /unknown option "upto" \(did you mean "upTo"\?\)/,
    );
    expect(() => agent.rewind({ to: before[0]!.id, before: before[1]!.id })).toThrow(AgentUsageError);
    expect(() => agent.rewind({})).toThrow(/exactly one of \{ to \}/);
    expect(agent.context).toBe(before);

    let release!: () => void;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow = defineTool({
      name: 'slow',
      description: 'Waits',
      input: z.object({}),
      execute: () => new Promise<string>((resolve) => ((release = () => resolve('ok')), started())),
    });
    const busy = new Agent({
      model: new ScriptedChatModel([
        { text: 'A1' },
        { toolCalls: [{ id: 's', name: 'slow', input: {} }] },
        { text: 'B' },
      ]),
      tools: [slow],
    });
    await runReply(busy, busy.reply('one'));
    const reply = lastValueFrom(busy.reply('two').pipe(toArray()));
    await running;
    const error = (() => {
      try {
        busy.rewind({ to: busy.context[0]!.id });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ReplyRunningError);
    expect(error).toMatchObject({ code: 'reply_running' });
    release();
    await reply;
    expect(texts(busy)).toEqual(['one', 'A1', 'two', 'B']);
  });

  it('asks each middleware with a key for its state at the cut (onConversationCut)', async () => {
    const cuts: ConversationCut[] = [];
    const counter: Middleware = {
      key: 'counter',
      onAgent: (_agent, ctx, input, next) => {
        const state = ctx.state<number>('counter');
        state.set((state.get() ?? 0) + 1);
        return next(input);
      },
      onConversationCut: (state, cut) => {
        cuts.push(cut);
        return cut.kept.filter((m) => m.role === 'user').length; // replies kept
      },
    };
    const agent = await threeTurns({ middlewares: [counter] });
    expect(agent.saveState().middlewareState['counter']).toBe(3);
    const fork = agent.fork({ upTo: agent.context[3]!.id });
    expect(fork.saveState().middlewareState['counter']).toBe(2);
    expect(cuts[0]).toMatchObject({ kind: 'fork' });
    expect(cuts[0]!.dropped.map((m) => m.id)).toEqual(agent.context.slice(4).map((m) => m.id));
    agent.rewind({ before: agent.context[2]!.id });
    expect(agent.saveState().middlewareState['counter']).toBe(1);
    expect(cuts[1]).toMatchObject({ kind: 'rewind' });
  });

  it('with a session store, a fork is saved under its session id; a taken id is reported and the stored session is not overwritten', async () => {
    const store = new InMemorySessionStore();
    const errors: unknown[] = [];
    const agent = await threeTurns({ store, sessionId: 's1', onBackgroundError: (e) => errors.push(e) });
    agent.fork({ upTo: agent.context[1]!.id, sessionId: 's1-b' });
    await new Promise((r) => setTimeout(r, 10));
    expect((await store.load('s1-b'))?.state.context).toHaveLength(2);
    agent.fork({ upTo: agent.context[3]!.id, sessionId: 's1' });
    await new Promise((r) => setTimeout(r, 10));
    expect(errors).toEqual([expect.objectContaining({ code: 'session_conflict' })]);
    expect((await store.load('s1'))?.state.context).toHaveLength(6);

    agent.rewind({ to: agent.context[1]!.id });
    await new Promise((r) => setTimeout(r, 10));
    expect((await store.load('s1'))?.state.context).toHaveLength(2);
  });
});
