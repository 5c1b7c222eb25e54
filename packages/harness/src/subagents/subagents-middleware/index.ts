/**
 * `SubagentsMiddleware` (`onActing`): the agent hands self-contained tasks to subagents, each an
 * agent of its own built on the core's `agent.asTool()`:
 *
 * - `agent_spawn {name?, task, background?}` runs a subagent declared in `subagents/<name>.md`
 *   (front matter `name`, `description`, `tools`, `model`; the body is its system prompt) or,
 *   without a name, a general-purpose one with the parent's tools. Its context is isolated: a
 *   fresh conversation holding only the task. Its events stream through the parent's reply with
 *   `source` set to its name, its final answer is the tool result, and cancelling the parent's
 *   reply cancels it.
 * - `background: true` returns a task id at once; the subagent runs on and its report arrives
 *   later through the session's inbox (`InboxMiddleware`), in the running reply or the next one.
 *   Its events go to `tasks.events(sessionId)`. Cancelling or interrupting the parent's reply
 *   cancels it too; a reply that completes leaves it running.
 * - `agent_send {task_id, message}` sends a background subagent a message (through its
 *   `agent.send()`: it reads it before its next step); `task_output {task_id}` says how a task
 *   stands and gives its result; `task_cancel {task_id}` stops it. The task tools also reach tool
 *   calls that `AsyncToolMiddleware` sent to the background.
 * - The model finds the declared subagents (name and description) in `agent_spawn`'s
 *   description, read from the workspace once per reply.
 * - With a `taskQueue` (such as `SubagentJobQueue` of `@rxscope/harness/bullmq`), a background
 *   subagent is enqueued instead: a worker process that builds the session's agent the same way
 *   runs it, and its report arrives in the session's inbox through the message bus. The task
 *   tools read and stop it through the queue, from any process.
 * - Nesting is bounded: a subagent may spawn its own only while its level is below `maxDepth`
 *   (default 2), and only in the foreground.
 *
 * @example
 * ```ts
 * const bus = new InMemoryMessageBus();
 * const tasks = new BackgroundTasks({ bus });
 * const agent = new Agent({
 *   name: 'lead', model, tools: [readFileTool(fs)],
 *   middlewares: [new InboxMiddleware({ bus }), new SubagentsMiddleware({ fileSystem: fs, tasks, models: { small } })],
 * });
 * // the model calls agent_spawn {name: 'reviewer', task: 'Review src/parser.ts for bugs.'}
 * ```
 *
 * @module
 */
import { defer, from, map, type Observable, type ObservableInput, of, switchMap, toArray } from 'rxjs';
import {
  type ActingInput,
  type Agent,
  type AgentHandle,
  type AgentEvent,
  type ChatModel,
  ContextToken,
  type Middleware,
  newId,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  type Tool,
  type ToolContext,
  type ToolOutput,
  optionKeys,
} from '@rxscope/core';
import type { PermissionState } from '@rxscope/core';
import type { BackgroundTasks, TaskInfo } from '../../tasks/index.js';
import type { SubagentTaskQueue } from '../subagent-task-queue.js';
import { GENERAL_PURPOSE, loadSubagent, type SubagentDefinition } from '../subagent-definition.js';
import type { WorkspaceFileSystem } from '../../workspace/index.js';
import { subagentCatalogue, withCatalogue } from './catalogue.js';
import { describeTask } from './describe-task.js';
import { checkRemoteSubagents, remoteCatalogue, spawnRemote } from './remote-subagents.js';
import { buildSubagent } from './spawn.js';
import { SUBAGENT_TOOL_NAMES, subagentTools } from './subagent-tools.js';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/**
 * Options of {@link SubagentsMiddleware}.
 *
 * @example
 * ```ts
 * new SubagentsMiddleware({ fileSystem: fs, tasks, models: { small: cheapModel }, maxDepth: 1, generalPurpose: false });
 * ```
 */
