// SubagentsMiddleware: declared and general-purpose subagents on the core's asTool — events
// through the parent with the subagent's name as source, an isolated context, cancellation with
// the parent, background tasks whose report arrives through the inbox, the task tools, bounded
// nesting, and clear errors.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, type AgentEvent, defineTool, type ModelRequest, textOfMsg, type Tool } from '@rxscope/core';
import { assertReplyGrammar, ModelTestingController, ofType, runReply, ScriptedChatModel } from '@rxscope/core/testing';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { tempDir } from '../../__tests__/helpers.js';
import { InMemoryMessageBus } from '../../bus/in-memory-message-bus.js';
import { BackgroundTasks, type TaskEvent } from '../../tasks/background-tasks.js';
import { LocalFileSystem } from '../../workspace/local-file-system.js';
import { AsyncToolMiddleware } from '../../tasks/async-tool/index.js';
import { InboxMiddleware } from '../../inbox/inbox-middleware/index.js';
import { SubagentsMiddleware } from './index.js';

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};
const userTexts = (request: ModelRequest) =>
  request.messages.flatMap((m) =>
    m.role === 'user' ? [textOfMsg(m)] : m.content.flatMap((b) => (b.type === 'hint' ? [b.text] : [])),
  );
const resultText = (events: readonly AgentEvent[], toolCallId: string) => {
  const end = ofType(events, 'TOOL_RESULT_END').find(
    (e) => e.toolCallId === toolCallId && e.source === events[0]!.source,
  );
  return { status: end?.status, text: end?.output.map((b) => (b.type === 'text' ? b.text : '')).join('') };
};
const toolNames = (request: ModelRequest) => (request.tools ?? []).map((t) => t.name).sort();
/** The result text of the last tool result in a request (to script a call on a returned task id). */
const lastResult = (request: ModelRequest) => {
  const blocks = request.messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result');
  const last = blocks.at(-1);
  return last?.type === 'tool_result' ? last.output.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
};
const taskIdIn = (text: string) => /task (task_\S+?)\./.exec(text)?.[1] ?? 'none';

let dir: ReturnType<typeof tempDir>;
let fs: LocalFileSystem;
const readFile = defineTool({
  name: 'read_file',
  description: 'reads',
  input: z.object({ path: z.string() }),
  readOnly: true,
  execute: ({ path }) => `contents of ${path}`,
});
const writeFile = defineTool({
  name: 'write_file',
  description: 'writes',
  input: z.object({ path: z.string() }),
  execute: () => 'written',
});
const declare = (name: string, text: string) => {
  mkdirSync(join(dir.path, 'subagents'), { recursive: true });
  writeFileSync(join(dir.path, 'subagents', `${name}.md`), text);
};
beforeEach(() => {
  dir = tempDir();
  fs = new LocalFileSystem(dir.path);
});
afterEach(() => dir.cleanup());

function lead(
  model: ScriptedChatModel | ModelTestingController,
  options: Partial<ConstructorParameters<typeof SubagentsMiddleware>[0]> = {},
  tools: Tool[] = [readFile, writeFile],
) {
  const bus = new InMemoryMessageBus();
  const tasks = new BackgroundTasks({ bus });
  const agent = new Agent({
    name: 'lead',
    sessionId: 's1',
    model: model instanceof ModelTestingController ? model.model : model,
    tools,
    middlewares: [new InboxMiddleware({ bus }), new SubagentsMiddleware({ fileSystem: fs, tasks, ...options })],
  });
  return { agent, tasks, bus };
}

