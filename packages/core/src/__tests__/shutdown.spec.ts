// Graceful shutdown of one agent: the running reply stops at a safe point (running work may
// finish, nothing new starts), ends `shutdown` with its state saved, and RESUME_REPLY continues it
// in a new agent from the store; no tool call is lost or run twice.
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { AgentShutdownError, AgentUsageError } from '../agent/errors.js';
import type { AgentEvent } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import { toolResultsOf } from '../message/msg.js';
import { InMemorySessionStore } from '../state/session-store.js';
import { assertConsistentConversation, assertReplyGrammar, ScriptedChatModel } from '../testing/index.js';
import { defineTool } from '../tool/tool.js';
import { endOf, ofType, sleep, textOf } from './helpers.js';

/** A tool whose runs are recorded; each run waits until the test releases it (or its signal aborts). */
function gatedTool(name: string) {
  const runs: string[] = [];
  const waiting: Array<() => void> = [];
  let aborted = 0;
  const tool = defineTool({
    name,
    description: `${name} something`,
    input: z.object({ n: z.number() }),
    execute: ({ n }, { signal }) =>
      new Promise<string>((resolve, reject) => {
        runs.push(`${name}:${n}`);
        waiting.push(() => resolve(`${name} ${n} done`));
        signal.addEventListener('abort', () => {
          aborted++;
          reject(new Error('aborted'));
        });
      }),
  });
  return {
    tool,
    runs,
    aborted: () => aborted,
    started: async () => {
      while (!waiting.length) await sleep(1);
    },
    release: () => waiting.shift()!(),
  };
}

const SCRIPT = [
  {
    text: 'Two steps.',
    toolCalls: [
      { id: 'c1', name: 'work', input: { n: 1 } },
      { id: 'c2', name: 'work', input: { n: 2 } },
    ],
  },
  { text: 'All done.' },
];

const resultsIn = (context: readonly Msg[]) =>
  context.flatMap((m) => toolResultsOf(m)).map((r) => `${r.toolCallId}:${r.status}`);

function setUp(script = SCRIPT) {
  const store = new InMemorySessionStore();
  const work = gatedTool('work');
  const model = new ScriptedChatModel(script);
  const make = () => new Agent({ name: 'worker', model, tools: [work.tool], store, sessionId: 's1' });
  return { store, work, model, make };
}