export interface SubagentsOptions {
  /** The workspace, whose `subagents/<name>.md` declare subagents. */
  readonly fileSystem: WorkspaceFileSystem;
  /** Background subagents and the task tools (`background: true` needs them, and the inbox on their bus). */
  readonly tasks?: BackgroundTasks;
  /**
   * Background subagents go to this queue instead of running in this process (workers elsewhere
   * run them; see `SubagentJobQueue` in `@rxscope/harness/bullmq`). Tool calls that
   * `AsyncToolMiddleware` sends to the background stay in `tasks`.
   */
  readonly taskQueue?: SubagentTaskQueue;
  /** Models a subagent's front matter may name (`model: small`). Default none: the parent's model. */
  readonly models?: Readonly<Record<string, ChatModel>>;
  /** Middlewares every subagent gets, such as a sandbox lifecycle so it has `execute`. Default none. */
  readonly middlewares?: readonly Middleware[];
  /** Allow `agent_spawn` without a name (a general-purpose subagent). Default true. */
  readonly generalPurpose?: boolean;
  /** Levels of subagents below the main agent. Default 2. */
  readonly maxDepth?: number;
  /** `maxIters` of each subagent. Default 20. */
  readonly maxIters?: number;
  /** The level of the agent this middleware serves: 0 for the main agent (set for nested subagents). */
  readonly depth?: number;
  /**
   * Subagents that run elsewhere, by name: a tool taking `{message}` that `agent_spawn {name,
   * task}` calls with the task, such as a remote A2A agent (`a2aAgentTool` of
   * `@rxscope/middleware-builtin/a2a`). Listed for the model with the declared ones.
   */
  readonly remote?: Readonly<Record<string, Tool>>;
}

/** The declared subagents, read once per reply. */
const CATALOGUE = new ContextToken<Promise<string> | undefined>('harness.subagentCatalogue', () => undefined);

interface SpawnInput {
  readonly name?: string;
  readonly task: string;
  readonly background?: boolean;
}

// Every option, typed against SubagentsOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<SubagentsOptions>({
  fileSystem: true,
  tasks: true,
  taskQueue: true,
  models: true,
  middlewares: true,
  generalPurpose: true,
  maxDepth: true,
  maxIters: true,
  depth: true,
  remote: true,
});

/** See the module documentation. */
export class SubagentsMiddleware implements Middleware {
  readonly key = 'SubagentsMiddleware';
  readonly depth: number;
  readonly maxDepth: number;
  private readonly ownTools = subagentTools();
  private nestedLevel: SubagentsMiddleware | undefined;

  constructor(private readonly options: SubagentsOptions) {
    refuseUnknownOptions('SubagentsMiddleware', options, OPTION_KEYS);
    if (!options?.fileSystem)
      throw new HarnessOptionError(
        'invalid_option',
        'SubagentsMiddleware.fileSystem',
        'SubagentsMiddleware needs the workspace (options.fileSystem).',
      );
    checkRemoteSubagents(options.remote);
    this.depth = options.depth ?? 0;
    this.maxDepth = options.maxDepth ?? 2;
    if (!Number.isInteger(this.maxDepth) || this.maxDepth < 1)
      throw new HarnessOptionError(
        'invalid_option',
        'SubagentsMiddleware.maxDepth',
        `SubagentsMiddleware: maxDepth must be an integer of at least 1, got ${options.maxDepth}.`,
      );
  }

  tools(): readonly Tool[] {
    return this.ownTools;
  }

  /** The model reads the declared subagents in `agent_spawn`'s description (read once per reply). */
  onReasoning(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    const spawn = input.tools.find((t) => t.name === 'agent_spawn');
    if (!spawn) return next(input);
    return defer(() => {
      let catalogue = ctx.get(CATALOGUE);
      if (!catalogue) {
        const remote = remoteCatalogue(this.options.remote);
        catalogue = subagentCatalogue(this.options.fileSystem)
          .catch(() => '')
          .then((local) => [local, remote].filter(Boolean).join('\n'));
        ctx.set(CATALOGUE, catalogue);
      }
      return from(catalogue);
    }).pipe(
      switchMap((text) =>
        next(text ? { ...input, tools: input.tools.map((t) => (t === spawn ? withCatalogue(t, text) : t)) } : input),
      ),
    );
  }

