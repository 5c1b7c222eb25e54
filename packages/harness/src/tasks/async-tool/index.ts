/**
 * `AsyncToolMiddleware` (`onActing`): a tool call still running after `timeoutMs` gets a
 * placeholder result at once — the reply's loop goes on — and continues in the background as a
 * task. Its real result is pushed to the session's inbox when it is ready, so it joins the
 * running reply's next model request through `InboxMiddleware`, or the next reply when the reply
 * ended first. The placeholder names the task id (and `task_output`/`task_cancel` when the agent
 * has them); the late result arrives as a message from `task <id>`.
 *
 * Before the timeout the call is an ordinary one: its output and progress stream through the
 * reply, and cancelling the reply cancels it. Once in the background it no longer belongs to
 * the reply: it runs on with its own abort signal until it ends or its task is cancelled.
 *
 * @example
 * ```ts
 * const bus = new InMemoryMessageBus();
 * const tasks = new BackgroundTasks({ bus });
 * const agent = new Agent({
 *   model, tools: [runTests],
 *   middlewares: [new InboxMiddleware({ bus }), new AsyncToolMiddleware({ tasks, timeoutMs: 30_000 })],
 * });
 * ```
 *
 * @module
 */
import {
  concat,
  defer,
  EMPTY,
  filter,
  from,
  type Observable,
  ReplaySubject,
  type SchedulerLike,
  switchMap,
  take,
  takeUntil,
  tap,
  timer,
  asyncScheduler,
} from 'rxjs';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type Middleware,
  newId,
  type Next,
  type RuntimeContext,
  type Tool,
  optionKeys,
} from '@rxscope/core';
import type { BackgroundTasks } from '../background-tasks.js';
import { DetachableRun } from './detachable-run.js';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/**
 * The tools that manage background work: never sent to the background themselves.
 *
 * @example
 * ```ts
 * new AsyncToolMiddleware({ tasks, exclude: [...TASK_TOOL_NAMES, 'write_file'] });
 * ```
 */
export const TASK_TOOL_NAMES: readonly string[] = ['task_output', 'task_cancel', 'agent_send'];

/**
 * Options of {@link AsyncToolMiddleware}.
 *
 * @example
 * ```ts
 * new AsyncToolMiddleware({ tasks, timeoutMs: 30_000, tools: ['execute', 'web_crawl'] });
 * ```
 */
export interface AsyncToolOptions {
  /** Where background calls are followed and their results delivered (to the inbox of its bus). */
  readonly tasks: BackgroundTasks;
  /** A call still running after this long goes to the background. Default 60,000 ms. */
  readonly timeoutMs?: number;
  /** Only these tools may go to the background. Default: every tool but `exclude`. */
  readonly tools?: readonly string[];
  /** Tools that always run to the end in the reply. Default {@link TASK_TOOL_NAMES}. */
  readonly exclude?: readonly string[];
  /** Scheduler of the timeout (virtual time in tests). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

// Every option, typed against AsyncToolOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<AsyncToolOptions>({
  tasks: true,
  timeoutMs: true,
  tools: true,
  exclude: true,
  scheduler: true,
});

/** See the module documentation. */
export class AsyncToolMiddleware implements Middleware {
  readonly key = 'AsyncToolMiddleware';
  readonly timeoutMs: number;
  private readonly tasks: BackgroundTasks;
  private readonly only: ReadonlySet<string> | undefined;
  private readonly exclude: ReadonlySet<string>;
  private readonly scheduler: SchedulerLike;

  constructor(options: AsyncToolOptions) {
    refuseUnknownOptions('AsyncToolMiddleware', options, OPTION_KEYS);
    if (!options?.tasks || typeof options.tasks.track !== 'function') {
      throw new HarnessOptionError(
        'invalid_option',
        'AsyncToolMiddleware.tasks',
        'AsyncToolMiddleware needs the background tasks (options.tasks: new BackgroundTasks({ bus })).',
      );
    }
    this.tasks = options.tasks;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    if (!(this.timeoutMs > 0))
      throw new HarnessOptionError(
        'invalid_option',
        'AsyncToolMiddleware.timeoutMs',
        `AsyncToolMiddleware: timeoutMs must be a positive number of milliseconds, got ${options.timeoutMs}.`,
      );
    this.only = options.tools ? new Set(options.tools) : undefined;
    this.exclude = new Set(options.exclude ?? TASK_TOOL_NAMES);
    this.scheduler = options.scheduler ?? asyncScheduler;
  }

  onActing(
    agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    const tool = input.tool;
    if (!tool.execute || this.exclude.has(tool.name) || (this.only && !this.only.has(tool.name))) return next(input);
    return defer(() => {
      const callId = input.toolCall.id;
      let run: DetachableRun | undefined;
      const started = new ReplaySubject<DetachableRun>(1);
      // The tool runs where the inner layers run it (sandbox, eviction and the rest apply); only its execution is ours.
      const wrapped: Tool = {
        ...tool,
        execute: (args, toolCtx) => {
          run = new DetachableRun(tool, args, toolCtx);
          started.next(run);
          return run.observe();
        },
      };
      let openBlock: string | undefined;
      let answered = false;
      let detached: DetachableRun | undefined;
      // The clock starts when the tool starts (not while outer layers wait, e.g. for a sandbox).
      const timedOut = started.pipe(
        switchMap((r) => timer(this.timeoutMs, this.scheduler).pipe(filter(() => !r.finished && !answered))),
        take(1),
        tap(() => {
          detached = run!;
          detached.detach();
        }),
      );
      const inner = next({ ...input, tool: wrapped }).pipe(
        tap((e) => {
          if (e.type === 'TOOL_RESULT_START' && e.toolCallId === callId) openBlock = e.blockId;
          else if (e.type === 'TOOL_RESULT_END' && e.toolCallId === callId) answered = true;
        }),
        takeUntil(timedOut),
      );
      return concat(
        inner,
        defer(() => (answered || !detached ? EMPTY : from(this.placeholder(agent, ctx, input, detached, openBlock)))),
      );
    });
  }

  /** The events of the placeholder result, with the call now a background task. */
  private placeholder(
    agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    run: DetachableRun,
    openBlock: string | undefined,
  ): AgentEvent[] {
    const { toolCall, tool } = input;
    const task = this.tasks.track({
      sessionId: ctx.sessionId,
      kind: 'tool',
      name: tool.name,
      done: run.done,
      cancel: (reason) => run.cancel(reason),
    });
    const manage = agent.tools.some((t) => t.name === 'task_output')
      ? `; task_output {task_id: "${task.id}"} shows how it stands${agent.tools.some((t) => t.name === 'task_cancel') ? ' and task_cancel stops it' : ''}`
      : '';
    const text =
      `Tool "${tool.name}" is still running after ${formatMs(this.timeoutMs)}, so it goes on in the background as task ${task.id}. ` +
      `Its result will arrive later as a message from "task ${task.id}"; do not call it again for the same work. ` +
      `Meanwhile go on with what does not depend on it${manage}.`;
    const blockId = openBlock ?? newId('blk');
    const end = ctx.event('TOOL_RESULT_END', {
      blockId,
      toolCallId: toolCall.id,
      status: 'success',
      output: [{ type: 'text', text }],
    });
    const backgrounded = ctx.event('CUSTOM', {
      name: 'tool_call_backgrounded',
      value: { toolCallId: toolCall.id, name: tool.name, taskId: task.id },
    });
    return openBlock
      ? [end, backgrounded]
      : [ctx.event('TOOL_RESULT_START', { blockId, toolCallId: toolCall.id, name: tool.name }), end, backgrounded];
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