describe('SubagentsMiddleware', () => {
  it('a declared subagent runs with its prompt, model and tools in a fresh context; its events stream through the parent with its name', async () => {
    declare(
      'reviewer',
      '---\nname: reviewer\ndescription: Reviews code.\ntools: [read_file]\nmodel: small\n---\nYou review code. Report problems with file and line.',
    );
    const small = new ScriptedChatModel([
      { toolCalls: [{ id: 'r1', name: 'read_file', input: { path: 'a.ts' } }] },
      { text: 'One issue: a.ts:3 divides by zero.' },
    ]);
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's1', name: 'agent_spawn', input: { name: 'reviewer', task: 'Review a.ts.' } }] },
      { text: 'The reviewer found one issue.' },
    ]);
    const { agent } = lead(model, { models: { small } });
    const events = await runReply(agent, 'Please have a.ts reviewed. The secret word is banana.');

    expect(resultText(events, 's1')).toEqual({ status: 'success', text: 'One issue: a.ts:3 divides by zero.' });
    const fromReviewer = events.filter((e) => e.source === 'reviewer');
    expect(fromReviewer[0]!.type).toBe('REPLY_START');
    expect(fromReviewer.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(ofType(fromReviewer, 'TOOL_CALL_START').map((e) => e.name)).toEqual(['read_file']);
    // Isolated: the subagent saw its system prompt and the task, nothing of the parent's conversation.
    const first = small.requests[0]!;
    expect(first.messages.filter((m) => m.role !== 'system').map(textOfMsg)).toEqual(['Review a.ts.']);
    expect(JSON.stringify(first.messages)).not.toContain('banana');
    expect(textOfMsg(first.messages.find((m) => m.role === 'system')!)).toContain('You review code.');
    expect(toolNames(first)).toEqual(['read_file']);
    expect(agent.context.flatMap((m) => m.content).some((b) => b.type === 'tool_call' && b.name === 'read_file')).toBe(
      false,
    );
  });

  it("without a name, a general-purpose subagent gets the parent's tools; nesting stops at maxDepth", async () => {
    declare('level2', '---\nname: level2\n---\nYou are level two.');
    const turns = (request: ModelRequest) => {
      const system = textOfMsg(
        request.messages.find((m) => m.role === 'system') ??
          ({ role: 'system', content: [], id: 'x', createdAt: 0 } as never),
      );
      const hasResult = request.messages.some((m) => m.content.some((b) => b.type === 'tool_result'));
      if (system.includes('level two')) return { text: 'level two done' };
      if (system.includes('You are a subagent'))
        return hasResult
          ? { text: 'general done' }
          : { toolCalls: [{ id: 'n1', name: 'agent_spawn', input: { name: 'level2', task: 'go deeper' } }] };
      return hasResult
        ? { text: 'all done' }
        : { toolCalls: [{ id: 'g1', name: 'agent_spawn', input: { task: 'do the thing' } }] };
    };
    const model = new ScriptedChatModel(turns);
    const { agent } = lead(model);
    const events = await runReply(agent, 'go');
    expect(resultText(events, 'g1')).toEqual({ status: 'success', text: 'general done' });
    expect(events.filter((e) => e.type === 'REPLY_START').map((e) => e.source)).toEqual([
      'lead',
      'general-purpose',
      'level2',
    ]);
    const generalRequest = model.requests.find((r) => textOfMsg(r.messages[0]!).includes('You are a subagent'))!;
    expect(toolNames(generalRequest)).toEqual([
      'agent_send',
      'agent_spawn',
      'read_file',
      'task_cancel',
      'task_output',
      'write_file',
    ]);
    const level2Request = model.requests.find((r) => textOfMsg(r.messages[0]!).includes('level two'))!;
    expect(toolNames(level2Request)).toEqual(['read_file', 'write_file']); // level 2 of 2: no spawning

    const flat = new ScriptedChatModel([
      { toolCalls: [{ id: 'g1', name: 'agent_spawn', input: { task: 't' } }] },
      { text: 'sub' },
      { text: 'done' },
    ]);
    await runReply(lead(flat, { maxDepth: 1 }).agent, 'go');
    expect(toolNames(flat.requests[1]!)).toEqual(['read_file', 'write_file']);
  });

  it("cancelling the parent's reply cancels the subagent's model call", async () => {
    const subModel = new ModelTestingController();
    declare('slow', '---\nname: slow\nmodel: m\n---\nSlow.');
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's1', name: 'agent_spawn', input: { name: 'slow', task: 'think' } }] },
    ]);
    const { agent } = lead(model, { models: { m: subModel.model } });
    const seen: AgentEvent[] = [];
    const sub = agent.reply('go').subscribe((e) => seen.push(e));
    await until(() => subModel.match().length === 1, 'the subagent model call');
    const call = subModel.expectOne();
    expect(seen.some((e) => e.source === 'slow' && e.type === 'REPLY_START')).toBe(true);
    sub.unsubscribe();
    expect(call.cancelled).toBe(true);
    expect(call.request.signal?.aborted).toBe(true);
  });

  it('background: a task id at once; agent_send reaches the running subagent; its report arrives through the inbox at the next reply', async () => {
    declare('researcher', '---\nname: researcher\nmodel: m\n---\nYou research.');
    const subModel = new ModelTestingController();
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
      (request) => ({
        toolCalls: [
          {
            id: 'm1',
            name: 'agent_send',
            input: { task_id: taskIdIn(lastResult(request)), message: 'Only official sources.' },
          },
        ],
      }),
      { text: 'The researcher is on it.' },
      { text: 'It is out on 12 May.' },
    ]);
    const { agent, tasks } = lead(model, { models: { m: subModel.model } });
    const published: TaskEvent[] = [];
    const listening = tasks.events('s1').subscribe((e) => published.push(e));
    const reply = lastValueFrom(agent.reply('When is the release?').pipe(toArray()));
    await until(() => subModel.match().length === 1, 'the background subagent');
    const first = subModel.expectOne();
    const events = await reply; // the parent's reply completes while the subagent still works
    assertReplyGrammar(events);
    const started = resultText(events, 'b1').text!;
    const id = taskIdIn(started);
    expect(started).toMatch(/^Started subagent "researcher" in the background as task task_/);
    expect(resultText(events, 'm1').text).toBe(`Sent to task ${id}; it reads the message before its next step.`);
    expect(events.some((e) => e.source === 'researcher')).toBe(false); // its events go to tasks.events

    first.flush({ toolCalls: [{ id: 'x1', name: 'read_file', input: { path: 'notes.md' } }] });
    await until(() => subModel.match().length === 1, "the subagent's second step");
    const second = subModel.expectOne();
    expect(userTexts(second.request)).toEqual(['Find the release date.', 'Only official sources.']);
    second.flush({ text: 'Released on 12 May (official blog).' });
    await tasks.idle();
    expect(tasks.get('s1', id)).toMatchObject({ status: 'completed', kind: 'subagent', name: 'researcher' });
    expect(published.filter((p) => p.taskId === id).map((p) => p.event.source)).toContain('researcher');
    listening.unsubscribe();

    await runReply(agent, 'So?');
    expect(userTexts(model.requests[3]!).at(-1)).toBe(
      `[message from task ${id}]\nBackground task ${id} (the subagent "researcher") finished. Its result:\n\nReleased on 12 May (official blog).`,
    );
  });

  it('task_output and task_cancel: how a task stands, and stopping it (nothing delivered); unknown ids are explained', async () => {
    declare('researcher', '---\nname: researcher\nmodel: m\n---\nYou research.');
    const subModel = new ModelTestingController();
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'b1', name: 'agent_spawn', input: { name: 'researcher', task: 'Dig.', background: true } }] },
      (request) => ({
        toolCalls: [{ id: 'o1', name: 'task_output', input: { task_id: taskIdIn(lastResult(request)) } }],
      }),
      (request) => ({
        toolCalls: [
          {
            id: 'c1',
            name: 'task_cancel',
            input: { task_id: /Task (task_\S+) /.exec(lastResult(request))?.[1] ?? 'none' },
          },
        ],
      }),
      { toolCalls: [{ id: 'u1', name: 'task_output', input: { task_id: 'task_nope' } }] },
      { text: 'Cancelled.' },
    ]);
    const { agent, tasks, bus } = lead(model, { models: { m: subModel.model } });
    const events = await runReply(agent, 'go');
    expect(resultText(events, 'o1').text).toMatch(/^Task task_\S+ \(subagent "researcher"\) is still running/);
    expect(resultText(events, 'c1').text).toMatch(/^Task task_\S+ is cancelled; its result will not arrive\.$/);
    expect(resultText(events, 'u1')).toEqual({
      status: 'error',
      text: expect.stringMatching(
        /There is no task "task_nope"\. Tasks of this session: task_\S+ \(researcher, cancelled\)/,
      ),
    });
    expect(subModel.match()).toEqual([]); // its model call was cancelled
    await tasks.idle();
    expect(await bus.drain('inbox:s1')).toEqual([]);
  });

  it("cancelling the parent's reply cancels its background subagents", async () => {
    declare('researcher', '---\nname: researcher\nmodel: m\n---\nYou research.');
    const subModel = new ModelTestingController();
    const parentModel = new ModelTestingController();
    const { agent, tasks } = lead(parentModel, { models: { m: subModel.model } });
    const sub = agent.reply('go').subscribe();
    await until(() => parentModel.match().length === 1, 'the parent');
    parentModel.expectOne().flush({
      toolCalls: [{ id: 'b1', name: 'agent_spawn', input: { name: 'researcher', task: 'Dig.', background: true } }],
    });
    await until(
      () => subModel.match().length === 1 && parentModel.match().length === 1,
      'the background subagent and the next parent step',
    );
    const call = subModel.expectOne();
    sub.unsubscribe();
    expect(call.cancelled).toBe(true);
    expect(tasks.list('s1')[0]).toMatchObject({ status: 'cancelled' });
  });

  it('with AsyncToolMiddleware inside it, a foreground spawn that outlives the timeout goes on in the background and reports through the inbox', async () => {
    declare('researcher', '---\nname: researcher\nmodel: m\n---\nYou research.');
    const subModel = new ModelTestingController();
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's1', name: 'agent_spawn', input: { name: 'researcher', task: 'Dig.' } }] },
      { text: 'Still digging.' },
      { text: 'Got it.' },
    ]);
    const bus = new InMemoryMessageBus();
    const tasks = new BackgroundTasks({ bus });
    const agent = new Agent({
      name: 'lead',
      sessionId: 's1',
      model,
      middlewares: [
        new InboxMiddleware({ bus }),
        new SubagentsMiddleware({ fileSystem: fs, tasks, models: { m: subModel.model } }),
        new AsyncToolMiddleware({ tasks, timeoutMs: 30 }),
      ],
    });
    const reply = runReply(agent, 'go');
    await until(() => subModel.match().length === 1, 'the subagent');
    const events = await reply;
    expect(resultText(events, 's1').text).toMatch(
      /^Tool "agent_spawn" is still running after 30 ms, so it goes on in the background as task task_\S+\./,
    );
    // The subagent's reply, cut off from the parent's stream, is closed there (grammar checked by runReply).
    expect(events.filter((e) => e.source === 'researcher').at(-1)).toMatchObject({
      type: 'REPLY_END',
      finishReason: 'interrupted',
    });
    subModel.expectOne().flush({ text: 'Found it: 42.' });
    await tasks.idle();
    await runReply(agent, 'and?');
    expect(userTexts(model.requests[2]!).at(-1)).toMatch(
      /\(the tool call "agent_spawn"\) finished\. Its result:\n\nFound it: 42\.$/,
    );
  });

  it('explains an unknown subagent, a clashing name, a bad tools list and an unknown model', async () => {
    declare('lead', '---\nname: lead\n---\nSame name.');
    declare('greedy', '---\nname: greedy\ntools: [read_file, rm_rf]\n---\nGreedy.');
    declare('fancy', '---\nname: fancy\nmodel: gpt-9\n---\nFancy.');
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'e1', name: 'agent_spawn', input: { name: 'nobody', task: 't' } },
          { id: 'e2', name: 'agent_spawn', input: { name: 'lead', task: 't' } },
          { id: 'e3', name: 'agent_spawn', input: { name: 'greedy', task: 't' } },
          { id: 'e4', name: 'agent_spawn', input: { name: 'fancy', task: 't' } },
          { id: 'e5', name: 'agent_spawn', input: { name: '../secrets', task: 't' } },
        ],
      },
      { text: 'ok' },
    ]);
    const events = await runReply(lead(model).agent, 'go');
    expect(resultText(events, 'e1').text).toMatch(
      /There is no subagent "nobody" \(subagents\/nobody\.md\)\. Declared subagents: fancy, greedy, lead\./,
    );
    expect(resultText(events, 'e2').text).toMatch(/named "lead" like the agent spawning it/);
    expect(resultText(events, 'e3').text).toMatch(
      /subagents\/greedy\.md lists "rm_rf", which is not available to subagents here \(available: read_file, write_file/,
    );
    expect(resultText(events, 'e4').text).toMatch(/unknown model "gpt-9"; no named models are configured/);
    expect(resultText(events, 'e5').text).toMatch(/"\.\.\/secrets" is not a subagent name/);
    for (const id of ['e1', 'e2', 'e3', 'e4', 'e5']) expect(resultText(events, id).status).toBe('error');
  });
});
