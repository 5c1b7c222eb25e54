// Background subagents as BullMQ jobs on a real redis-server. The parent agent and each worker use
// connections of their own, standing for separate processes: the report reaches the parent's inbox
// through the Redis message bus, the task tools read and stop the job from the parent's side,
// agent_send reaches a queued task, and a worker that dies mid-task has its job run by another.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, type AgentEvent, defineTool, type ModelRequest, textOfMsg, type Tool } from '@rxscope/core';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { ModelTestingController, ofType, runReply, ScriptedChatModel } from '@rxscope/core/testing';
import { startRedisServer, type RedisTestServer } from '@rxscope/core/testing/node';
import { Redis } from 'ioredis';
import { tempDir } from '../../__tests__/helpers.js';
import type { InboxMessage } from '../../inbox/inbox-message.js';
import { InboxMiddleware } from '../../inbox/inbox-middleware/index.js';
import { SubagentsMiddleware } from '../subagents-middleware/index.js';
import { RedisMessageBus } from '../../redis/redis-message-bus.js';
import type { TaskEvent } from '../../tasks/background-tasks.js';
import { LocalFileSystem } from '../../workspace/local-file-system.js';
import { SubagentJobQueue, SubagentJobWorker, type SubagentJobWorkerOptions } from '../../bullmq/index.js';

const until = async (check: () => boolean | Promise<boolean>, what: string, ms = 15_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};
const userTexts = (request: ModelRequest) =>
  request.messages.flatMap((m) =>
    m.role === 'user' ? [textOfMsg(m)] : m.content.flatMap((b) => (b.type === 'hint' ? [b.text] : [])),
  );
const resultText = (events: readonly AgentEvent[], toolCallId: string) =>
  ofType(events, 'TOOL_RESULT_END')
    .find((e) => e.toolCallId === toolCallId && e.source === 'lead')
    ?.output.map((b) => (b.type === 'text' ? b.text : ''))
    .join('') ?? '';
const lastResult = (request: ModelRequest) => {
  const last = request.messages
    .flatMap((m) => m.content)
    .filter((b) => b.type === 'tool_result')
    .at(-1);
  return last?.type === 'tool_result' ? last.output.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
};
const taskIdIn = (text: string) => /task_[\w-]+/.exec(text)?.[0] ?? 'none';

