/**
 * Type tests of @rxscope/harness's public API: presets spread into createHarnessAgent's options,
 * every feature takes `false` or its options object, describeHarness's result is typed, and
 * misspelt keys or values of the wrong type are errors. Never run: `tsc -b` checks them
 * (through tsconfig.spec.json); an `@ts-expect-error` whose line compiles fails the typecheck.
 */
import { Agent, type ChatModel } from '@rxscope/core';
import {
  BackgroundTasks,
  createHarnessAgent,
  describeHarness,
  type HarnessDescription,
  type HarnessMemoryOptions,
  HarnessOptionError,
  type HarnessOptionErrorCode,
  type HarnessOptions,
  type HarnessPart,
  InMemoryMessageBus,
  LocalSandbox,
  presets,
  type SandboxChoice,
  type TaskStatus,
  type Todo,
} from '../index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
declare const model: ChatModel;

// ── createHarnessAgent returns the core Agent ─────────────────────────────────────────────────
const agent = createHarnessAgent({ model, workspace: './ws' });
type _agent = Expect<Equal<typeof agent, Agent>>;

// ── Presets are plain options: spread, overridden, composed ───────────────────────────────────
createHarnessAgent({ ...presets.coding(), model, workspace: './ws' });
createHarnessAgent({ ...presets.coding(), ...presets.research(), model, workspace: './ws', todos: false });
createHarnessAgent({ ...presets.minimal(), model, workspace: './ws', fileTools: 'read-only', sandbox: 'local' });
const coding: HarnessOptions = presets.coding();
type _presets = Expect<Equal<ReturnType<(typeof presets)['research']>, HarnessOptions>>;
// @ts-expect-error there is no such preset
void presets.fast;
void coding;

// ── Every feature can be switched off with false ──────────────────────────────────────────────
createHarnessAgent({
  model,
  workspace: './ws',
  fileTools: false,
  sandbox: 'none',
  workspaceSnapshot: false,
  compaction: false,
  toolResultEviction: false,
  planMode: false,
  todos: false,
  workspaceContext: false,
  atPathExpansion: false,
  memory: false,
  inbox: false,
  asyncTools: false,
  subagents: false,
  skills: false,
});

// ── ... or configured with its options object ─────────────────────────────────────────────────
createHarnessAgent({
  model,
  workspace: './ws',
  fileTools: 'read-only',
  readFile: { defaultLimit: 200, maxLineChars: 2000, maxChars: 50_000, maxFileBytes: 1 << 20 },
  editFile: { maxFileBytes: 1 << 20 },
  grepFiles: { maxMatches: 50, maxLineChars: 500, maxFileBytes: 1 << 20, maxSearchMs: 5000 },
  sandbox: new LocalSandbox(),
  execute: { askPermission: false, defaultTimeoutS: 30, maxTimeoutS: 600, maxOutputChars: 20_000 },
  workspaceSnapshot: { maxFileBytes: 1 << 20, maxTotalBytes: 8 << 20, exclude: ['*.log'], onError: () => {} },
  compaction: { triggerTokens: 50_000, triggerMessages: 200, keepMessages: 20, summaryModel: model },
  toolResultEviction: { maxResultChars: 20_000, headChars: 500, tailChars: 500, exclude: ['read_file'] },
  todos: { maxTodos: 20 },
  workspaceContext: { memoryTokens: 2000, maxAgentsChars: 10_000, maxKnowledgeFiles: 50, now: () => new Date() },
  atPathExpansion: { maxFileChars: 10_000, maxTotalChars: 40_000 },
  memory: { flush: { model }, maintenance: { intervalMs: 3_600_000 }, tools: false, onError: () => {} },
  bus: new InMemoryMessageBus(),
  inbox: { onError: () => {} },
  asyncTools: { timeoutMs: 30_000, exclude: ['execute'] },
  subagents: { models: { small: model }, generalPurpose: false, maxDepth: 1, maxIters: 10 },
  skills: { curateEveryHours: false, maxListed: 20, onError: () => {} },
  tasks: new BackgroundTasks({ bus: new InMemoryMessageBus() }),
});
// true switches on the features that default off
createHarnessAgent({ model, workspace: './ws', planMode: true, memory: true, workspaceSnapshot: true });
const memory: HarnessMemoryOptions = { flush: true, maintenance: false };
void memory;

