import { Agent } from '@rxscope/core';
import type { HarnessOptions, SandboxChoice } from './harness-options.js';
import { CompactionMiddleware } from './middleware/compaction/index.js';
import { AtPathExpansionMiddleware } from './middleware/at-path-expansion/index.js';
import { PlanModeMiddleware } from './middleware/plan-mode/index.js';
import { SandboxLifecycleMiddleware } from './middleware/sandbox-lifecycle/index.js';
import { TodoListMiddleware } from './middleware/todo-list/index.js';
import { ToolResultEvictionMiddleware } from './middleware/tool-result-eviction/index.js';
import { WorkspaceContextMiddleware } from './middleware/workspace-context/index.js';
import { WorkspaceSnapshotMiddleware } from './middleware/workspace-snapshot/index.js';
import type { AssembledPart, HarnessPart } from './harness-part.js';
import { InMemoryMessageBus } from './bus/in-memory-message-bus.js';
import { asyncToolPart, inboxPart, skillsPart, subagentsPart } from './coordination-parts.js';
import { BackgroundTasks } from './tasks/background-tasks.js';
export type { HarnessPart } from './harness-part.js';
import { memoryParts } from './memory/memory-parts.js';
import { BubblewrapSandbox } from './sandbox/bubblewrap-sandbox.js';
import { LocalSandbox } from './sandbox/local-sandbox.js';
import type { Sandbox } from './sandbox/sandbox.js';
import { editFileTool } from './tools/edit-file.js';
import { globFilesTool } from './tools/glob-files.js';
import { grepFilesTool } from './tools/grep-files.js';
import { listFilesTool } from './tools/list-files.js';
import { readFileTool } from './tools/read-file.js';
import { writeFileTool } from './tools/write-file.js';
import { ensureWorkspace } from './workspace/layout.js';
import { LocalFileSystem } from './workspace/local-file-system.js';

/** What `describeHarness` returns: the workspace and the parts in chain order. */
export interface HarnessDescription {
  readonly workspace: string;
  readonly sandbox: string;
  /** The user's middlewares (outermost), by key. */
  readonly userMiddlewares: readonly string[];
  /** The harness parts, outermost first; parts that are off are listed where they would be. */
  readonly parts: readonly HarnessPart[];
}

const described = new WeakMap<Agent, HarnessDescription>();
const HOOKS = ['onAgent', 'onReasoning', 'onModelCall', 'onActing', 'onSystemPrompt'] as const;

/**
 * Builds a working assistant on the core `Agent`: the user's middlewares (outermost), then the
 * harness middlewares in a fixed order, and the file tools. The workspace folder is created
 * with its layout when missing. Every part can be switched off; `describeHarness(agent)` says
 * what was assembled and why.
 *
 * Order (outermost first) and why:
 * 1. `SandboxLifecycleMiddleware` — acquires the sandbox before anything of the reply runs and
 *    releases it after everything inside has torn down.
 * 2. `WorkspaceSnapshotMiddleware` (when on) — restores a resumed session's files before
 *    anything reads them; snapshots after each tool call that may change files.
 * 3. `AtPathExpansionMiddleware` — rewrites the reply's input before any step sees it.
 * 3. `InboxMiddleware` — listens to the session's inbox for the whole reply.
 * 4. `WorkspaceContextMiddleware`, 5. `SkillCuratorMiddleware`, 6. `TodoListMiddleware`,
 *    7. `PlanModeMiddleware` — system prompt sections in this order, the most stable first (the
 *    plan-mode banner last, nearest the conversation); plan mode denies a call before any inner
 *    layer runs it. The skill curator also curates skills at a reply's first step.
 * 8. `SubagentsMiddleware` — binds `agent_spawn` and the task tools to the reply before an inner
 *    layer can send a spawn to the background; lists the declared subagents for the model.
 * 9. `AsyncToolMiddleware` — inside plan mode (a denied call never starts), outside eviction
 *    (a result in time is evicted as usual).
 * 10. `CompactionMiddleware` — summarises before a step is assembled.
 * 11. `ToolResultEvictionMiddleware` — innermost on acting: it replaces the raw result before any
 *    outer layer (or the conversation) sees it.
 *
 * @example
 * ```ts
 * const agent = createHarnessAgent({ ...presets.coding(), name: 'coder', model, workspace: './ws', sandbox: 'local' });
 * agent.reply('Fix the failing test in @test/sum.spec.js').subscribe(render);
 * ```
 */
