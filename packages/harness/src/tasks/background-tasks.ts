import { type AgentEvent, newId, optionKeys } from '@rxscope/core';
import type { Observable } from 'rxjs';
import type { MessageBus } from '../bus/index.js';
import { type InboxMessage, pushToInbox } from '../inbox/index.js';
import { HarnessOptionError, refuseUnknownOptions } from '../options/index.js';

/** Where a background task stands (`queued`: a task on a task queue that waits for a worker). */
export type TaskStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * What `task_output` and {@link BackgroundTasks.get} tell about a background task.
 *
 * @example
 * ```ts
 * for (const t of tasks.list(sessionId)) console.log(t.id, t.kind, t.name, t.status);
 * ```
 */
export interface TaskInfo {
  /** `task_...`: the id the agent passes to `task_output`, `task_cancel` and `agent_send`. */
  readonly id: string;
  /** The session whose reply started it; its result goes to that session's inbox. */
  readonly sessionId: string;
  /** A tool call that outlived its timeout, or a subagent. */
  readonly kind: 'tool' | 'subagent';
  /** The tool's or the subagent's name. */
  readonly name: string;
  readonly status: TaskStatus;
  readonly startedAt: number;
  readonly endedAt?: number;
  /** The result (completed), or what went wrong (failed). */
  readonly result?: string;
}

/**
 * A task handed to {@link BackgroundTasks.track}.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * tasks.track({ sessionId, kind: 'tool', name: 'crawl', done: crawl(controller.signal), cancel: () => controller.abort() });
 * ```
 */
export interface TrackedTask {
  readonly sessionId: string;
  readonly kind: 'tool' | 'subagent';
  readonly name: string;
  /** Settles with the result text, or rejects with what went wrong. */
  readonly done: Promise<string>;
  /** Stops the work (`task_cancel`). */
  readonly cancel: (reason: string) => void;
  /** Passes a message to the running work (`agent_send`), when it can take one. */
  readonly send?: (message: string) => void;
  /** A chosen id (default a new `task_...` id). */
  readonly id?: string;
}

/**
 * An event of a background task (a background subagent's reply), as {@link BackgroundTasks.events} delivers it.
 *
 * @example
 * ```ts
 * tasks.events(sessionId).subscribe(({ taskId, event }: TaskEvent) => log(taskId, event.source, event.type));
 * ```
 */
export interface TaskEvent {
  readonly taskId: string;
  readonly event: AgentEvent;
}

/**
 * Options of {@link BackgroundTasks}.
 *
 * @example
 * ```ts
 * const tasks = new BackgroundTasks({ bus, maxResultChars: 10_000, onError: (e, what) => logger.warn(what, e) });
 * ```
 */
export interface BackgroundTasksOptions {
  /** The bus whose inbox (`inbox:<sessionId>`) receives each result. */
  readonly bus: MessageBus;
  /** A result that could not be delivered. Default: `console.error`. */
  readonly onError?: (error: unknown, what: string) => void;
  /** Results longer than this are cut (head and tail kept) in the inbox message. Default 20,000. */
  readonly maxResultChars?: number;
  /** Finished tasks remembered for `task_output`, the oldest forgotten first. Default 200. */
  readonly keepFinished?: number;
}

interface Entry {
  info: TaskInfo;
  readonly task: TrackedTask;
  /** Ends the wait for a cancelled task (its work may never settle). */
  readonly stopWaiting: () => void;
}

// Every option, typed against BackgroundTasksOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<BackgroundTasksOptions>({
  bus: true,
  onError: true,
  maxResultChars: true,
  keepFinished: true,
});

/**
 * The background work of a process: tool calls that outlived their timeout
 * (`AsyncToolMiddleware`) and background subagents (`SubagentsMiddleware`). Each task's result
 * is pushed to the inbox of the session that started it, so it joins that session's running
 * reply, or its next reply when none runs. Tasks outlive the reply that started them; a
 * cancelled task delivers nothing. Tasks of one session are invisible to another.
 *
 * @example
 * ```ts
 * const tasks = new BackgroundTasks({ bus });
 * const agent = new Agent({ model, middlewares: [new InboxMiddleware({ bus }), new AsyncToolMiddleware({ tasks, timeoutMs: 30_000 })] });
 * // on shutdown: wait for what still runs
 * await tasks.idle();
 * ```
 */
export class BackgroundTasks {
  private readonly entries = new Map<string, Entry>();
  private readonly running = new Set<Promise<void>>();
  private readonly bus: MessageBus;
  private readonly onError: (error: unknown, what: string) => void;
  private readonly maxResultChars: number;
  private readonly keepFinished: number;

  constructor(options: BackgroundTasksOptions) {
    refuseUnknownOptions('BackgroundTasks', options, OPTION_KEYS);
    if (!options?.bus || typeof options.bus.push !== 'function')
      throw new HarnessOptionError(
        'invalid_option',
        'BackgroundTasks.bus',
        'BackgroundTasks needs a message bus (options.bus).',
      );
    this.bus = options.bus;
    this.onError = options.onError ?? ((error, what) => console.error(`[rxscope] ${what}:`, error));
    this.maxResultChars = options.maxResultChars ?? 20_000;
    this.keepFinished = options.keepFinished ?? 200;
  }

