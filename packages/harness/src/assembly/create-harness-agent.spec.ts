import { Agent, type Middleware, OptionsError, RxscopeError } from '@rxscope/core';
import type { HarnessOptionError } from '../options/index.js';
import { ofType, runReply, ScriptedChatModel } from '@rxscope/core/testing';
import { InMemoryMessageBus } from '../bus/in-memory-message-bus.js';
import { pushToInbox } from '../inbox/inbox-message.js';
import { BackgroundTasks } from '../tasks/background-tasks.js';
import { defineTool, textOfMsg } from '@rxscope/core';
import { z } from 'zod';
import { tempDir } from '../__tests__/helpers.js';
import { createHarnessAgent, describeHarness } from './create-harness-agent.js';
import { presets } from './presets.js';
import { LocalSandbox } from '../sandbox/local-sandbox.js';

const model = new ScriptedChatModel([{ text: 'ok' }]);
const tracing: Middleware = { key: 'tracing', onAgent: (_a, _c, input, next) => next(input) };

describe('createHarnessAgent', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.cleanup());

  it('returns the core Agent with the user middlewares outermost, then the harness middlewares in the documented order', () => {
    const agent = createHarnessAgent({
      ...presets.coding(),
      model,
      workspace: dir.path,
      sandbox: 'local',
      middlewares: [tracing],
    });
    expect(agent).toBeInstanceOf(Agent);
    expect(agent.middlewares.map((m) => m.key)).toEqual([
      'tracing',
      'SandboxLifecycleMiddleware',
      'AtPathExpansionMiddleware',
      'InboxMiddleware',
      'WorkspaceContextMiddleware',
      'SkillCuratorMiddleware',
      'TodoListMiddleware',
      'PlanModeMiddleware',
      'SubagentsMiddleware',
      'AsyncToolMiddleware',
      'CompactionMiddleware',
      'ToolResultEvictionMiddleware',
    ]);
    expect(agent.tools.map((t) => t.name).sort()).toEqual(
      [
        'edit_file',
        'execute',
        'glob_files',
        'grep_files',
        'list_files',
        'plan_enter',
        'plan_exit',
        'plan_write',
        'read_file',
        'write_file',
        'write_todos',
        'agent_spawn',
        'agent_send',
        'task_output',
        'task_cancel',
        'load_skill',
      ].sort(),
    );
  });

  it('composes presets by spreading: later keys win, a user override wins over both', () => {
    const options = { ...presets.coding(), ...presets.research(), todos: false, model, workspace: dir.path };
    expect(options).toMatchObject({ fileTools: 'read-only', sandbox: 'none', planMode: false, todos: false });
    const agent = createHarnessAgent(options);
    expect(agent.tools.map((t) => t.name).sort()).toEqual([
      'agent_send',
      'agent_spawn',
      'glob_files',
      'grep_files',
      'list_files',
      'load_skill',
      'read_file',
      'task_cancel',
      'task_output',
    ]);
    const parts = describeHarness(agent).parts;
    expect(parts.filter((p) => p.enabled).map((p) => p.name)).toEqual([
      'AtPathExpansionMiddleware',
      'InboxMiddleware',
      'WorkspaceContextMiddleware',
      'SkillCuratorMiddleware',
      'SubagentsMiddleware',
      'AsyncToolMiddleware',
      'CompactionMiddleware',
      'ToolResultEvictionMiddleware',
      'file tools',
    ]);
    expect(parts.find((p) => p.name === 'TodoListMiddleware')).toMatchObject({
      enabled: false,
      reason: 'todos: false',
    });
    expect(parts.find((p) => p.name === 'SandboxLifecycleMiddleware')).toMatchObject({
      enabled: false,
      reason: "sandbox: 'none' — the agent has no shell",
    });
  });

  it('describeHarness lists every part in chain order, with why it is on or off, its hooks and tools', () => {
    const agent = createHarnessAgent({
      ...presets.coding(),
      model,
      workspace: dir.path,
      sandbox: new LocalSandbox(),
      middlewares: [tracing],
    });
    const d = describeHarness(agent);
    expect(d.workspace).toBe(dir.path);
    expect(d.sandbox).toBe('local');
    expect(d.userMiddlewares).toEqual(['tracing']);
    expect(d.parts.map((p) => [p.name, p.enabled])).toEqual([
      ['SandboxLifecycleMiddleware', true],
      ['WorkspaceSnapshotMiddleware', false],
      ['AtPathExpansionMiddleware', true],
      ['InboxMiddleware', true],
      ['WorkspaceContextMiddleware', true],
      ['SkillCuratorMiddleware', true],
      ['TodoListMiddleware', true],
      ['PlanModeMiddleware', true],
      ['SubagentsMiddleware', true],
      ['AsyncToolMiddleware', true],
      ['CompactionMiddleware', true],
      ['ToolResultEvictionMiddleware', true],
      ['file tools', true],
      ['MemoryFlushMiddleware', false],
      ['MemoryMaintenanceMiddleware', false],
      ['memory tools', false],
    ]);
    expect(d.parts[0]).toMatchObject({ hooks: ['onAgent', 'onActing'], tools: ['execute'] });
    expect(d.parts[0]!.reason).toMatch(/^sandbox: local/);
    expect(d.parts[3]).toMatchObject({ hooks: ['onAgent', 'onReasoning'], tools: [] });
    expect(d.parts[3]!.reason).toBe(
      "messages pushed to inbox:<session> on an in-memory bus (this process only) join the running reply's next step",
    );
    expect(d.parts[7]).toMatchObject({
      hooks: ['onAgent', 'onActing', 'onSystemPrompt'],
      tools: ['plan_enter', 'plan_write', 'plan_exit'],
    });
    expect(d.parts[8]).toMatchObject({
      hooks: ['onReasoning', 'onActing'],
      tools: ['agent_spawn', 'agent_send', 'task_output', 'task_cancel'],
    });
    expect(d.parts[8]!.reason).toBe(
      'agent_spawn runs subagents/<name>.md or a general-purpose subagent in a context of its own, nested at most 2 deep; background spawns report through the inbox',
    );
    expect(d.parts[9]).toMatchObject({ hooks: ['onActing'], tools: [] });
    expect(d.parts[9]!.reason).toBe(
      'a tool call still running after 60 s gets a placeholder and goes on in the background; its result comes through the inbox',
    );
    expect(d.parts[10]!.reason).toBe(
      "older messages summarised over 100,000 tokens (from the model's context window when known)",
    );
    expect(d.parts[11]!.reason).toBe('results over 80,000 characters go to large_tool_results/');
  });

  it('memory: true adds the flush, the maintenance and the memory tools; each switches off alone', () => {
    const agent = createHarnessAgent({ ...presets.minimal(), model, workspace: dir.path, memory: true });
    expect(agent.middlewares.map((m) => m.key)).toEqual([
      'WorkspaceContextMiddleware',
      'MemoryFlushMiddleware',
      'MemoryMaintenanceMiddleware',
    ]);
    expect(agent.tools.map((t) => t.name)).toEqual(['memory_search', 'memory_get', 'memory_save']);
    const parts = describeHarness(agent).parts.filter((p) => p.option.startsWith('memory'));
    expect(parts.map((p) => [p.name, p.enabled, p.hooks, p.tools])).toEqual([
      ['MemoryFlushMiddleware', true, ['onAgent'], []],
      ['MemoryMaintenanceMiddleware', true, ['onAgent'], []],
      ['memory tools', true, [], ['memory_search', 'memory_get', 'memory_save']],
    ]);
    expect(parts[1]!.reason).toBe('at most once a day, older ledgers folded into MEMORY.md and archived (detached)');

    const some = createHarnessAgent({
      ...presets.minimal(),
      model,
      workspace: dir.path,
      memory: { flush: false, maintenance: { intervalMs: 3_600_000 }, tools: false },
    });
    expect(some.middlewares.map((m) => m.key)).toEqual(['WorkspaceContextMiddleware', 'MemoryMaintenanceMiddleware']);
    expect(some.tools).toEqual([]);
    expect(
      describeHarness(some)
        .parts.filter((p) => p.option.startsWith('memory'))
        .map((p) => [p.name, p.enabled, p.reason]),
    ).toEqual([
      ['MemoryFlushMiddleware', false, 'memory.flush: false'],
      [
        'MemoryMaintenanceMiddleware',
        true,
        'at most once every 3,600,000 ms, older ledgers folded into MEMORY.md and archived (detached)',
      ],
      ['memory tools', false, 'memory.tools: false'],
    ]);
  });

  it('inbox: a message pushed to the session on the given bus joins the next reply; inbox: false switches it off', async () => {
    const bus = new InMemoryMessageBus();
    const scripted = new ScriptedChatModel([{ text: 'ok' }]);
    const agent = createHarnessAgent({
      ...presets.minimal(),
      inbox: true,
      model: scripted,
      workspace: dir.path,
      bus,
      sessionId: 's1',
    });
    expect(describeHarness(agent).parts.find((p) => p.name === 'InboxMiddleware')!.reason).toMatch(/on the given bus/);
    await pushToInbox(bus, 's1', 'Answer in French.');
    await runReply(agent, 'hello');
    expect(
      scripted.requests[0]!.messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'hint' ? [b.text] : []))),
    ).toEqual(['Answer in French.']);

    const off = createHarnessAgent({ model, workspace: dir.path, inbox: false });
    expect(off.middlewares.map((m) => m.key)).not.toContain('InboxMiddleware');
    expect(describeHarness(off).parts.find((p) => p.name === 'InboxMiddleware')).toMatchObject({
      enabled: false,
      reason: 'inbox: false',
    });
    expect(describeHarness(off).parts.find((p) => p.name === 'AsyncToolMiddleware')).toMatchObject({
      enabled: false,
      reason: 'needs the inbox (inbox: false), which delivers the late results',
    });
  });

  it('asyncTools: a slow tool call gets a placeholder after the timeout and its result arrives at the next reply; asyncTools: false switches it off', async () => {
    let finish!: (text: string) => void;
    const slow = defineTool({
      name: 'slow',
      description: 's',
      input: z.object({}),
      execute: () => new Promise<string>((r) => (finish = r)),
    });
    const scripted = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'slow', input: {} }] },
      { text: 'waiting' },
      { text: 'got it' },
    ]);
    const bus = new InMemoryMessageBus();
    const tasks = new BackgroundTasks({ bus });
    const agent = createHarnessAgent({
      ...presets.minimal(),
      inbox: true,
      asyncTools: { timeoutMs: 20 },
      tasks,
      bus,
      model: scripted,
      workspace: dir.path,
      tools: [slow],
    });
    expect(describeHarness(agent).parts.find((p) => p.name === 'AsyncToolMiddleware')!.reason).toMatch(
      /^a tool call still running after 20 ms/,
    );
    await runReply(agent, 'go');
    finish('slow result');
    await tasks.idle();
    await runReply(agent, 'and?');
    expect(
      scripted.requests[2]!.messages.flatMap((m) =>
        m.content.flatMap((b) => (b.type === 'hint' ? [b.text] : [])),
      ).join(),
    ).toMatch(/finished\. Its result:\n\nslow result$/);

    const off = createHarnessAgent({ model, workspace: dir.path, asyncTools: false });
    expect(off.middlewares.map((m) => m.key)).not.toContain('AsyncToolMiddleware');
  });

  it('subagents: a general-purpose subagent borrows the sandbox, so it has execute; subagents: false switches them off', async () => {
    const scripted = new ScriptedChatModel((request) => {
      const sub = request.messages.some((m) => m.role === 'system' && textOfMsg(m).includes('You are a subagent'));
      const answered = request.messages.some((m) => m.content.some((b) => b.type === 'tool_result'));
      if (sub)
        return answered
          ? { text: 'it printed hi' }
          : { toolCalls: [{ id: 'x1', name: 'execute', input: { command: 'echo hi' } }] };
      return answered
        ? { text: 'done' }
        : { toolCalls: [{ id: 's1', name: 'agent_spawn', input: { task: 'Run echo hi.' } }] };
    });
    const agent = createHarnessAgent({
      ...presets.minimal(),
      subagents: true,
      sandbox: 'local',
      execute: { askPermission: false },
      model: scripted,
      workspace: dir.path,
    });
    expect(describeHarness(agent).parts.find((p) => p.name === 'SubagentsMiddleware')!.reason).toMatch(
      /no background spawns \(inbox: false\)$/,
    );
    const events = await runReply(agent, 'go');
    const sub = events.filter((e) => e.source === 'general-purpose');
    expect(
      ofType(sub, 'TOOL_RESULT_END').map((e) => [
        e.status,
        e.output.map((b) => (b.type === 'text' ? b.text : '')).join(''),
      ]),
    ).toEqual([['success', expect.stringContaining('hi')]]);
    expect(ofType(events, 'TOOL_RESULT_END').find((e) => e.toolCallId === 's1')).toMatchObject({
      status: 'success',
      output: [{ type: 'text', text: 'it printed hi' }],
    });

    const off = createHarnessAgent({ model, workspace: dir.path, subagents: false });
    expect(off.tools.map((t) => t.name)).not.toContain('agent_spawn');
    expect(describeHarness(off).parts.find((p) => p.name === 'SubagentsMiddleware')).toMatchObject({
      enabled: false,
      reason: 'subagents: false',
    });
  });

  it('minimal() keeps only the workspace context', () => {
    const agent = createHarnessAgent({ ...presets.minimal(), model, workspace: dir.path });
    expect(agent.middlewares.map((m) => m.key)).toEqual(['WorkspaceContextMiddleware']);
    expect(agent.tools).toEqual([]);
  });

  it('refuses bad options at construction with a clear error', () => {
    expect(() => createHarnessAgent({ workspace: dir.path })).toThrow(/needs a model/);
    expect(() => createHarnessAgent({ model })).toThrow(/needs a workspace folder/);
    expect(() => createHarnessAgent({ model, workspace: dir.path, sandbox: 'docker' as never })).toThrow(
      /sandbox must be 'none', 'local', 'bubblewrap'/,
    );
    expect(() => describeHarness(new Agent({ model }))).toThrow(/not built by createHarnessAgent/);
    for (const bad of [{ workspace: dir.path }, { model }, { model, workspace: dir.path, sandbox: 'docker' }]) {
      expect(() => createHarnessAgent(bad as never)).toThrow(
        expect.objectContaining({ name: 'HarnessOptionError', code: 'invalid_option' }) as Error,
      );
    }
  });

  it('a typo is refused with "did you mean" among the harness and the core options', () => {
    const refused = (options: object) => {
      try {
        createHarnessAgent({ model, workspace: dir.path, ...options });
      } catch (e) {
        return e as HarnessOptionError;
      }
      throw new Error('not refused');
    };
    const typo = refused({ compacton: false });
    expect(typo).toBeInstanceOf(OptionsError);
    expect(typo).toMatchObject({ code: 'unknown_option', option: 'createHarnessAgent.compacton' });
    expect(typo.message).toMatch(/^unknown option "compacton" of createHarnessAgent; did you mean "compaction"\?/);
    // One list: the harness's options and the core's.
    expect(typo.message).toMatch(/Known: workspace, fileSystem, .*, sandbox, .*, name, sysPrompt, model, .*maxIters/);
    expect(refused({ instructions: 'Be brief.' }).message).toMatch(/"instructions" .* did you mean "sysPrompt"\?/);
    expect(refused({ maxSteps: 4 }).message).toMatch(/did you mean "maxIters"\?/);
  });

  describe('on a machine without bubblewrap (no bwrap on PATH)', () => {
    const path = process.env['PATH'];
    let empty: ReturnType<typeof tempDir>;
    beforeEach(() => {
      empty = tempDir();
      process.env['PATH'] = empty.path;
    });
    afterEach(() => {
      process.env['PATH'] = path;
      empty.cleanup();
    });

    it("refuses sandbox: 'bubblewrap' when the agent is built, naming sandbox: 'local' and what it protects", () => {
      let error: unknown;
      try {
        createHarnessAgent({ ...presets.coding(), model, workspace: dir.path });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RxscopeError);
      expect(error).toMatchObject({ name: 'SandboxError', code: 'sandbox_unavailable' });
      const message = (error as Error).message;
      expect(message).toContain("pass sandbox: 'local'");
      expect(message).toMatch(/scrubbed environment .* but they can read and change every file your user can/);
      // The other choices need no bwrap.
      expect(() =>
        createHarnessAgent({ ...presets.coding(), model, workspace: dir.path, sandbox: 'local' }),
      ).not.toThrow();
      expect(() => createHarnessAgent({ ...presets.research(), model, workspace: dir.path })).not.toThrow();
    });
  });

  it("builds sandbox: 'bubblewrap' where bwrap is on PATH (this machine)", () => {
    const agent = createHarnessAgent({ ...presets.coding(), model, workspace: dir.path });
    expect(describeHarness(agent).sandbox).toBe('bubblewrap');
  });
});
