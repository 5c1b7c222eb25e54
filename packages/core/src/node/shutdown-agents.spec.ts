import { firstValueFrom, lastValueFrom, filter, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { AgentShutdownError } from '../agent/errors.js';
import { InMemorySessionStore } from '../state/session-store.js';
import { assertReplyGrammar, ScriptedChatModel } from '../testing/index.js';
import { defineTool } from '../tool/tool.js';
import { AgentSessions } from './sessions/agent-sessions.js';
import { shutdownAgents, terminationSignal } from './shutdown-agents.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** An agent whose one tool call waits until released (or aborted); its state goes to `store`. */
function busyAgent(sessionId: string, store: InMemorySessionStore) {
  let release: (() => void) | undefined;
  let runs = 0;
  const wait = defineTool({
    name: 'wait',
    description: 'waits',
    input: z.object({}),
    execute: (_input, { signal }) =>
      new Promise<string>((resolve, reject) => {
        runs++;
        release = () => resolve('waited');
        signal.addEventListener('abort', () => reject(new Error('aborted')));
      }),
  });
  const model = new ScriptedChatModel([
    { toolCalls: [{ id: `call_${sessionId}`, name: 'wait', input: {} }] },
    { text: 'done' },
  ]);
  const agent = new Agent({ name: 'worker', model, tools: [wait], store, sessionId });
  const events = lastValueFrom(agent.reply('go').pipe(toArray()));
  return {
    agent,
    events,
    runs: () => runs,
    started: async () => {
      while (!release) await sleep(1);
    },
    release: () => release!(),
  };
}

describe('shutdownAgents()', () => {
  it('idle agents: resolves at once, nothing suspended, every agent refuses new replies', async () => {
    const agents = [new Agent({ model: new ScriptedChatModel([]) }), new Agent({ model: new ScriptedChatModel([]) })];
    const report = await shutdownAgents(agents, { reason: 'deploy' });
    expect(report).toEqual({
      reason: 'deploy',
      suspended: [],
      agents: agents.map((a) => ({ agentName: 'assistant', sessionId: a.sessionId, cut: false })),
    });
    for (const agent of agents) await expect(agent.call('hi')).rejects.toBeInstanceOf(AgentShutdownError);
  });

  it('several agents: busy ones are saved for a resume, idle ones just close; the report lists the saved sessions', async () => {
    const store = new InMemorySessionStore();
    const a = busyAgent('a', store);
    const b = busyAgent('b', store);
    const idle = new Agent({ model: new ScriptedChatModel([]), sessionId: 'idle' });
    await Promise.all([a.started(), b.started()]);
    const shutdown = shutdownAgents(() => [a.agent, b.agent, idle, a.agent], { graceMs: 5_000 });
    await sleep(5);
    a.release();
    b.release();
    const report = await shutdown;
    expect(report.suspended).toEqual(['a', 'b']);
    expect(report.agents.map((r) => [r.sessionId, r.finishReason ?? 'idle'])).toEqual([
      ['a', 'shutdown'],
      ['b', 'shutdown'],
      ['idle', 'idle'],
    ]);
    for (const busy of [a, b]) expect(assertReplyGrammar(await busy.events).finishReason).toBe('shutdown');
    expect((await store.load('a'))!.state.pending?.shutdown?.reason).toBe('the service is shutting down');
  });

  it('a grace period that expires: the running tool is aborted, the reply is still saved as shutdown', async () => {
    const store = new InMemorySessionStore();
    const busy = busyAgent('slow', store);
    await busy.started();
    const report = await shutdownAgents([busy.agent], { graceMs: 10 });
    expect(report.agents[0]).toMatchObject({ finishReason: 'shutdown', cut: true });
    const events = await busy.events;
    expect(assertReplyGrammar(events).finishReason).toBe('shutdown');
    expect(events.find((e) => e.type === 'TOOL_RESULT_END')).toMatchObject({ status: 'interrupted' });
    expect((await store.load('slow'))!.state.pending?.shutdown).toBeDefined();
  });

  it('starts when the signal aborts, with its reason; a signal already aborted starts it at once', async () => {
    const controller = new AbortController();
    const agent = new Agent({ model: new ScriptedChatModel([]) });
    const shutdown = shutdownAgents([agent], { signal: controller.signal });
    await sleep(5);
    expect(agent.shuttingDown).toBe(false);
    controller.abort('received SIGTERM');
    await expect(shutdown).resolves.toMatchObject({ reason: 'received SIGTERM' });
    expect(agent.shuttingDown).toBe(true);

    const other = new Agent({ model: new ScriptedChatModel([]) });
    const report = await shutdownAgents([other], { signal: AbortSignal.abort(), reason: 'fallback reason' });
    expect(report.reason).toBe('fallback reason');
    expect(other.shuttingDown).toBe(true);
  });

  it('terminationSignal() aborts on the first process signal and then lets the next one through', () => {
    const before = process.listenerCount('SIGUSR2');
    const signal = terminationSignal(['SIGUSR2']);
    expect(process.listenerCount('SIGUSR2')).toBe(before + 1);
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('received SIGUSR2');
    expect(process.listenerCount('SIGUSR2')).toBe(before);
  });

  it('AgentSessions.shutdown(): the REPLY_END is on the bus, new sessions are refused, another instance resumes the session', async () => {
    const store = new InMemorySessionStore();
    const waiting: Array<() => void> = [];
    const wait = defineTool({
      name: 'wait',
      description: 'waits',
      input: z.object({}),
      execute: () => new Promise<string>((resolve) => waiting.push(() => resolve('waited'))),
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'wait', input: {} },
          { name: 'wait', input: {} },
        ],
      },
      { text: 'done' },
    ]);
    const make = () =>
      new AgentSessions({ agent: (id) => new Agent({ name: 'worker', model, tools: [wait], store, sessionId: id }) });
    const sessions = make();
    await sessions.start('s1', 'go');
    while (!waiting.length) await sleep(1);
    const shutdown = sessions.shutdown({ graceMs: 5_000, reason: 'received SIGTERM' });
    await expect(sessions.start('s2', 'hello')).rejects.toBeInstanceOf(AgentShutdownError);
    waiting.shift()!();
    expect((await shutdown).suspended).toEqual(['s1']);
    const ended = await firstValueFrom(
      sessions.events('s1', { lastEventId: '0' }).pipe(filter((e) => e.type === 'REPLY_END')),
    );
    expect(ended).toMatchObject({ finishReason: 'shutdown' });

    const next = make();
    await next.start('s1', { type: 'RESUME_REPLY' });
    while (!waiting.length) await sleep(1);
    waiting.shift()!();
    const done = await firstValueFrom(
      next.events('s1', { lastEventId: '0' }).pipe(filter((e) => e.type === 'REPLY_END')),
    );
    expect(done).toMatchObject({ finishReason: 'completed', replyId: ended.replyId });
  });
});
