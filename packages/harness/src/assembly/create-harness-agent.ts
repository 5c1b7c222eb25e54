import { Agent, checkOptionKeys, type Middleware } from '@rxscope/core';
import { InMemoryMessageBus } from '../bus/index.js';
import type { AssembledPart, HarnessEnv } from '../harness-part.js';
import { BackgroundTasks } from '../tasks/index.js';
import { ensureWorkspace, LocalFileSystem } from '../workspace/index.js';
import { recordHarness } from './describe-harness.js';
import { HarnessOptionError } from '../options/index.js';
import { agentOptionsOf, ALL_HARNESS_AGENT_KEYS } from './harness-option-keys.js';
import type { HarnessOptions } from './harness-options.js';
import { HARNESS_PARTS } from './harness-parts.js';

export type { HarnessPart } from '../harness-part.js';
export { describeHarness, type HarnessDescription } from './describe-harness.js';

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
 * 4. `InboxMiddleware` — listens to the session's inbox for the whole reply.
 * 5. `WorkspaceContextMiddleware`, 6. `SkillCuratorMiddleware`, 7. `TodoListMiddleware`,
 *    8. `PlanModeMiddleware` — system prompt sections in this order, the most stable first (the
 *    plan-mode banner last, nearest the conversation); plan mode denies a call before any inner
 *    layer runs it. The skill curator also curates skills at a reply's first step.
 * 9. `SubagentsMiddleware` — binds `agent_spawn` and the task tools to the reply before an inner
 *    layer can send a spawn to the background; lists the declared subagents for the model.
 * 10. `AsyncToolMiddleware` — inside plan mode (a denied call never starts), outside eviction
 *    (a result in time is evicted as usual).
 * 11. `CompactionMiddleware` — summarises before a step is assembled.
 * 12. `ToolResultEvictionMiddleware` — innermost on acting: it replaces the raw result before any
 *    outer layer (or the conversation) sees it.
 *
 * @example
 * ```ts
 * const agent = createHarnessAgent({ ...presets.coding(), name: 'coder', model, workspace: './ws', sandbox: 'local' });
 * agent.reply('Fix the failing test in @test/sum.spec.js').subscribe(render);
 * ```
 */
export function createHarnessAgent(options: HarnessOptions): Agent {
  checkRequired(options);
  const fileSystem = options.fileSystem ?? new LocalFileSystem(options.workspace!);
  const workspace =
    options.fileSystem && options.workspace !== undefined ? ensureWorkspace(options.workspace) : fileSystem.root;
  const bus = options.bus ?? new InMemoryMessageBus();
  const env: HarnessEnv = {
    fileSystem,
    workspace,
    bus,
    tasks: options.tasks ?? new BackgroundTasks({ bus }),
    lent: [],
  };

  // Parts that borrow (subagents) are built last, with the middlewares the others lend them.
  const built = new Map<(typeof HARNESS_PARTS)[number], readonly AssembledPart[]>();
  const build = (part: (typeof HARNESS_PARTS)[number], partEnv: HarnessEnv) => {
    const made = part.build(options, partEnv);
    built.set(part, Array.isArray(made) ? made : [made as AssembledPart]);
  };
  for (const part of HARNESS_PARTS) if (!('borrows' in part)) build(part, env);
  const lent = HARNESS_PARTS.flatMap((part) =>
    'lends' in part ? built.get(part)!.flatMap((p): Middleware[] => (p.middleware ? [p.middleware] : [])) : [],
  );
  for (const part of HARNESS_PARTS) if ('borrows' in part) build(part, { ...env, lent });
  const parts = HARNESS_PARTS.flatMap((part) => built.get(part)!);

  const agent = new Agent({
    ...agentOptionsOf(options),
    model: options.model,
    // The file tools and the memory tools: the parts with tools and no middleware.
    tools: [...(options.tools ?? []), ...parts.flatMap((p) => (p.middleware ? [] : (p.tools ?? [])))],
    middlewares: [...(options.middlewares ?? []), ...parts.flatMap((p) => (p.middleware ? [p.middleware] : []))],
  });
  recordHarness(agent, {
    workspace,
    sandbox: sandboxKindOf(options.sandbox),
    userMiddlewares: (options.middlewares ?? []).map((m) => m.key ?? m.constructor?.name ?? 'middleware'),
    parts,
  });
  return agent;
}

function checkRequired(
  options: HarnessOptions,
): asserts options is HarnessOptions & { readonly model: NonNullable<HarnessOptions['model']> } {
  const refuse = (key: string, message: string) =>
    new HarnessOptionError('invalid_option', `createHarnessAgent.${key}`, message);
  if (!options || typeof options !== 'object' || Array.isArray(options))
    throw refuse('options', 'createHarnessAgent needs an options object ({ model, workspace, ... }).');
  checkOptionKeys('createHarnessAgent', options, ALL_HARNESS_AGENT_KEYS, {
    error: (code, option, message) => new HarnessOptionError(code, option, message),
  });
  if (!options.model) throw refuse('model', 'createHarnessAgent needs a model (options.model).');
  if (options.workspace === undefined && !options.fileSystem) {
    throw refuse(
      'workspace',
      'createHarnessAgent needs a workspace folder (options.workspace); it is created with its layout when missing.',
    );
  }
}

function sandboxKindOf(choice: HarnessOptions['sandbox']): string {
  return typeof choice === 'object' && choice !== null ? choice.kind : (choice ?? 'none');
}