describe('agent.shutdown()', () => {
  it('an idle agent resolves at once and refuses new replies and messages with AgentShutdownError', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'hi' }]) });
    await expect(agent.shutdown({ reason: 'maintenance' })).resolves.toEqual({
      agentName: 'assistant',
      sessionId: agent.sessionId,
      cut: false,
    });
    expect(agent.shuttingDown).toBe(true);
    const refused = agent.call('hello');
    await expect(refused).rejects.toBeInstanceOf(AgentShutdownError);
    await expect(refused).rejects.toThrow(/shut down \(maintenance\)/);
    expect(() => agent.send('later')).toThrow(AgentShutdownError);
    expect(agent.context).toEqual([]);
  });

  it('mid-tool: the running call finishes, the next never starts; RESUME_REPLY in a new agent runs it once and completes', async () => {
    const { store, work, model, make } = setUp();
    const first = make();
    const events = lastValueFrom(first.reply('do two things').pipe(toArray()));
    await work.started();
    const shutdown = first.shutdown({ reason: 'received SIGTERM', graceMs: 5_000 });
    const another = first.call('another'); // queued behind the running reply, refused when its turn comes
    work.release(); // the running call finishes within the grace period
    const outcome = await shutdown;
    const stream = await events;
    await expect(another).rejects.toBeInstanceOf(AgentShutdownError);

    expect(outcome).toMatchObject({ finishReason: 'shutdown', cut: false, sessionId: 's1' });
    const end = assertReplyGrammar(stream);
    expect(end).toMatchObject({
      finishReason: 'shutdown',
      stopReason: { code: 'shutdown', message: 'received SIGTERM' },
    });
    expect(work.runs).toEqual(['work:1']);
    expect(ofType(stream, 'TOOL_RESULT_END').map((e) => `${e.toolCallId}:${e.status}`)).toEqual(['c1:success']);
    const saved = (await store.load('s1'))!.state;
    expect(saved.pending).toMatchObject({
      replyId: end.replyId,
      confirm: [],
      external: [],
      shutdown: { reason: 'received SIGTERM' },
    });

    const second = make();
    const resumed = lastValueFrom(second.reply({ type: 'RESUME_REPLY' }).pipe(toArray()));
    await work.started();
    work.release();
    const rest = await resumed;
    const restEnd = assertReplyGrammar(rest);
    expect(restEnd).toMatchObject({ finishReason: 'completed', replyId: end.replyId });
    expect(work.runs).toEqual(['work:1', 'work:2']);
    expect(textOf(rest)).toBe('All done.');
    expect(model.requests).toHaveLength(2);
    expect(resultsIn(second.context)).toEqual(['c1:success', 'c2:success']);
    assertConsistentConversation(second.context);
    expect(second.pending).toBeUndefined();
  });

  it('a grace period that runs out cuts the running call: answered interrupted, not re-run; the resume goes on with the model', async () => {
    const { work, model, make } = setUp([SCRIPT[0]!, { text: 'Step one was cut off; stopping here.' }]);
    const first = make();
    const events = lastValueFrom(first.reply('do two things').pipe(toArray()));
    await work.started();
    const outcome = await first.shutdown({ graceMs: 20 });
    const stream = await events;

    expect(outcome).toMatchObject({ finishReason: 'shutdown', cut: true });
    expect(work.aborted()).toBe(1);
    expect(assertReplyGrammar(stream)).toMatchObject({
      finishReason: 'shutdown',
      stopReason: { message: 'the agent was shut down' },
    });
    expect(ofType(stream, 'TOOL_RESULT_END').map((e) => `${e.toolCallId}:${e.status}`)).toEqual(['c1:interrupted']);

    const second = make();
    const resumed = lastValueFrom(second.reply({ type: 'RESUME_REPLY' }).pipe(toArray()));
    while (work.runs.length < 2) await sleep(1);
    work.release(); // the first resolver belongs to the aborted run
    work.release();
    const rest = await resumed;
    expect(assertReplyGrammar(rest).finishReason).toBe('completed');
    expect(work.runs).toEqual(['work:1', 'work:2']);
    expect(resultsIn(second.context)).toEqual(['c1:interrupted', 'c2:success']);
    expect(model.requests).toHaveLength(2);
  });

  it('during a model call: the call finishes, its tool calls wait for the resume', async () => {
    const store = new InMemorySessionStore();
    const ran: number[] = [];
    const quick = defineTool({
      name: 'work',
      description: 'w',
      input: z.object({ n: z.number() }),
      execute: ({ n }) => (ran.push(n), `ok ${n}`),
    });
    const model = new ScriptedChatModel(SCRIPT, { delayMs: 5 });
    const make = () => new Agent({ name: 'worker', model, tools: [quick], store, sessionId: 's2' });
    const first = make();
    const events: AgentEvent[] = [];
    const done = new Promise<void>((resolve) =>
      first.reply('go').subscribe({ next: (e) => events.push(e), complete: resolve }),
    );
    while (!events.some((e) => e.type === 'TEXT_BLOCK_DELTA')) await sleep(1);
    await first.shutdown({ graceMs: 5_000 });
    await done;
    expect(assertReplyGrammar(events).finishReason).toBe('shutdown');
    expect(ofType(events, 'TOOL_CALL_END')).toHaveLength(2);
    expect(ran).toEqual([]);

    const rest = await lastValueFrom(make().reply({ type: 'RESUME_REPLY' }).pipe(toArray()));
    expect(assertReplyGrammar(rest).finishReason).toBe('completed');
    expect(ran).toEqual([1, 2]);
  });

  it('a reply that finishes within the grace period ends as usual; a queued reply is refused', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([{ text: ['one ', 'two'] }], { delayMs: 5 }) });
    const first = lastValueFrom(agent.reply('hi').pipe(toArray()));
    const queued = lastValueFrom(agent.reply('and then?').pipe(toArray()));
    await sleep(2);
    const outcome = await agent.shutdown({ graceMs: 5_000 });
    expect(outcome.finishReason).toBe('completed');
    expect(endOf(await first).finishReason).toBe('completed');
    await expect(queued).rejects.toBeInstanceOf(AgentShutdownError);
  });

  it('a saved reply refuses other resumes with a clear message; a new message answers its waiting calls interrupted', async () => {
    const { work, make } = setUp([SCRIPT[0]!, { text: 'Fresh start.' }]);
    const first = make();
    const events = lastValueFrom(first.reply('do two things').pipe(toArray()));
    await work.started();
    const shutdown = first.shutdown();
    work.release();
    await shutdown;
    await events;

    const second = make();
    await expect(second.call({ type: 'USER_CONFIRM_RESULT', results: [] })).rejects.toThrow(
      /suspended by a shutdown; continue it with \{ type: 'RESUME_REPLY' \}/,
    );
    await expect(second.call({ type: 'RESUME_REPLY', replyId: 'reply_other' })).rejects.toBeInstanceOf(AgentUsageError);
    const fresh = await lastValueFrom(second.reply('forget it').pipe(toArray()));
    expect(ofType(fresh, 'CUSTOM')[0]).toMatchObject({
      name: 'pending_calls_rejected',
      value: { toolCallIds: ['c2'] },
    });
    expect(resultsIn(second.context)).toEqual(['c1:success', 'c2:interrupted']);
    assertConsistentConversation(second.context);
    expect(work.runs).toEqual(['work:1']);
    await expect(second.call({ type: 'RESUME_REPLY' })).rejects.toThrow(/has no suspended reply/);
  });

  it('a message sent before the shutdown that had not joined the reply is saved and delivered by the resume', async () => {
    const { work, model, make } = setUp();
    const first = make();
    const events = lastValueFrom(first.reply('do two things').pipe(toArray()));
    await work.started();
    first.send('Also note the totals.');
    const shutdown = first.shutdown();
    work.release();
    await shutdown;
    const stream = await events;
    expect(ofType(stream, 'HINT_BLOCK')).toEqual([]);
    expect(first.queued.map((m) => m.content)).toEqual([[{ type: 'text', text: 'Also note the totals.' }]]);

    const second = make();
    expect(second.queued).toEqual([]); // not loaded before the reply starts
    const resumed = lastValueFrom(second.reply({ type: 'RESUME_REPLY' }).pipe(toArray()));
    await work.started();
    work.release();
    const rest = await resumed;
    expect(ofType(rest, 'HINT_BLOCK').map((e) => [e.hintSource, e.text])).toEqual([['user', 'Also note the totals.']]);
    expect(model.requests[1]!.messages.flatMap((m) => m.content).filter((b) => b.type === 'hint')).toHaveLength(1);
    expect(second.queued).toEqual([]);
  });
});
