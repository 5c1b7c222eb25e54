// AsyncToolMiddleware: a call that outlives its timeout gets a placeholder result and the loop
// goes on; the real result arrives through the inbox — in the running reply, or at the next
// reply when the reply ended first. Fast calls, cancelled replies and failures behave.
import { Agent, type AgentEvent, defineTool, type ModelRequest, textOfMsg, type Tool } from '@rxscope/core';
import { assertReplyGrammar, ModelTestingController, ofType, runReply, ScriptedChatModel } from '@rxscope/core/testing';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { InMemoryMessageBus } from '../../bus/in-memory-message-bus.js';
import { BackgroundTasks } from '../background-tasks.js';
import { InboxMiddleware } from '../../inbox/inbox-middleware/index.js';
import { AsyncToolMiddleware } from './index.js';

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};
/** What the model reads as user turns: user messages, and hints (inbox messages) inside replies. */
const userTexts = (request: ModelRequest) =>
  request.messages.flatMap((m) =>
    m.role === 'user' ? [textOfMsg(m)] : m.content.flatMap((b) => (b.type === 'hint' ? [b.text] : [])),
  );
const toolTexts = (events: readonly AgentEvent[]) =>
  ofType(events, 'TOOL_RESULT_END').map((e) => e.output.map((b) => (b.type === 'text' ? b.text : '')).join(''));

/** A slow build the test finishes (or fails), with its abort signal visible. */
function slowBuild() {
  const state: { signal?: AbortSignal; finish?: (text: string) => void; fail?: (e: Error) => void } = {};
  const tool = defineTool({
    name: 'build',
    description: 'builds the project',
    input: z.object({}),
    execute: (_input, toolCtx) =>
      new Promise<string>((resolve, reject) => {
        state.signal = toolCtx.signal;
        state.finish = resolve;
        state.fail = reject;
      }),
  });
  return { tool, state };
}

function setup(model: ScriptedChatModel | ModelTestingController, extraTools: readonly Tool[] = []) {
  const bus = new InMemoryMessageBus();
  const tasks = new BackgroundTasks({ bus });
  const build = slowBuild();
  const agent = new Agent({
    name: 'coder',
    sessionId: 's1',
    model: model instanceof ModelTestingController ? model.model : model,
    tools: [build.tool, ...extraTools],
    middlewares: [new InboxMiddleware({ bus }), new AsyncToolMiddleware({ tasks, timeoutMs: 30 })],
  });
  return { agent, bus, tasks, build: build.state };
}

