// What a user of createHarnessAgent notices of each harness feature, on and off: the tools the
// model is offered in its request, the system prompt it reads, and what describeHarness says.
// Options are checked through the public entry point only.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineTool, RxscopeError, textOfMsg } from '@rxscope/core';
import { z } from 'zod';
import { ScriptedChatModel } from '@rxscope/core/testing';
import {
  createHarnessAgent,
  describeHarness,
  HarnessOptionError,
  type HarnessOptions,
  type HarnessPart,
  InMemoryMessageBus,
  LocalSandbox,
  type SandboxLease,
} from '../index.js';
import { run, tempDir } from './helpers.js';

const FILE_TOOLS = ['read_file', 'list_files', 'glob_files', 'grep_files', 'write_file', 'edit_file'];
const READ_TOOLS = ['read_file', 'list_files', 'glob_files', 'grep_files'];
const SUBAGENT_TOOLS = ['agent_spawn', 'agent_send', 'task_output', 'task_cancel'];
const PLAN_TOOLS = ['plan_enter', 'plan_write', 'plan_exit'];
const MEMORY_TOOLS = ['memory_search', 'memory_get', 'memory_save'];

describe('createHarnessAgent: each feature as the model and the user see it', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.cleanup());

  /** The tools and the system prompt of the first model request of one reply. */
  async function firstRequest(options: Omit<HarnessOptions, 'model' | 'workspace'>) {
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const agent = createHarnessAgent({ ...options, model, workspace: dir.path });
    await run(agent, 'hi');
    const request = model.requests[0]!;
    const first = request.messages[0]!;
    return {
      agent,
      tools: request.tools.map((t) => t.name),
      prompt: first.role === 'system' ? textOfMsg(first) : '',
    };
  }
  const part = (agent: Parameters<typeof describeHarness>[0], name: string): HarnessPart =>
    describeHarness(agent).parts.find((p) => p.name === name)!;

  it('by default the model is offered the six file tools, load_skill, write_todos and the subagent tools, and nothing else', async () => {
    const { tools, prompt } = await firstRequest({});
    expect([...tools].sort()).toEqual([...FILE_TOOLS, 'load_skill', 'write_todos', ...SUBAGENT_TOOLS].sort());
    expect(prompt).toContain('## Workspace');
    expect(prompt).toContain(dir.path);
  });

  it.each<[string, Omit<HarnessOptions, 'model' | 'workspace'>, string[], string[]]>([
    ["fileTools: 'read-only'", { fileTools: 'read-only' }, READ_TOOLS, ['write_file', 'edit_file']],
    ['fileTools: false', { fileTools: false }, [], FILE_TOOLS],
    ['todos: false', { todos: false }, [], ['write_todos']],
    ['todos: {}', { todos: {} }, ['write_todos'], []],
    ['skills: false', { skills: false }, [], ['load_skill']],
    ['subagents: false', { subagents: false }, [], SUBAGENT_TOOLS],
    ['planMode: true', { planMode: true }, PLAN_TOOLS, []],
    ['planMode: false', { planMode: false }, [], PLAN_TOOLS],
    ["sandbox: 'local'", { sandbox: 'local', execute: { askPermission: false } }, ['execute'], []],
    ["sandbox: 'none'", { sandbox: 'none' }, [], ['execute']],
    ['memory without flush and maintenance', { memory: { flush: false, maintenance: false } }, MEMORY_TOOLS, []],
    ['memory.tools: false', { memory: { flush: false, maintenance: false, tools: false } }, [], MEMORY_TOOLS],
    ['memory off (the default)', {}, [], MEMORY_TOOLS],
  ])('%s: the tools offered to the model', async (_label, options, offered, withheld) => {
    const { tools, agent } = await firstRequest(options);
    expect(tools).toEqual(expect.arrayContaining(offered));
    for (const name of withheld) expect(tools).not.toContain(name);
    // describeHarness names the same tools as the request carried.
    const described = describeHarness(agent).parts.flatMap((p) => p.tools);
    expect([...described].sort()).toEqual([...tools].sort());
  });

  it('the user tools come first and keep their names; the harness adds its tools after them', async () => {
    const mine = defineTool({
      name: 'lookup',
      description: 'Look a word up.',
      input: z.object({ word: z.string() }),
      execute: ({ word }) => word,
    });
    const { tools } = await firstRequest({ tools: [mine], fileTools: 'read-only', subagents: false, skills: false });
    expect(tools[0]).toBe('lookup');
    expect(tools).toEqual(expect.arrayContaining(['lookup', ...READ_TOOLS, 'write_todos']));
  });

  it('workspaceContext: false leaves only the sysPrompt in the system prompt', async () => {
    writeFileSync(join(dir.path, 'AGENTS.md'), 'Always answer in French.');
    const on = await firstRequest({ sysPrompt: 'You help.' });
    expect(on.prompt.startsWith('You help.\n\n')).toBe(true);
    expect(on.prompt).toContain('Always answer in French.');
    const off = await firstRequest({ sysPrompt: 'You help.', workspaceContext: false });
    expect(off.prompt).toBe('You help.');
  });

  it('keeps the system prompt sections in the documented order: sysPrompt, workspace, skills, task list, plan banner', async () => {
    mkdirSync(join(dir.path, 'skills', 'release'), { recursive: true });
    writeFileSync(join(dir.path, 'skills', 'release', 'SKILL.md'), '---\ndescription: Cut a release.\n---\nTag it.');
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 't', name: 'write_todos', input: { todos: [{ content: 'Read the code', status: 'in_progress' }] } },
        ],
      },
      { toolCalls: [{ id: 'p', name: 'plan_enter', input: {} }] },
      { text: 'Planning now.' },
    ]);
    const agent = createHarnessAgent({ model, workspace: dir.path, sysPrompt: 'You are the tester.', planMode: true });
    await run(agent, 'plan it');
    const prompt = textOfMsg(model.requests[2]!.messages[0]!);
    const at = (s: string) => {
      const i = prompt.indexOf(s);
      expect(i).toBeGreaterThanOrEqual(0);
      return i;
    };
    const order = [
      at('You are the tester.'),
      at('## Workspace'),
      at('<available_skills>'),
      at('## Your task list'),
      at('## Plan mode is active'),
    ];
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(prompt).toContain('- [~] Read the code');
    // The first request had neither the task list nor the banner yet.
    const first = textOfMsg(model.requests[0]!.messages[0]!);
    expect(first).not.toContain('## Your task list');
    expect(first).not.toContain('## Plan mode is active');
  });

  it('a user middleware (the outermost) transforms the system prompt first; the harness sections follow its text', async () => {
    let seen = '';
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const agent = createHarnessAgent({
      model,
      workspace: dir.path,
      sysPrompt: 'Base.',
      middlewares: [
        {
          key: 'spy',
          onSystemPrompt: (_a, _c, prompt) => {
            seen = prompt;
            return `${prompt}\n\nSPY`;
          },
        },
      ],
    });
    await run(agent, 'hi');
    expect(seen).toBe('Base.');
    expect(textOfMsg(model.requests[0]!.messages[0]!).startsWith('Base.\n\nSPY\n\n## Workspace')).toBe(true);
    expect(describeHarness(agent).userMiddlewares).toEqual(['spy']);
  });

  describe('describeHarness says why each part is on or off, from the options given', () => {
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const make = (options: Omit<HarnessOptions, 'model' | 'workspace'>) =>
      createHarnessAgent({ ...options, model, workspace: dir.path });

    it('lists all sixteen parts in chain order whatever is on, each off part without hooks or tools', () => {
      const names = [
        'SandboxLifecycleMiddleware',
        'WorkspaceSnapshotMiddleware',
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
        'file tools',
        'MemoryFlushMiddleware',
        'MemoryMaintenanceMiddleware',
        'memory tools',
      ];
      const allOff = make({
        sandbox: 'none',
        workspaceSnapshot: false,
        atPathExpansion: false,
        inbox: false,
        workspaceContext: false,
        skills: false,
        todos: false,
        planMode: false,
        subagents: false,
        asyncTools: false,
        compaction: false,
        toolResultEviction: false,
        fileTools: false,
        memory: false,
      });
      const d = describeHarness(allOff);
      expect(d.parts.map((p) => p.name)).toEqual(names);
      expect(d.parts.filter((p) => p.enabled)).toEqual([]);
      for (const p of d.parts) expect(p).toMatchObject({ hooks: [], tools: [] });
      expect(allOff.middlewares).toEqual([]);
      expect(allOff.tools).toEqual([]);
      expect(d.parts.map((p) => p.reason)).toEqual([
        "sandbox: 'none' — the agent has no shell",
        'workspaceSnapshot is not set (the workspace stays on this machine)',
        'atPathExpansion: false',
        'inbox: false',
        'workspaceContext: false',
        'skills: false',
        'todos: false',
        'planMode is not true',
        'subagents: false',
        'asyncTools: false',
        'compaction: false',
        'toolResultEviction: false',
        'fileTools: false',
        'memory is not on',
        'memory is not on',
        'memory is not on',
      ]);
      const everyOn = describeHarness(
        make({ sandbox: 'local', workspaceSnapshot: true, planMode: true, memory: true, fileTools: true }),
      );
      expect(everyOn.parts.map((p) => p.name)).toEqual(names);
      expect(everyOn.parts.filter((p) => !p.enabled)).toEqual([]);
    });

    it('compaction: the trigger it will use, from triggerTokens, contextWindow or triggerMessages', () => {
      expect(
        part(make({ compaction: { triggerTokens: 50_000, triggerMessages: 40 } }), 'CompactionMiddleware'),
      ).toMatchObject({
        enabled: true,
        reason: 'older messages summarised over 50,000 tokens or 40 messages',
      });
      expect(part(make({ compaction: { contextWindow: 32_000 } }), 'CompactionMiddleware').reason).toBe(
        'older messages summarised over 80% of a 32,000-token context window',
      );
    });

    it('eviction, async tools and skills: the limits they were given', () => {
      expect(part(make({ toolResultEviction: { maxResultChars: 1_500 } }), 'ToolResultEvictionMiddleware').reason).toBe(
        'results over 1,500 characters go to large_tool_results/',
      );
      expect(part(make({ asyncTools: { timeoutMs: 5_000 } }), 'AsyncToolMiddleware').reason).toMatch(
        /^a tool call still running after 5 s gets a placeholder/,
      );
      expect(part(make({ asyncTools: { timeoutMs: 1_500 } }), 'AsyncToolMiddleware').reason).toMatch(
        /still running after 1500 ms/,
      );
      expect(
        part(make({ skills: { staleAfterDays: 7, archiveAfterDays: 14 } }), 'SkillCuratorMiddleware').reason,
      ).toMatch(/unused 7 days marked stale, archived 14 days later$/);
      expect(part(make({ skills: { curateEveryHours: false } }), 'SkillCuratorMiddleware').reason).toMatch(
        /; no curation$/,
      );
    });

    it('the inbox and what depends on it: the bus named, async tools and background spawns off without it', () => {
      expect(part(make({ bus: new InMemoryMessageBus() }), 'InboxMiddleware').reason).toBe(
        "messages pushed to inbox:<session> on the given bus join the running reply's next step",
      );
      const noInbox = make({ inbox: false });
      expect(part(noInbox, 'AsyncToolMiddleware')).toMatchObject({
        enabled: false,
        reason: 'needs the inbox (inbox: false), which delivers the late results',
      });
      expect(part(noInbox, 'SubagentsMiddleware')).toMatchObject({ enabled: true });
      expect(part(noInbox, 'SubagentsMiddleware').reason).toMatch(/no background spawns \(inbox: false\)$/);
      expect(part(make({ subagents: { generalPurpose: false, maxDepth: 1 } }), 'SubagentsMiddleware').reason).toBe(
        'agent_spawn runs subagents/<name>.md in a context of its own, nested at most 1 deep; background spawns report through the inbox',
      );
    });

    it('memory parts: each switched off alone says which option did it', () => {
      const d = describeHarness(
        make({ memory: { flush: false, maintenance: { intervalMs: 3_600_000 }, tools: false } }),
      );
      const memory = d.parts.filter((p) => p.name.startsWith('Memory') || p.name === 'memory tools');
      expect(memory.map((p) => [p.name, p.enabled, p.reason])).toEqual([
        ['MemoryFlushMiddleware', false, 'memory.flush: false'],
        [
          'MemoryMaintenanceMiddleware',
          true,
          'at most once every 3,600,000 ms, older ledgers folded into MEMORY.md and archived (detached)',
        ],
        ['memory tools', false, 'memory.tools: false'],
      ]);
    });

    it('the sandbox: its kind, and the lease when one is given', () => {
      const lease: SandboxLease = {
        acquire: () => Promise.reject(new Error('not used')),
      };
      const d = describeHarness(make({ sandbox: new LocalSandbox(), sandboxLease: lease }));
      expect(d.sandbox).toBe('local');
      expect(
        part(make({ sandbox: new LocalSandbox(), sandboxLease: lease }), 'SandboxLifecycleMiddleware').reason,
      ).toMatch(/^sandbox: local — .*; a reply first takes the session's sandbox lease \(one process at a time\)$/);
      expect(describeHarness(make({ sandbox: 'bubblewrap' })).sandbox).toBe('bubblewrap');
      expect(describeHarness(make({})).sandbox).toBe('none');
    });

    it('the file tools part names the tools of each choice', () => {
      expect(part(make({ fileTools: 'read-only' }), 'file tools')).toMatchObject({
        enabled: true,
        reason: 'read-only file tools',
        tools: READ_TOOLS,
      });
      expect(part(make({}), 'file tools')).toMatchObject({
        reason: 'all file tools, confined to the workspace',
        tools: FILE_TOOLS,
      });
    });
  });

  describe('options refused at construction', () => {
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const refusal = (options: HarnessOptions): unknown => {
      try {
        createHarnessAgent(options);
      } catch (e) {
        return e;
      }
      throw new Error('createHarnessAgent accepted the options');
    };

    it.each<[string, HarnessOptions, string, string]>([
      ['readFile', { readFile: { maxChar: 10 } as never }, 'readFileTool.maxChar', 'maxChars'],
      ['editFile', { editFile: { maxFileByte: 10 } as never }, 'editFileTool.maxFileByte', 'maxFileBytes'],
      ['grepFiles', { grepFiles: { maxMatchs: 10 } as never }, 'grepFilesTool.maxMatchs', 'maxMatches'],
    ])('a misspelt %s limit is a HarnessOptionError naming the key meant', (_label, options, option, meant) => {
      const error = refusal({ ...options, model, workspace: dir.path });
      expect(error).toBeInstanceOf(HarnessOptionError);
      expect(error).toBeInstanceOf(RxscopeError);
      expect(error).toMatchObject({ code: 'unknown_option', option });
      expect((error as Error).message).toContain(`did you mean "${meant}"?`);
    });

    it('a limit of the wrong kind is an invalid_option naming the value', () => {
      const error = refusal({ model, workspace: dir.path, grepFiles: { maxMatches: 0 } });
      expect(error).toMatchObject({ code: 'invalid_option', option: 'grepFilesTool.maxMatches' });
      expect((error as Error).message).toBe('grepFilesTool: maxMatches must be a whole number of at least 1, got 0.');
      const text = refusal({ model, workspace: dir.path, readFile: { maxChars: '10' as never } });
      expect((text as Error).message).toMatch(/maxChars must be a whole number of at least \d+, got "10"/);
    });

    it('an unknown top-level key is refused with a stable code, and names the key', () => {
      const error = refusal({ model, workspace: dir.path, sysprompt: 'lower case' } as never);
      expect(error).toBeInstanceOf(HarnessOptionError);
      expect(error).toBeInstanceOf(RxscopeError);
      expect(error).toMatchObject({ code: 'unknown_option' });
      expect((error as Error).message).toContain(
        'unknown option "sysprompt" of createHarnessAgent; did you mean "sysPrompt"?',
      );
      // Nothing was created for the refused agent, but the workspace folder is there for the next one.
      expect(() => createHarnessAgent({ model, workspace: dir.path, sysPrompt: 'ok' })).not.toThrow();
    });

    it('an options object that is not one, or without a model or workspace, is an invalid_option saying what is needed', () => {
      expect(() => createHarnessAgent(undefined as never)).toThrow(
        'createHarnessAgent needs an options object ({ model, workspace, ... }).',
      );
      expect(() => createHarnessAgent('ws' as never)).toThrow(
        expect.objectContaining({ name: 'HarnessOptionError', code: 'invalid_option' }) as Error,
      );
    });

    it('a workspace that is a file is refused, and one that is missing is created with its layout', () => {
      writeFileSync(join(dir.path, 'a-file'), 'x');
      expect(() => createHarnessAgent({ model, workspace: join(dir.path, 'a-file') })).toThrow();
      const fresh = join(dir.path, 'new', 'ws');
      const agent = createHarnessAgent({ model, workspace: fresh });
      expect(describeHarness(agent).workspace).toBe(fresh);
      for (const folder of ['memory', 'knowledge', 'skills', 'subagents', 'plans']) {
        expect(existsSync(join(fresh, folder))).toBe(true);
      }
    });
  });
});