  onActing(
    agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    const tool = input.tool;
    // By name: an outer layer may have passed a copy of the tool.
    if (!SUBAGENT_TOOL_NAMES.includes(tool.name)) return next(input);
    const execute = (args: unknown, toolCtx: ToolContext): ObservableInput<ToolOutput> => {
      if (tool.name === 'agent_spawn') return this.spawn(agent, ctx, args as SpawnInput, toolCtx);
      const { task_id, message } = args as { task_id: string; message?: string };
      return defer(() => this.taskTool(tool.name, ctx.sessionId, task_id, message ?? ''));
    };
    return next({ ...input, tool: { ...tool, execute } });
  }

  /**
   * The subagent `agent_spawn {name}` would start for `parent` (a general-purpose one without a
   * name): what a worker process runs for a task of a {@link SubagentTaskQueue}, built from this
   * middleware's workspace, models and middlewares. Rejects with what is wrong with the definition.
   *
   * @example
   * ```ts
   * const sub = await subagents.createSubagent(parentAgent, 'reviewer');
   * const report = await sub.call('Review src/parser.ts.');
   * ```
   */
  async createSubagent(
    parent: AgentHandle,
    name?: string,
    options: { readonly permissions?: PermissionState } = {},
  ): Promise<Agent> {
    return this.build(parent, await this.definition(name), options.permissions);
  }

  /** One spawn: the subagent in the foreground (through `asTool`), a background task, or a queued task. */
  private spawn(
    agent: AgentHandle,
    ctx: RuntimeContext,
    input: SpawnInput,
    toolCtx: ToolContext,
  ): Observable<ToolOutput> {
    const remote = this.options.remote?.[input.name?.trim() ?? ''];
    if (remote) return spawnRemote(remote, input, toolCtx);
    return defer(() => from(this.definition(input.name))).pipe(
      switchMap((def) => {
        if (input.background && (this.depth > 0 || (!this.options.tasks && !this.options.taskQueue))) {
          throw new Error(
            this.depth > 0
              ? 'A subagent cannot start background subagents; spawn without background.'
              : 'Background subagents are not available here (no background tasks); spawn without background.',
          );
        }
        // A queued subagent is built by the worker that runs it.
        if (input.background && this.options.taskQueue) return from(this.enqueue(agent, ctx, def, input));
        const sub = this.build(agent, def);
        const asTool = sub.asTool({ name: 'agent_spawn', description: def.description || def.name });
        if (!input.background)
          return from(asTool.execute!({ message: input.task }, toolCtx) as ObservableInput<ToolOutput>);
        return of(this.background(agent, ctx, sub, asTool, input.task));
      }),
    );
  }

  private build(parent: AgentHandle, def: SubagentDefinition, permissions?: PermissionState): Agent {
    return buildSubagent(def, {
      parent,
      models: this.options.models ?? {},
      middlewares: this.options.middlewares ?? [],
      nested: this.depth + 1 < this.maxDepth ? this.nested() : undefined,
      maxIters: this.options.maxIters ?? 20,
      ...(permissions ? { permissions } : {}),
    });
  }

  /** Hands a background subagent to the task queue and returns what the model is told. */
  private async enqueue(
    agent: AgentHandle,
    ctx: RuntimeContext,
    def: SubagentDefinition,
    input: SpawnInput,
  ): Promise<string> {
    const queue = this.options.taskQueue!;
    const taskId = newId('task');
    const name = input.name?.trim();
    await queue.enqueue({
      taskId,
      sessionId: ctx.sessionId,
      parent: agent.name,
      task: input.task,
      permissions: agent.permissions.state,
      ...(name ? { name } : {}),
    });
    // Cancelling or interrupting the parent's reply cancels its background subagents too; a
    // shutdown of the parent's process does not (the task is in the queue, its report in the inbox).
    const sessionId = ctx.sessionId;
    ctx.signal.addEventListener(
      'abort',
      () => {
        if (agent.shuttingDown) return;
        void queue.cancel(sessionId, taskId, 'the reply that started it was cancelled').catch(() => undefined);
      },
      { once: true },
    );
    return (
      `Queued subagent "${def.name}" in the background as task ${taskId}; a worker runs it. Its report will arrive later as a message from "task ${taskId}". ` +
      'Go on with other work meanwhile; agent_send gives it more instructions, task_output shows how it stands, task_cancel stops it.'
    );
  }