describe('background subagents as BullMQ jobs on a real redis-server', () => {
  let server: RedisTestServer;
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  let prefix: string;
  const closers: (() => Promise<unknown>)[] = [];
  const redis = (options: { maxRetriesPerRequest?: null } = {}) => {
    const client = new Redis(server.url, options);
    closers.push(async () => client.disconnect());
    return client;
  };
  /** A message bus on a connection of its own (one per simulated process). */
  const bus = () => {
    const b = new RedisMessageBus({ redis: redis(), prefix: `${prefix}bus:` });
    closers.push(() => b.close());
    return b;
  };
  /** The parent's process: its bus, the job queue and the lead agent of session s1. */
  const parentProcess = (model: ScriptedChatModel, tools: Tool[] = []) => {
    const parentBus = bus();
    const queue = new SubagentJobQueue({ connection: redis({ maxRetriesPerRequest: null }), bus: parentBus, prefix });
    closers.push(() => queue.close());
    const agent = new Agent({
      name: 'lead',
      sessionId: 's1',
      model,
      tools,
      middlewares: [
        new InboxMiddleware({ bus: parentBus }),
        new SubagentsMiddleware({ fileSystem: fs, taskQueue: queue }),
      ],
    });
    return { agent, queue, bus: parentBus };
  };
  /** A worker process: its own bus and connection; the agent factory declares the subagent's model. */
  const workerProcess = (
    subModel: ScriptedChatModel | ModelTestingController,
    options: Partial<SubagentJobWorkerOptions> = {},
  ) => {
    const model = subModel instanceof ModelTestingController ? subModel.model : subModel;
    const worker = new SubagentJobWorker({
      connection: redis({ maxRetriesPerRequest: null }),
      bus: bus(),
      prefix,
      agent: (sessionId) =>
        new Agent({
          name: 'lead',
          sessionId,
          model, // a general-purpose subagent's
          middlewares: [new SubagentsMiddleware({ fileSystem: fs, models: { m: model } })],
        }),
      ...options,
    });
    closers.push(() => worker.close(true));
    return worker;
  };

  beforeAll(async () => {
    server = await startRedisServer();
  }, 20_000);
  afterAll(() => server?.stop());
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
    mkdirSync(join(dir.path, 'subagents'), { recursive: true });
    writeFileSync(join(dir.path, 'subagents', 'researcher.md'), '---\nname: researcher\nmodel: m\n---\nYou research.');
    prefix = `t${Math.random().toString(36).slice(2)}`;
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    dir.cleanup();
  });

  it("a queued task waits for a worker, takes agent_send's message, runs on the worker and reports in the parent's inbox", async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          {
            id: 'b1',
            name: 'agent_spawn',
            input: { name: 'researcher', task: 'Find the release date.', background: true },
          },
        ],
      },
      (request) => {
        const id = taskIdIn(lastResult(request));
        return {
          toolCalls: [
            { id: 'o1', name: 'task_output', input: { task_id: id } },
            { id: 'm1', name: 'agent_send', input: { task_id: id, message: 'Only official sources.' } },
          ],
        };
      },
      { text: 'The researcher is on it.' },
      (request) => ({
        toolCalls: [{ id: 'o2', name: 'task_output', input: { task_id: taskIdIn(userTexts(request).join('\n')) } }],
      }),
      { text: 'It is out on 12 May.' },
    ]);
    const parent = parentProcess(model);
    const events = await runReply(parent.agent, 'When is the release?');
    const started = resultText(events, 'b1');
    const id = taskIdIn(started);
    expect(started).toMatch(/^Queued subagent "researcher" in the background as task task_\S+; a worker runs it\./);
    expect(resultText(events, 'o1')).toMatch(
      new RegExp(`^Task ${id} \\(subagent "researcher"\\) is waiting for a worker`),
    );
    expect(resultText(events, 'm1')).toBe(`Sent to task ${id}; it reads the message before its next step.`);
    expect((await parent.queue.queue.getJob(id))!.data).toMatchObject({
      sessionId: 's1',
      name: 'researcher',
      parent: 'lead',
    });

    // The worker starts only now, in "another process".
    const heard: TaskEvent[] = [];
    const listening = parent.bus.subscribe<TaskEvent>('tasks:s1').subscribe((e) => heard.push(e));
    await new Promise((r) => setTimeout(r, 100));
    const subModel = new ScriptedChatModel([{ text: 'Released on 12 May (official blog).' }]);
    workerProcess(subModel);
    await until(async () => (await parent.queue.get('s1', id))?.status === 'completed', 'the job to complete');
    expect(userTexts(subModel.requests[0]!)).toEqual(['Find the release date.', 'Only official sources.']);
    await until(() => heard.some((e) => e.event.type === 'REPLY_END'), "the subagent's events on the bus");
    expect(heard.every((e) => e.taskId === id && e.event.source === 'researcher')).toBe(true);
    listening.unsubscribe();

    // The parent's next reply reads the report from its inbox, and task_output the job's result.
    const next = await runReply(parent.agent, 'So?');
    expect(userTexts(model.requests[3]!).at(-1)).toBe(
      `[message from task ${id}]\nBackground task ${id} (the subagent "researcher") finished. Its result:\n\nReleased on 12 May (official blog).`,
    );
    expect(resultText(next, 'o2')).toMatch(
      new RegExp(
        `^Task ${id} \\(subagent "researcher"\\) completed after \\d+ s\\.\\n\\nResult:\\nReleased on 12 May \\(official blog\\)\\.$`,
      ),
    );
  });

  it('task_cancel removes a waiting job, and aborts a running one on its worker; neither reports', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [{ id: 'b1', name: 'agent_spawn', input: { name: 'researcher', task: 'First.', background: true } }],
      },
      (request) => ({
        toolCalls: [{ id: 'c1', name: 'task_cancel', input: { task_id: taskIdIn(lastResult(request)) } }],
      }),
      { text: 'Cancelled the first.' },
      {
        toolCalls: [
          { id: 'b2', name: 'agent_spawn', input: { name: 'researcher', task: 'Second.', background: true } },
        ],
      },
      { text: 'Started the second.' },
      (request) => ({
        toolCalls: [
          { id: 'c2', name: 'task_cancel', input: { task_id: taskIdIn(request.messages.map(textOfMsg).join(' ')) } },
        ],
      }),
      { text: 'Cancelled the second.' },
    ]);
    const parent = parentProcess(model);
    const first = await runReply(parent.agent, 'Start one and cancel it.');
    const firstId = taskIdIn(resultText(first, 'b1'));
    expect(resultText(first, 'c1')).toBe(`Task ${firstId} is cancelled; its result will not arrive.`);
    expect(await parent.queue.queue.getJob(firstId)).toBeUndefined(); // removed from the queue
    expect(await parent.queue.get('s1', firstId)).toMatchObject({
      status: 'cancelled',
      result: 'cancelled with task_cancel',
    });

    const subModel = new ModelTestingController();
    const worker = workerProcess(subModel);
    const second = await runReply(parent.agent, 'Start another.');
    const secondId = taskIdIn(resultText(second, 'b2'));
    await until(() => subModel.match().length === 1, 'the worker to run the second task');
    expect(subModel.match()[0]!.request.messages.map(textOfMsg)).toContain('Second.'); // the first never ran
    expect(await parent.queue.get('s1', secondId)).toMatchObject({ status: 'running' });
    const third = await runReply(parent.agent, `Cancel ${secondId}.`);
    expect(resultText(third, 'c2')).toBe(`Task ${secondId} is cancelled; its result will not arrive.`);
    await until(
      async () => (await parent.queue.queue.getJobState(secondId)) === 'failed',
      'the running job to be aborted',
    );
    expect((await parent.queue.queue.getJob(secondId))!.failedReason).toBe('cancelled: cancelled with task_cancel');
    expect(await parent.queue.get('s1', secondId)).toMatchObject({ status: 'cancelled' });
    expect(await parent.bus.drain<InboxMessage>('inbox:s1')).toEqual([]); // nothing reported
    expect(worker.worker.isRunning()).toBe(true);
  });

  it('a worker that dies mid-task has its job run again by another worker (stalled-job recovery); one report arrives', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'b1', name: 'agent_spawn', input: { task: 'Count the files.', background: true } }] },
      { text: 'Queued.' },
    ]);
    const parent = parentProcess(model);
    // Every worker of a queue checks for stalled jobs at the same interval (the check is shared).
    const timings = { lockDuration: 1000, stalledInterval: 300 };
    const late: unknown[] = [];
    const hanging = new ModelTestingController();
    const dying = workerProcess(hanging, { ...timings, onError: (e) => late.push(e) });
    const id = taskIdIn(resultText(await runReply(parent.agent, 'Count them in the background.'), 'b1'));
    await until(() => hanging.match().length === 1, 'the first worker to run the task');
    expect(await parent.queue.get('s1', id)).toMatchObject({ status: 'running', name: 'general-purpose' });
    await dying.worker.close(true); // gone without completing: its lock is no longer renewed

    workerProcess(new ScriptedChatModel([{ text: '42 files.' }]), timings);
    await until(
      async () => (await parent.queue.get('s1', id))?.status === 'completed',
      'the other worker to finish it',
    );
    const job = (await parent.queue.queue.getJob(id))!;
    expect(job.returnvalue).toEqual({ report: '42 files.' });
    expect(job.stalledCounter).toBe(1);
    // The closed worker's subagent, still in memory in this test process, finishes late: its
    // worker lost the job, so it reports nothing.
    hanging.expectOne().flush({ text: 'A stale report.' });
    await until(() => late.length > 0, 'the stale attempt to end');
    expect(String(late[0])).toMatch(/taken over by another worker/);
    expect(await parent.bus.drain<InboxMessage>('inbox:s1')).toEqual([
      {
        from: `task ${id}`,
        text: `Background task ${id} (the subagent "general-purpose") finished. Its result:\n\n42 files.`,
      },
    ]);
  });

  it("a queued task outlives its parent's process shutting down (even cut off); cancelling the parent's reply cancels it", async () => {
    // A tool that runs until its call is aborted, so the parent's reply is still running.
    const waitTool = defineTool({
      name: 'wait',
      description: 'waits',
      input: z.object({}),
      execute: (_input, { signal }) =>
        new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    const spawnThenWait = (task: string) => ({
      toolCalls: [
        { id: `b-${task}`, name: 'agent_spawn', input: { task, background: true } },
        { id: `w-${task}`, name: 'wait', input: {} },
      ],
    });
    const model = new ScriptedChatModel([spawnThenWait('Kept.'), spawnThenWait('Dropped.')]);
    const parent = parentProcess(model, [waitTool]);
    const jobOf = async (task: string) => {
      await until(
        async () => (await parent.queue.queue.getJobs(['waiting'])).some((j) => j.data.task === task),
        `the job of "${task}"`,
      );
      return (await parent.queue.queue.getJobs(['waiting'])).find((j) => j.data.task === task)!.id!;
    };
    const shutDown = lastValueFrom(parent.agent.reply('Start one.').pipe(toArray()));
    const kept = await jobOf('Kept.');
    await parent.agent.shutdown({ graceMs: 0, reason: 'deploy' }); // cut off: its signal aborts
    expect((await shutDown).at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'shutdown' });
    expect(await parent.queue.get('s1', kept)).toMatchObject({ status: 'queued' });

    const other = parentProcess(new ScriptedChatModel([spawnThenWait('Dropped.')]), [waitTool]);
    const subscription = other.agent.reply('Start another.').subscribe();
    const dropped = await jobOf('Dropped.');
    subscription.unsubscribe(); // the user cancels the reply
    // The cancellation is recorded before the waiting job is removed: wait for both.
    await until(async () => (await other.queue.queue.getJob(dropped)) === undefined, 'the removal of the job');
    expect(await other.queue.get('s1', dropped)).toMatchObject({ status: 'cancelled' });
    expect(await other.queue.get('s1', kept)).toMatchObject({ status: 'queued' });
  });

  it('shutdown(): a task that ends within the grace period reports; one still running then goes back to the queue, attempt unused, and another worker reports it once', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'b1', name: 'agent_spawn', input: { task: 'Quick one.', background: true } }] },
      { text: 'Queued.' },
      { toolCalls: [{ id: 'b2', name: 'agent_spawn', input: { task: 'Long one.', background: true } }] },
      { text: 'Queued too.' },
    ]);
    const parent = parentProcess(model);
    const quick = new ModelTestingController();
    const first = workerProcess(quick);
    const quickId = taskIdIn(resultText(await runReply(parent.agent, 'Start a quick one.'), 'b1'));
    await until(() => quick.match().length === 1, 'the quick task to run');
    // Answered within the grace period: it reports as usual and the shutdown waits for it.
    const stopping = first.shutdown({ graceMs: 5_000, reason: 'deploy' });
    setTimeout(() => quick.expectOne().flush({ text: 'Quick report.' }), 100);
    expect(await stopping).toEqual({ finished: 1, requeued: 0 });
    expect(await parent.queue.get('s1', quickId)).toMatchObject({ status: 'completed' });

    const hanging = new ModelTestingController();
    const second = workerProcess(hanging);
    const longId = taskIdIn(resultText(await runReply(parent.agent, 'Start a long one.'), 'b2'));
    await until(() => hanging.match().length === 1, 'the long task to run');
    expect(await second.shutdown({ graceMs: 100, reason: 'deploy' })).toEqual({ finished: 0, requeued: 1 });
    expect(second.worker.isRunning()).toBe(false);
    const job = (await parent.queue.queue.getJob(longId))!;
    expect(job.attemptsMade).toBe(0); // put back, not failed
    expect(['waiting', 'delayed', 'prioritized']).toContain(await parent.queue.queue.getJobState(longId));

    workerProcess(new ScriptedChatModel([{ text: 'Long report.' }]));
    await until(async () => (await parent.queue.get('s1', longId))?.status === 'completed', 'another worker to run it');
    const reports = (await parent.bus.drain<InboxMessage>('inbox:s1')).filter((m) => m.from === `task ${longId}`);
    expect(reports).toEqual([
      {
        from: `task ${longId}`,
        text: `Background task ${longId} (the subagent "general-purpose") finished. Its result:\n\nLong report.`,
      },
    ]);
  });
});