  /** Follows a running piece of work; its result goes to the session's inbox when it settles. */
  track(task: TrackedTask): TaskInfo {
    const id = task.id ?? newId('task');
    const info: TaskInfo = {
      id,
      sessionId: task.sessionId,
      kind: task.kind,
      name: task.name,
      status: 'running',
      startedAt: Date.now(),
    };
    let stopWaiting!: () => void;
    const cancelled = new Promise<void>((resolve) => (stopWaiting = resolve));
    const entry: Entry = { info, task, stopWaiting };
    this.entries.set(id, entry);
    const settled = Promise.race([
      task.done.then(
        (result) => this.finish(entry, 'completed', result),
        (error: unknown) => this.finish(entry, 'failed', error instanceof Error ? error.message : String(error)),
      ),
      cancelled,
    ]);
    this.running.add(settled);
    void settled.finally(() => this.running.delete(settled));
    return info;
  }

  /** A task of `sessionId`, or undefined (unknown, forgotten, or another session's). */
  get(sessionId: string, id: string): TaskInfo | undefined {
    const entry = this.entries.get(id);
    return entry && entry.info.sessionId === sessionId ? entry.info : undefined;
  }

  /** The tasks of a session, oldest first. */
  list(sessionId: string): TaskInfo[] {
    return [...this.entries.values()].filter((e) => e.info.sessionId === sessionId).map((e) => e.info);
  }

  /** Stops a running task of `sessionId`; false when there is none by that id. Its result is not delivered. */
  cancel(sessionId: string, id: string, reason = 'cancelled'): boolean {
    const entry = this.entries.get(id);
    if (!entry || entry.info.sessionId !== sessionId || entry.info.status !== 'running') return false;
    entry.info = { ...entry.info, status: 'cancelled', endedAt: Date.now(), result: reason };
    entry.stopWaiting();
    entry.task.cancel(reason);
    return true;
  }

  /**
   * Passes a message to a running task of `sessionId` that takes messages (a subagent). Returns
   * why it could not, or undefined when it was passed.
   */
  send(sessionId: string, id: string, message: string): string | undefined {
    const entry = this.entries.get(id);
    if (!entry || entry.info.sessionId !== sessionId) return `There is no task "${id}".`;
    if (entry.info.status !== 'running')
      return `Task ${id} has ended (${entry.info.status}); it takes no more messages.`;
    if (!entry.task.send) return `Task ${id} (${entry.info.kind} "${entry.info.name}") does not take messages.`;
    entry.task.send(message);
    return undefined;
  }

  /**
   * The live events of the session's background tasks (a background subagent's reply, whose
   * `source` is its name), on the bus channel `tasks:<sessionId>`: from every process, nothing kept
   * for later subscribers.
   *
   * @example
   * ```ts
   * tasks.events(agent.sessionId).subscribe(({ taskId, event }) => ui.showSubagentEvent(taskId, event));
   * ```
   */
  events(sessionId: string): Observable<TaskEvent> {
    return this.bus.subscribe<TaskEvent>(`tasks:${sessionId}`);
  }

  /** Publishes an event of a background task on the session's task channel (failures go to `onError`). */
  publish(sessionId: string, taskId: string, event: AgentEvent): void {
    this.bus
      .publish<TaskEvent>(`tasks:${sessionId}`, { taskId, event })
      .catch((error: unknown) => this.onError(error, `an event of task ${taskId} could not be published`));
  }

  /** Resolves when no task runs and every result was handed to the bus. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  private async finish(entry: Entry, status: 'completed' | 'failed', result: string): Promise<void> {
    if (entry.info.status !== 'running') return; // cancelled: nothing is delivered
    entry.info = { ...entry.info, status, endedAt: Date.now(), result };
    this.forgetOld();
    const { id, sessionId } = entry.info;
    const message = taskResultMessage(entry.info, status, result, this.maxResultChars);
    try {
      await pushToInbox(this.bus, sessionId, message);
    } catch (error) {
      this.onError(error, `the result of background task ${id} could not be delivered to session ${sessionId}`);
    }
  }

  private forgetOld(): void {
    const finished = [...this.entries.values()].filter((e) => e.info.status !== 'running');
    for (const e of finished.slice(0, Math.max(0, finished.length - this.keepFinished))) this.entries.delete(e.info.id);
  }
}

/**
 * The inbox message that reports a background task's end: its result, or what went wrong.
 * Results longer than `maxChars` are cut (head and tail kept).
 */
export function taskResultMessage(
  task: Pick<TaskInfo, 'id' | 'kind' | 'name'>,
  status: 'completed' | 'failed',
  result: string,
  maxChars = 20_000,
): InboxMessage {
  const { id, kind, name } = task;
  const what = kind === 'tool' ? `the tool call "${name}"` : `the subagent "${name}"`;
  const text =
    status === 'completed'
      ? `Background task ${id} (${what}) finished. Its result:\n\n${cut(result, maxChars)}`
      : `Background task ${id} (${what}) failed: ${cut(result, maxChars)}`;
  return { text, from: `task ${id}` };
}

/** Text cut to `max` characters, head and tail kept, with a note of what was left out. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.7);
  const tail = max - head;
  return `${text.slice(0, head)}\n[... ${text.length - max} characters left out ...]\n${text.slice(text.length - tail)}`;
}