// ── What the harness wires itself cannot be passed ────────────────────────────────────────────
// @ts-expect-error compaction gets the workspace file system from the harness
createHarnessAgent({ model, workspace: './ws', compaction: { fileSystem: undefined as never } });
// @ts-expect-error the inbox's bus is the `bus` option
createHarnessAgent({ model, workspace: './ws', inbox: { bus: new InMemoryMessageBus() } });
// @ts-expect-error the async tools' tasks are the `tasks` option
createHarnessAgent({ model, workspace: './ws', asyncTools: { tasks: new BackgroundTasks() } });
// @ts-expect-error the workspace context's folder is the `workspace` option
createHarnessAgent({ model, workspace: './ws', workspaceContext: { workspace: '/elsewhere' } });
// @ts-expect-error the sandbox of execute is the `sandbox` option
createHarnessAgent({ model, workspace: './ws', execute: { sandbox: new LocalSandbox() } });

// ── Wrong keys and wrong types are errors ─────────────────────────────────────────────────────
// @ts-expect-error misspelt top-level option
createHarnessAgent({ model, workspace: './ws', planMod: true });
// @ts-expect-error misspelt compaction option
createHarnessAgent({ model, workspace: './ws', compaction: { triggerTokenz: 5 } });
// @ts-expect-error misspelt grep limit
createHarnessAgent({ model, workspace: './ws', grepFiles: { maxMatchs: 5 } });
// @ts-expect-error fileTools is a boolean or 'read-only'
createHarnessAgent({ model, workspace: './ws', fileTools: 'readonly' });
// @ts-expect-error planMode is a boolean, not an options object
createHarnessAgent({ model, workspace: './ws', planMode: {} });
// @ts-expect-error compaction cannot be switched on with true (it is on by default; configure it with an object)
createHarnessAgent({ model, workspace: './ws', compaction: true });
// @ts-expect-error toolResultEviction is false or an object
createHarnessAgent({ model, workspace: './ws', toolResultEviction: 'on' });
// @ts-expect-error the sandbox is 'none', 'local', 'bubblewrap' or a Sandbox
createHarnessAgent({ model, workspace: './ws', sandbox: 'docker' });
// @ts-expect-error a number of tokens
createHarnessAgent({ model, workspace: './ws', compaction: { triggerTokens: '50k' } });
// @ts-expect-error the todo cap is a number
createHarnessAgent({ model, workspace: './ws', todos: { maxTodos: 'many' } });
// @ts-expect-error memory.tools is a boolean only
createHarnessAgent({ model, workspace: './ws', memory: { tools: {} } });
// @ts-expect-error the workspace is a path string
createHarnessAgent({ model, workspace: 42 });
// @ts-expect-error the options object is required
createHarnessAgent();

// ── SandboxChoice ─────────────────────────────────────────────────────────────────────────────
const choices: SandboxChoice[] = ['none', 'local', 'bubblewrap', new LocalSandbox()];
void choices;

// ── describeHarness ───────────────────────────────────────────────────────────────────────────
const description = describeHarness(agent);
type _description = Expect<Equal<typeof description, HarnessDescription>>;
type _parts = Expect<Equal<HarnessDescription['parts'], readonly HarnessPart[]>>;
type _workspace = Expect<Equal<HarnessDescription['workspace'], string>>;
type _users = Expect<Equal<HarnessDescription['userMiddlewares'], readonly string[]>>;
type _enabled = Expect<Equal<HarnessPart['enabled'], boolean>>;
type _hooks = Expect<Equal<HarnessPart['hooks'], readonly string[]>>;
type _tools = Expect<Equal<HarnessPart['tools'], readonly string[]>>;
const first: HarnessPart | undefined = description.parts[0];
// @ts-expect-error the description's parts are read-only
description.parts[0] = first!;
// @ts-expect-error a part's fields are read-only
first!.enabled = false;
// @ts-expect-error describeHarness takes an Agent
describeHarness({ name: 'x' });

// ── Errors and codes ──────────────────────────────────────────────────────────────────────────
type _codes = Expect<Equal<HarnessOptionErrorCode, 'unknown_option' | 'invalid_option'>>;
declare const _error: HarnessOptionError;
type _code = Expect<Equal<typeof _error.code, HarnessOptionErrorCode>>;
type _option = Expect<Equal<typeof _error.option, string>>;
// @ts-expect-error not a code
const wrongCode: HarnessOptionErrorCode = 'typo';
void wrongCode;

// ── The task list and background tasks ───────────────────────────────────────────────────────
const todo: Todo = { content: 'Read the code', status: 'in_progress' };
// @ts-expect-error not a status
const badTodo: Todo = { content: 'x', status: 'doing' };
type _status = Expect<Equal<TaskStatus, 'queued' | 'running' | 'completed' | 'failed' | 'cancelled'>>;
void todo;
void badTodo;

// The options are the core Agent's too: a user middleware, tools and a name.
createHarnessAgent({ model, workspace: './ws', name: 'coder', maxIters: 10, middlewares: [], tools: [] });
// @ts-expect-error maxIters is a number
createHarnessAgent({ model, workspace: './ws', maxIters: '10' });
new Agent({ model });