export function createHarnessAgent(options: HarnessOptions): Agent {
  if (!options || typeof options !== 'object')
    throw new TypeError('createHarnessAgent needs an options object ({ model, workspace, ... }).');
  if (!options.model) throw new TypeError('createHarnessAgent needs a model (options.model).');
  if (options.workspace === undefined && !options.fileSystem) {
    throw new TypeError(
      'createHarnessAgent needs a workspace folder (options.workspace); it is created with its layout when missing.',
    );
  }
  const fs = options.fileSystem ?? new LocalFileSystem(options.workspace!);
  const workspace = options.fileSystem
    ? options.workspace !== undefined
      ? ensureWorkspace(options.workspace)
      : fs.root
    : fs.root;
  const sandbox = sandboxOf(options.sandbox ?? 'none');
  const parts: AssembledPart[] = [];
  const on = <T>(value: T | boolean | undefined, fallback: boolean): value is T | true =>
    value === undefined ? fallback : value !== false;

  parts.push(
    sandbox
      ? {
          part: {
            name: 'SandboxLifecycleMiddleware',
            option: 'sandbox',
            enabled: true,
            reason: `sandbox: ${sandbox.kind} — ${sandbox.description}${options.sandboxLease ? "; a reply first takes the session's sandbox lease (one process at a time)" : ''}`,
          },
          middleware: new SandboxLifecycleMiddleware({
            sandbox,
            workspace,
            ...options.execute,
            ...(options.sandboxLease ? { lease: options.sandboxLease } : {}),
          }),
        }
      : {
          part: {
            name: 'SandboxLifecycleMiddleware',
            option: 'sandbox',
            enabled: false,
            reason: "sandbox: 'none' — the agent has no shell",
          },
        },
  );
  // Right after the sandbox: a resumed session's files are back before @path or any step reads them.
  const snapshot = options.workspaceSnapshot;
  parts.push(
    snapshot
      ? {
          part: {
            name: 'WorkspaceSnapshotMiddleware',
            option: 'workspaceSnapshot',
            enabled: true,
            reason:
              "the workspace's files saved with the session after each tool call that may change them, restored where the session resumes",
          },
          middleware: new WorkspaceSnapshotMiddleware({
            ...(typeof snapshot === 'object' ? snapshot : {}),
            fileSystem: fs,
          }),
        }
      : {
          part: {
            name: 'WorkspaceSnapshotMiddleware',
            option: 'workspaceSnapshot',
            enabled: false,
            reason: 'workspaceSnapshot is not set (the workspace stays on this machine)',
          },
        },
  );
  const atPath = options.atPathExpansion;
  parts.push(
    on(atPath, true)
      ? {
          part: {
            name: 'AtPathExpansionMiddleware',
            option: 'atPathExpansion',
            enabled: true,
            reason: '@path in a user message attaches that workspace file',
          },
          middleware: new AtPathExpansionMiddleware({ ...(typeof atPath === 'object' ? atPath : {}), fileSystem: fs }),
        }
      : {
          part: {
            name: 'AtPathExpansionMiddleware',
            option: 'atPathExpansion',
            enabled: false,
            reason: 'atPathExpansion: false',
          },
        },
  );
  const bus = options.bus ?? new InMemoryMessageBus();
  const tasks = options.tasks ?? new BackgroundTasks({ bus });
  parts.push(inboxPart(options, bus));
  const wsContext = options.workspaceContext;
  parts.push(
    on(wsContext, true)
      ? {
          part: {
            name: 'WorkspaceContextMiddleware',
            option: 'workspaceContext',
            enabled: true,
            reason: 'date, workspace, AGENTS.md, MEMORY.md and knowledge index in the system prompt',
          },
          middleware: new WorkspaceContextMiddleware({
            ...(typeof wsContext === 'object' ? wsContext : {}),
            workspace,
          }),
        }
      : {
          part: {
            name: 'WorkspaceContextMiddleware',
            option: 'workspaceContext',
            enabled: false,
            reason: 'workspaceContext: false',
          },
        },
  );
  parts.push(skillsPart(options, fs));
  const todos = options.todos;
  parts.push(
    on(todos, true)
      ? {
          part: {
            name: 'TodoListMiddleware',
            option: 'todos',
            enabled: true,
            reason: 'write_todos keeps a task list, shown in the prompt and emitted as todos_updated',
          },
          middleware: new TodoListMiddleware(typeof todos === 'object' ? todos : {}),
        }
      : { part: { name: 'TodoListMiddleware', option: 'todos', enabled: false, reason: 'todos: false' } },
  );
  parts.push(
    options.planMode === true
      ? {
          part: {
            name: 'PlanModeMiddleware',
            option: 'planMode',
            enabled: true,
            reason: 'plan_enter/plan_write/plan_exit; non-read-only tools denied while planning',
          },
          middleware: new PlanModeMiddleware({ fileSystem: fs }),
        }
      : { part: { name: 'PlanModeMiddleware', option: 'planMode', enabled: false, reason: 'planMode is not true' } },
  );
  // Subagents before (outside) the background tool calls: a spawn is bound to its reply first, then may go to the background.
  const subagentsAt = parts.length;
  parts.push(asyncToolPart(options, tasks));
  const compaction = options.compaction;
  parts.push(
    on(compaction, true)
      ? (() => {
          const middleware = new CompactionMiddleware({
            ...(typeof compaction === 'object' ? compaction : {}),
            fileSystem: fs,
          });
          const c = typeof compaction === 'object' ? compaction : {};
          const trigger =
            c.triggerTokens !== undefined
              ? `over ${c.triggerTokens.toLocaleString('en-US')} tokens`
              : c.contextWindow !== undefined
                ? `over 80% of a ${c.contextWindow.toLocaleString('en-US')}-token context window`
                : `over ${middleware.triggerFor(options.model).toLocaleString('en-US')} tokens (from the model's context window when known)`;
          const reason = `older messages summarised ${trigger}${c.triggerMessages !== undefined ? ` or ${c.triggerMessages} messages` : ''}`;
          return { part: { name: 'CompactionMiddleware', option: 'compaction', enabled: true, reason }, middleware };
        })()
      : { part: { name: 'CompactionMiddleware', option: 'compaction', enabled: false, reason: 'compaction: false' } },
  );
  const eviction = options.toolResultEviction;
  parts.push(
    on(eviction, true)
      ? (() => {
          const middleware = new ToolResultEvictionMiddleware({
            ...(typeof eviction === 'object' ? eviction : {}),
            fileSystem: fs,
          });
          return {
            part: {
              name: 'ToolResultEvictionMiddleware',
              option: 'toolResultEviction',
              enabled: true,
              reason: `results over ${middleware.maxResultChars.toLocaleString('en-US')} characters go to large_tool_results/`,
            },
            middleware,
          };
        })()
      : {
          part: {
            name: 'ToolResultEvictionMiddleware',
            option: 'toolResultEviction',
            enabled: false,
            reason: 'toolResultEviction: false',
          },
        },
  );
  // Subagents borrow the sandbox lifecycle (their own sandbox per reply, so they have execute), the
  // workspace context (AGENTS.md and the rest in their prompt) and eviction.
  const lentKinds = [SandboxLifecycleMiddleware, WorkspaceContextMiddleware, ToolResultEvictionMiddleware];
  const lent = parts.filter((p) => lentKinds.some((kind) => p.middleware instanceof kind)).map((p) => p.middleware!);
  parts.splice(subagentsAt, 0, subagentsPart(options, fs, tasks, lent));
  const fileTools = options.fileTools ?? true;
  const reading = [
    readFileTool(fs, options.readFile),
    listFilesTool(fs),
    globFilesTool(fs),
    grepFilesTool(fs, options.grepFiles),
  ];
  const tools =
    fileTools === false
      ? []
      : fileTools === 'read-only'
        ? reading
        : [...reading, writeFileTool(fs), editFileTool(fs, options.editFile)];
  parts.push({
    part: {
      name: 'file tools',
      option: 'fileTools',
      enabled: tools.length > 0,
      reason:
        fileTools === false
          ? 'fileTools: false'
          : fileTools === 'read-only'
            ? 'read-only file tools'
            : 'all file tools, confined to the workspace',
    },
    tools,
  });
  parts.push(...memoryParts(options.memory, fs));

  const {
    workspace: _w,
    fileSystem: _f,
    fileTools: _ft,
    readFile: _rf,
    editFile: _ef,
    grepFiles: _gf,
    sandbox: _s,
    execute: _e,
    compaction: _c,
    toolResultEviction: _t,
    planMode: _p,
    todos: _td,
    workspaceContext: _wc,
    atPathExpansion: _a,
    memory: _m,
    bus: _b,
    inbox: _i,
    asyncTools: _at,
    subagents: _sa,
    tasks: _tk,
    skills: _sk,
    sandboxLease: _sl,
    workspaceSnapshot: _ws,
    ...agentOptions
  } = options;
  const harnessMiddlewares = parts.flatMap((p) => (p.middleware ? [p.middleware] : []));
  const agent = new Agent({
    ...agentOptions,
    model: options.model,
    // The file tools and the memory tools: the parts with tools and no middleware.
    tools: [...(options.tools ?? []), ...parts.flatMap((p) => (p.middleware ? [] : (p.tools ?? [])))],
    middlewares: [...(options.middlewares ?? []), ...harnessMiddlewares],
  });
  described.set(agent, {
    workspace,
    sandbox: sandbox?.kind ?? 'none',
    userMiddlewares: (options.middlewares ?? []).map((m) => m.key ?? m.constructor?.name ?? 'middleware'),
    parts: parts.map(({ part, middleware, tools: partTools }) => ({
      ...part,
      hooks: middleware ? HOOKS.filter((h) => typeof middleware[h] === 'function') : [],
      tools: (middleware?.tools?.() ?? partTools ?? []).map((t) => t.name),
    })),
  });
  return agent;
}

/**
 * What `createHarnessAgent` assembled for `agent`: the workspace, the sandbox, the user's
 * middlewares and the harness parts in chain order (outermost first), each with why it is on
 * or off, its hooks and its tools. Throws for an agent not built by `createHarnessAgent`.
 *
 * @example
 * ```ts
 * for (const p of describeHarness(agent).parts) console.log(`${p.enabled ? 'on ' : 'off'} ${p.name}: ${p.reason}`);
 * ```
 */
export function describeHarness(agent: Agent): HarnessDescription {
  const description = described.get(agent);
  if (!description)
    throw new TypeError(
      `Agent "${agent?.name}" was not built by createHarnessAgent; describeHarness knows only those.`,
    );
  return description;
}

function sandboxOf(choice: SandboxChoice): Sandbox | undefined {
  if (choice === 'none') return undefined;
  if (choice === 'local') return new LocalSandbox();
  if (choice === 'bubblewrap') return new BubblewrapSandbox();
  if (choice && typeof choice === 'object' && typeof choice.acquire === 'function') return choice;
  throw new TypeError(
    `sandbox must be 'none', 'local', 'bubblewrap' or a Sandbox object, got ${JSON.stringify(choice)}.`,
  );
}