describe('AsyncToolMiddleware', () => {
  it('a call that outlives the timeout gets a placeholder and the loop goes on; its result joins the running reply', async () => {
    const controller = new ModelTestingController();
    const { agent, tasks, build } = setup(controller);
    const events: AgentEvent[] = [];
    const reply = lastValueFrom(agent.reply('Build it').pipe(toArray()));
    await until(() => controller.match().length === 1, 'the first model call');
    controller.expectOne().flush({ toolCalls: [{ id: 'c1', name: 'build', input: {} }] });
    // The loop goes on: the next model call sees the placeholder while the build still runs.
    await until(() => controller.match().length === 1, 'the model call after the placeholder');
    const second = controller.expectOne();
    const placeholder = second.request.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_result');
    expect(placeholder).toMatchObject({ toolCallId: 'c1', status: 'success' });
    const [task] = tasks.list('s1');
    expect(task).toMatchObject({ kind: 'tool', name: 'build', status: 'running' });
    expect(JSON.stringify(placeholder)).toContain(`in the background as task ${task!.id}`);
    expect(build.signal!.aborted).toBe(false);

    build.finish!('build ok: 12 files');
    await until(() => agent.queued.length === 1, 'the result to reach the inbox');
    second.flush({ text: 'Started the build; looking at docs meanwhile.' });
    // The result arrived while the model answered: one more step, with the result in it.
    await until(() => controller.match().length === 1, 'the step that reads the result');
    const third = controller.expectOne();
    expect(userTexts(third.request).at(-1)).toBe(
      `[message from task ${task!.id}]\nBackground task ${task!.id} (the tool call "build") finished. Its result:\n\nbuild ok: 12 files`,
    );
    third.flush({ text: 'The build passed.' });
    events.push(...(await reply));
    assertReplyGrammar(events);
    expect(ofType(events, 'CUSTOM').find((e) => e.name === 'tool_call_backgrounded')?.value).toEqual({
      toolCallId: 'c1',
      name: 'build',
      taskId: task!.id,
    });
    expect(tasks.get('s1', task!.id)).toMatchObject({ status: 'completed', result: 'build ok: 12 files' });
    expect(tasks.get('other-session', task!.id)).toBeUndefined();
  });

  it('when the reply ends first, the result is delivered at the next reply', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'build', input: {} }] },
      { text: 'The build runs in the background.' },
      { text: 'It passed.' },
    ]);
    const { agent, tasks, build } = setup(model);
    const events = await runReply(agent, 'Build it');
    expect(toolTexts(events)[0]).toMatch(/still running after 30 ms, so it goes on in the background as task task_/);
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(build.signal!.aborted).toBe(false); // the reply's end does not stop it

    build.finish!('12 files built');
    await tasks.idle();
    const next = await runReply(agent, 'How did the build go?');
    expect(userTexts(model.requests[2]!).slice(-2)).toEqual([
      'How did the build go?',
      expect.stringMatching(
        /^\[message from task task_\S+\]\nBackground task \S+ \(the tool call "build"\) finished\. Its result:\n\n12 files built$/,
      ),
    ]);
    expect(ofType(next, 'HINT_BLOCK')).toHaveLength(1);
  });

  it('a background call that fails delivers its failure', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'build', input: {} }] },
      { text: 'waiting' },
      { text: 'I see.' },
    ]);
    const { agent, tasks, build } = setup(model);
    await runReply(agent, 'Build it');
    build.fail!(new Error('compiler crashed'));
    await tasks.idle();
    await runReply(agent, 'and?');
    expect(userTexts(model.requests[2]!).at(-1)).toMatch(
      /Background task \S+ \(the tool call "build"\) failed: compiler crashed$/,
    );
  });

  it('a call that ends within the timeout is an ordinary call: no placeholder, no task', async () => {
    const quick = defineTool({
      name: 'quick',
      description: 'q',
      input: z.object({}),
      execute: async () => 'quick answer',
    });
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'quick', input: {} }] }, { text: 'done' }]);
    const { agent, tasks } = setup(model, [quick]);
    const events = await runReply(agent, 'go');
    expect(toolTexts(events)).toEqual(['quick answer']);
    expect(tasks.list('s1')).toEqual([]);
  });

  it('cancelling the reply before the timeout cancels the call; a cancelled task delivers nothing', async () => {
    const controller = new ModelTestingController();
    const { agent, tasks, build, bus } = setup(controller);
    const sub = agent.reply('Build it').subscribe();
    await until(() => controller.match().length === 1, 'the first model call');
    controller.expectOne().flush({ toolCalls: [{ id: 'c1', name: 'build', input: {} }] });
    await until(() => build.signal !== undefined, 'the build to start');
    sub.unsubscribe();
    expect(build.signal!.aborted).toBe(true);
    expect(tasks.list('s1')).toEqual([]);

    // In the background, task cancellation stops it and nothing reaches the inbox.
    const controller2 = new ModelTestingController();
    const second = setup(controller2);
    const reply = lastValueFrom(second.agent.reply('Build it').pipe(toArray()));
    await until(() => controller2.match().length === 1, 'the first model call');
    controller2.expectOne().flush({ toolCalls: [{ id: 'c1', name: 'build', input: {} }] });
    await until(() => controller2.match().length === 1, 'the model call after the placeholder');
    const [task] = second.tasks.list('s1');
    expect(second.tasks.cancel('s1', task!.id)).toBe(true);
    expect(second.build.signal!.aborted).toBe(true);
    controller2.expectOne().flush({ text: 'cancelled it' });
    assertReplyGrammar(await reply);
    await second.tasks.idle();
    expect(await second.bus.drain('inbox:s1')).toEqual([]);
    expect(second.tasks.get('s1', task!.id)).toMatchObject({ status: 'cancelled' });
    expect(await bus.drain('inbox:s1')).toEqual([]);
  });

  it('refuses bad options', () => {
    expect(() => new AsyncToolMiddleware({} as never)).toThrow(/needs the background tasks/);
    expect(
      () => new AsyncToolMiddleware({ tasks: new BackgroundTasks({ bus: new InMemoryMessageBus() }), timeoutMs: 0 }),
    ).toThrow(/positive number/);
  });
});
