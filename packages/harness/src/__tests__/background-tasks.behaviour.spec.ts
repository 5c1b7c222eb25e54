// BackgroundTasks as a user of the public API drives it: what task_output would show, what
// reaches the session's inbox, cancelling, messages to a running task, sessions kept apart and the
// bounds on what is kept. The bus is the in-memory one; the inbox is read as the harness reads it.
import { firstValueFrom, take, toArray } from 'rxjs';
import type { AgentEvent } from '@rxscope/core';
import { BackgroundTasks, InMemoryMessageBus, type InboxMessage, inboxQueueOf, type MessageBus } from '../index.js';

/** A task whose end the test decides. */
function controlled() {
  let resolve!: (value: string) => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const cancelled: string[] = [];
  const sent: string[] = [];
  return {
    done,
    resolve,
    reject,
    cancelled,
    sent,
    cancel: (r: string) => cancelled.push(r),
    send: (m: string) => sent.push(m),
  };
}

describe('BackgroundTasks', () => {
  let bus: InMemoryMessageBus;
  let tasks: BackgroundTasks;
  const inbox = (session: string) => bus.drain<InboxMessage>(inboxQueueOf(session));
  beforeEach(() => {
    bus = new InMemoryMessageBus();
    tasks = new BackgroundTasks({ bus });
  });
  afterEach(() => bus.close());

  it('a completed task is reported in its session inbox, once, naming the task and its result', async () => {
    const work = controlled();
    const info = tasks.track({
      sessionId: 's1',
      kind: 'tool',
      name: 'slow_search',
      done: work.done,
      cancel: work.cancel,
    });
    expect(info).toMatchObject({ sessionId: 's1', kind: 'tool', name: 'slow_search', status: 'running' });
    expect(info.id).toMatch(/^task_/);
    expect(await inbox('s1')).toEqual([]);
    work.resolve('3 hits');
    await tasks.idle();
    expect(await inbox('s1')).toEqual([
      {
        text: `Background task ${info.id} (the tool call "slow_search") finished. Its result:\n\n3 hits`,
        from: `task ${info.id}`,
      },
    ]);
    expect(tasks.get('s1', info.id)).toMatchObject({
      status: 'completed',
      result: '3 hits',
      endedAt: expect.any(Number),
    });
    expect(await inbox('s1')).toEqual([]);
  });

  it('a failed task reports what went wrong; a subagent is named as one', async () => {
    const work = controlled();
    const info = tasks.track({
      sessionId: 's1',
      kind: 'subagent',
      name: 'reviewer',
      done: work.done,
      cancel: work.cancel,
      id: 'task_mine',
    });
    expect(info.id).toBe('task_mine');
    work.reject(new Error('the model is down'));
    await tasks.idle();
    expect(await inbox('s1')).toEqual([
      { text: 'Background task task_mine (the subagent "reviewer") failed: the model is down', from: 'task task_mine' },
    ]);
    expect(tasks.get('s1', 'task_mine')).toMatchObject({ status: 'failed', result: 'the model is down' });

    const thrown = controlled();
    tasks.track({ sessionId: 's1', kind: 'tool', name: 't', done: thrown.done, cancel: thrown.cancel, id: 'task_str' });
    thrown.reject('plain text');
    await tasks.idle();
    expect((await inbox('s1'))[0]!.text).toBe('Background task task_str (the tool call "t") failed: plain text');
  });

  it('a cancelled task delivers nothing, even when its work settles later; cancelling twice is refused', async () => {
    const work = controlled();
    const info = tasks.track({ sessionId: 's1', kind: 'tool', name: 't', done: work.done, cancel: work.cancel });
    expect(tasks.cancel('s1', info.id, 'the user stopped it')).toBe(true);
    expect(work.cancelled).toEqual(['the user stopped it']);
    expect(tasks.get('s1', info.id)).toMatchObject({ status: 'cancelled', result: 'the user stopped it' });
    await tasks.idle(); // does not wait for work that was cancelled
    work.resolve('late result');
    await new Promise((r) => setImmediate(r));
    expect(await inbox('s1')).toEqual([]);
    expect(tasks.get('s1', info.id)!.status).toBe('cancelled');
    expect(tasks.cancel('s1', info.id)).toBe(false);
    expect(work.cancelled).toHaveLength(1);
  });

  it('a finished task cannot be cancelled; an unknown one neither', async () => {
    const work = controlled();
    const info = tasks.track({ sessionId: 's1', kind: 'tool', name: 't', done: work.done, cancel: work.cancel });
    work.resolve('ok');
    await tasks.idle();
    expect(tasks.cancel('s1', info.id)).toBe(false);
    expect(work.cancelled).toEqual([]);
    expect(tasks.cancel('s1', 'task_nope')).toBe(false);
  });

  it('passes messages to a running task that takes them, and explains when it cannot', async () => {
    const sub = controlled();
    const a = tasks.track({
      sessionId: 's1',
      kind: 'subagent',
      name: 'helper',
      done: sub.done,
      cancel: sub.cancel,
      send: sub.send,
    });
    const tool = controlled();
    const b = tasks.track({ sessionId: 's1', kind: 'tool', name: 'fetch', done: tool.done, cancel: tool.cancel });
    expect(tasks.send('s1', a.id, 'also check the README')).toBeUndefined();
    expect(sub.sent).toEqual(['also check the README']);
    expect(tasks.send('s1', b.id, 'hurry')).toBe(`Task ${b.id} (tool "fetch") does not take messages.`);
    expect(tasks.send('s1', 'task_x', 'hi')).toBe('There is no task "task_x".');
    sub.resolve('done');
    tool.resolve('done');
    await tasks.idle();
    expect(tasks.send('s1', a.id, 'too late')).toBe(`Task ${a.id} has ended (completed); it takes no more messages.`);
    expect(sub.sent).toHaveLength(1);
  });

  it("keeps sessions apart: one session neither sees, cancels nor messages another's tasks", async () => {
    const work = controlled();
    const info = tasks.track({
      sessionId: 'alice',
      kind: 'subagent',
      name: 'w',
      done: work.done,
      cancel: work.cancel,
      send: work.send,
    });
    expect(tasks.get('bob', info.id)).toBeUndefined();
    expect(tasks.list('bob')).toEqual([]);
    expect(tasks.cancel('bob', info.id)).toBe(false);
    expect(tasks.send('bob', info.id, 'hi')).toBe(`There is no task "${info.id}".`);
    expect(work.cancelled).toEqual([]);
    expect(work.sent).toEqual([]);
    work.resolve('for alice');
    await tasks.idle();
    expect(await inbox('bob')).toEqual([]);
    expect(await inbox('alice')).toHaveLength(1);
  });

  it('lists a session tasks oldest first and forgets the oldest finished ones past keepFinished', async () => {
    tasks = new BackgroundTasks({ bus, keepFinished: 2 });
    const works = [controlled(), controlled(), controlled(), controlled()];
    const ids = works.map(
      (w, i) => tasks.track({ sessionId: 's', kind: 'tool', name: `t${i}`, done: w.done, cancel: w.cancel }).id,
    );
    expect(tasks.list('s').map((t) => t.name)).toEqual(['t0', 't1', 't2', 't3']);
    for (const w of works.slice(0, 3)) w.resolve('ok');
    await Promise.all(works.slice(0, 3).map((w) => w.done));
    await new Promise((r) => setImmediate(r)); // idle() would wait for t3, still running
    // Three finished, two kept (the newest); the running one is never forgotten.
    expect(tasks.get('s', ids[0]!)).toBeUndefined();
    expect(tasks.list('s').map((t) => [t.name, t.status])).toEqual([
      ['t1', 'completed'],
      ['t2', 'completed'],
      ['t3', 'running'],
    ]);
    works[3]!.resolve('ok');
    await tasks.idle();
  });

  it('cuts a long result in the inbox message, keeping its head and tail, and keeps it whole for task_output', async () => {
    tasks = new BackgroundTasks({ bus, maxResultChars: 100 });
    const work = controlled();
    const info = tasks.track({ sessionId: 's', kind: 'tool', name: 'dump', done: work.done, cancel: work.cancel });
    const result = `HEAD${'x'.repeat(1000)}TAIL`;
    work.resolve(result);
    await tasks.idle();
    const [message] = await inbox('s');
    expect(message!.text).toContain('HEAD');
    expect(message!.text).toContain('TAIL');
    expect(message!.text).toContain(`[... ${result.length - 100} characters left out ...]`);
    expect(message!.text.length).toBeLessThan(300);
    expect(tasks.get('s', info.id)!.result).toBe(result);
  });

  it('a result the bus cannot take is reported to onError, naming the task and the session', async () => {
    const failing: MessageBus = Object.assign(Object.create(bus) as MessageBus, {
      push: () => Promise.reject(new Error('bus down')),
    });
    const errors: [unknown, string][] = [];
    tasks = new BackgroundTasks({ bus: failing, onError: (e, what) => errors.push([e, what]) });
    const work = controlled();
    const info = tasks.track({ sessionId: 's9', kind: 'tool', name: 't', done: work.done, cancel: work.cancel });
    work.resolve('ok');
    await tasks.idle();
    expect(errors).toEqual([
      [new Error('bus down'), `the result of background task ${info.id} could not be delivered to session s9`],
    ]);
  });

  it('events: what a task publishes reaches every current subscriber of the session, not another session', async () => {
    const event: AgentEvent = { type: 'CUSTOM', name: 'progress', value: 1 } as AgentEvent;
    const mine = firstValueFrom(tasks.events('s').pipe(take(2), toArray()));
    let other = 0;
    const sub = tasks.events('t').subscribe(() => other++);
    tasks.publish('s', 'task_a', event);
    tasks.publish('s', 'task_b', event);
    expect(await mine).toEqual([
      { taskId: 'task_a', event },
      { taskId: 'task_b', event },
    ]);
    expect(other).toBe(0);
    sub.unsubscribe();
  });

  it('refuses to start without a message bus', () => {
    expect(() => new BackgroundTasks({} as never)).toThrow('BackgroundTasks needs a message bus (options.bus).');
    expect(() => new BackgroundTasks({ bus: {} as never })).toThrow(
      expect.objectContaining({
        name: 'HarnessOptionError',
        code: 'invalid_option',
        option: 'BackgroundTasks.bus',
      }) as Error,
    );
  });
});