  /** `agent_send`, `task_output` and `task_cancel`: a task of this process, else one of the task queue. */
  private async taskTool(tool: string, sessionId: string, id: string, message: string): Promise<string> {
    const local = this.options.tasks?.get(sessionId, id);
    const queue = this.options.taskQueue;
    if (!this.options.tasks && !queue) throw new Error('There are no background tasks here.');
    const queued = !local && queue ? await queue.get(sessionId, id) : undefined;
    if (!local && !queued) throw new Error(this.notRunning(sessionId, id, undefined));
    switch (tool) {
      case 'agent_send': {
        const refused = local
          ? this.options.tasks!.send(sessionId, id, message)
          : queued!.status === 'queued' || queued!.status === 'running'
            ? await queue!.send(sessionId, id, message)
            : `Task ${id} has ended (${queued!.status}); it takes no more messages.`;
        if (refused) throw new Error(refused);
        return `Sent to task ${id}; it reads the message before its next step.`;
      }
      case 'task_output':
        return describeTask(local ?? queued!);
      default: {
        const cancelled = local
          ? this.options.tasks!.cancel(sessionId, id, 'cancelled with task_cancel')
          : await queue!.cancel(sessionId, id, 'cancelled with task_cancel');
        if (!cancelled)
          throw new Error(this.notRunning(sessionId, id, local ? this.options.tasks!.get(sessionId, id) : queued));
        return `Task ${id} is cancelled; its result will not arrive.`;
      }
    }
  }

  /** Starts a background subagent and returns what the model is told. */
  private background(agent: AgentHandle, ctx: RuntimeContext, sub: Agent, asTool: Tool, task: string): string {
    const tasks = this.options.tasks!;
    const id = newId('task');
    const controller = new AbortController();
    const taskCtx: ToolContext = {
      signal: controller.signal,
      callId: id,
      idempotencyKey: id,
      agentName: agent.name,
      replyId: ctx.replyId,
      ...(ctx.userId !== undefined ? { userId: ctx.userId } : {}),
      emit: () => undefined,
      forward: (event) => tasks.publish(ctx.sessionId, id, event),
    };
    const run = defer(() => from(asTool.execute!({ message: task }, taskCtx) as ObservableInput<ToolOutput>)).pipe(
      toArray(),
      map((values) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('')),
    );
    let stop: () => void = () => undefined;
    const done = new Promise<string>((resolve, reject) => {
      const subscription = run.subscribe({ next: resolve, error: reject });
      stop = () => {
        controller.abort(new Error('the task was cancelled'));
        subscription.unsubscribe();
      };
    });
    tasks.track({
      id,
      sessionId: ctx.sessionId,
      kind: 'subagent',
      name: sub.name,
      done,
      cancel: () => stop(),
      send: (m) => sub.send(m),
    });
    // Cancelling or interrupting the parent's reply cancels its background subagents too.
    ctx.signal.addEventListener(
      'abort',
      () => tasks.cancel(ctx.sessionId, id, 'the reply that started it was cancelled'),
      { once: true },
    );
    return (
      `Started subagent "${sub.name}" in the background as task ${id}. Its report will arrive later as a message from "task ${id}". ` +
      'Go on with other work meanwhile; agent_send gives it more instructions, task_output shows how it stands, task_cancel stops it.'
    );
  }

  private async definition(name: string | undefined): Promise<SubagentDefinition> {
    if (name !== undefined && name.trim() !== '') return loadSubagent(this.options.fileSystem, name.trim());
    if (this.options.generalPurpose === false)
      throw new Error('Name a declared subagent (subagents/<name>.md); general-purpose subagents are switched off.');
    return GENERAL_PURPOSE;
  }

  private nested(): SubagentsMiddleware {
    this.nestedLevel ??= new SubagentsMiddleware({ ...this.options, depth: this.depth + 1 });
    return this.nestedLevel;
  }

  private notRunning(sessionId: string, id: string, info: TaskInfo | undefined): string {
    if (info) return `Task ${id} has already ended (${info.status}).`;
    const known = this.options.tasks?.list(sessionId).map((t) => `${t.id} (${t.name}, ${t.status})`) ?? [];
    return `There is no task "${id}". ${known.length ? `Tasks of this session: ${known.join(', ')}.` : 'This session has no tasks in this process.'}`;
  }
}

export { SUBAGENT_TOOL_NAMES };
