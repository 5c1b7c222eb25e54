import { concatMap, from, map, type Observable, Subscription, tap } from 'rxjs';
import type { Agent, ReplyInput } from '../../agent/agent.js';
import { AgentShutdownError, AgentUsageError } from '../../agent/errors.js';
import { shutdownAgents, type ShutdownAgentsOptions, type ShutdownReport } from '../shutdown-agents.js';
import type { AgentEvent } from '../../event/events.js';
import { ReplyTracker } from '../reply-tracker.js';
import { InMemorySessionEventBus } from './in-memory-session-event-bus.js';
import type { SessionEventBus, SessionEventsOptions } from './session-event-bus.js';
import type { SessionStore } from '../../state/session-store.js';
import { recoverSessions, type RecoveryReport } from './recover-sessions.js';

/** Options of {@link AgentSessions}. */
export interface AgentSessionsOptions {
  /** The agent of a session; called once per session (the result is kept). */
  readonly agent: (sessionId: string) => Agent | Promise<Agent>;
  /** Where replies' events go. Default: a new `InMemorySessionEventBus`. */
  readonly bus?: SessionEventBus;
  /**
   * How long `cancel()` waits for the interrupted reply to end by itself before cutting it off
   * (unsubscribing, and appending the closing events and `REPLY_END` itself). Default 5,000 ms.
   */
  readonly cancelGraceMs?: number;
  /** Failures with no caller to report to (the bus failing mid-reply). Default: `console.error`. */
  readonly onError?: (error: unknown) => void;
  /** The sessions' store, for `recover()` to list the sessions that have a journal. */
  readonly store?: SessionStore;
}

interface Run {
  readonly agent: Agent;
  readonly tracker: ReplyTracker;
  readonly subscription: Subscription;
  readonly done: Promise<void>;
  replyId: string | undefined;
}

/**
 * Runs **detached** replies for sessions: `start()` subscribes to the session agent's reply
 * itself and appends every event to the session's {@link SessionEventBus}, so the reply keeps
 * running when no client listens, and any number of clients — reconnecting ones with
 * `Last-Event-ID`, in this process or, with a Redis bus, in another — read it with `events()`.
 * One reply at a time per session; `cancel()` stops it.
 *
 * @example
 * ```ts
 * const sessions = new AgentSessions({ agent: (id) => new Agent({ model, sessionId: id, store }) });
 * const { replyId } = await sessions.start('s1', 'Hello');      // REPLY_START is in the log now
 * sessions.events('s1').subscribe(render);                      // the reply in progress, then live
 * await sessions.cancel('s1');                                  // ends with REPLY_END interrupted
 * ```
 */
export class AgentSessions {
  /** The bus replies are appended to. */
  readonly bus: SessionEventBus;
  private readonly agents = new Map<string, Promise<Agent>>();
  private readonly runs = new Map<string, Run>();
  private readonly cancelGraceMs: number;
  private readonly onError: (error: unknown) => void;
  /** Set by `shutdown()`: why no reply starts any more. */
  private closing: string | undefined;

  constructor(private readonly options: AgentSessionsOptions) {
    this.bus = options.bus ?? new InMemorySessionEventBus();
    this.cancelGraceMs = options.cancelGraceMs ?? 5000;
    this.onError = options.onError ?? ((error) => console.error('[rxscope] session reply failed:', error));
  }

  /** The session's agent (created on first use). */
  agent(sessionId: string): Promise<Agent> {
    let agent = this.agents.get(sessionId);
    if (!agent) {
      agent = Promise.resolve()
        .then(() => this.options.agent(sessionId))
        .then((created) => {
          // Created during a shutdown (to read a conversation): it takes no reply either.
          if (this.closing !== undefined)
            created.shutdown({ reason: this.closing }).catch((e: unknown) => this.onError(e));
          return created;
        });
      agent.catch(() => this.agents.delete(sessionId));
      this.agents.set(sessionId, agent);
    }
    return agent;
  }

  /** True while a reply of the session runs. */
  running(sessionId: string): boolean {
    return this.runs.has(sessionId);
  }

  /** Ids of the sessions with a running reply. */
  runningSessions(): string[] {
    return [...this.runs.keys()];
  }

  /**
   * Starts a detached reply (a message, or a `USER_CONFIRM_RESULT` / `EXTERNAL_EXECUTION_RESULT`
   * that resumes the suspended one) and resolves with its id once its `REPLY_START` is in the
   * log. Rejects with an `AgentUsageError` when a reply of the session is running or the agent
   * refuses the input (nothing changes then).
   */
  async start(sessionId: string, input: ReplyInput): Promise<{ readonly replyId: string }> {
    if (this.closing !== undefined) {
      throw new AgentShutdownError(
        `The service is shutting down (${this.closing}); no reply starts here. Retry on another instance.`,
      );
    }
    this.refuseWhileRunning(sessionId);
    const agent = await this.agent(sessionId);
    this.refuseWhileRunning(sessionId);
    return new Promise((resolve, reject) => {
      let started = false;
      let finish!: () => void;
      const tracker = new ReplyTracker();
      const subscription = new Subscription();
      const run: Run = {
        agent,
        tracker,
        subscription,
        done: new Promise<void>((r) => (finish = r)),
        replyId: undefined,
      };
      const cleanup = () => {
        if (this.runs.get(sessionId) === run) this.runs.delete(sessionId);
        finish();
      };
      this.runs.set(sessionId, run);
      subscription.add(
        agent
          .reply(input)
          .pipe(
            tap((event) => tracker.apply(event)),
            concatMap((event) => from(this.bus.append(sessionId, event)).pipe(map(() => event))),
          )
          .subscribe({
            next: (event) => {
              if (!started && event.type === 'REPLY_START') {
                started = true;
                run.replyId = event.replyId;
                resolve({ replyId: event.replyId });
              }
            },
            error: (error: unknown) => {
              cleanup();
              if (!started) {
                // The agent's own refusal (an AgentUsageError), passed on unchanged.
                // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
                reject(error);
                return;
              }
              this.onError(error);
              this.appendAll(sessionId, tracker.end('error', error, sessionId));
            },
            complete: () => {
              cleanup();
              if (!started) reject(new Error('the reply ended without REPLY_START'));
            },
          }),
      );
    });
  }

  /**
   * Stops the session's running reply: interrupts it (the model request and tools are aborted,
   * the reply ends with `REPLY_END {finishReason: 'interrupted'}` on the stream), and cuts it off
   * after `cancelGraceMs` if it did not end. Resolves `false` when nothing ran.
   */
  async cancel(sessionId: string, reason = 'cancelled by the client'): Promise<boolean> {
    const run = this.runs.get(sessionId);
    if (!run) return false;
    run.agent.interrupt(reason);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([
      run.done.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.cancelGraceMs))),
    ]);
    clearTimeout(timer);
    if (!ended && this.runs.get(sessionId) === run) {
      run.subscription.unsubscribe();
      this.runs.delete(sessionId);
      this.appendAll(sessionId, run.tracker.end('interrupted', reason, sessionId));
    }
    return true;
  }

  /**
   * Continues every reply left running when a process died mid-reply (a crash, SIGKILL): each
   * session's journal is folded over its saved state and the reply goes on detached from its
   * last checkpoint, keeping its `replyId` (clients see `CUSTOM reply_recovered` on the bus).
   * Call it when a service starts. Sessions come from `sessionIds`, or from the `store` option.
   * A reply another process still holds (its lease runs) is left alone and reported in `skipped`.
   *
   * @example
   * ```ts
   * const sessions = new AgentSessions({ agent: (id) => new Agent({ model, store, sessionId: id }), store, bus });
   * const report = await sessions.recover(); // { recovered: [{ sessionId, replyId, fromStep }], skipped: [...] }
   * ```
   */
  recover(sessionIds?: readonly string[]): Promise<RecoveryReport> {
    return recoverSessions(this, sessionIds, this.options.store);
  }

  /** The session's events: see {@link SessionEventBus.events}. */
  events(sessionId: string, options: SessionEventsOptions = {}): Observable<AgentEvent> {
    return this.bus.events(sessionId, options);
  }

  /**
   * Forgets a session: its agent (a later use creates a new one, from its store if it has one)
   * and its replay log. Refused with an `AgentUsageError` while a reply of the session runs.
   */
  async forget(sessionId: string): Promise<void> {
    this.refuseWhileRunning(sessionId);
    this.agents.delete(sessionId);
    await this.bus.delete(sessionId);
  }

  /**
   * Shuts the sessions down gracefully (see `shutdownAgents()` from `@rxscope/core/node`): from
   * now on `start()` refuses with an `AgentShutdownError` (HTTP 503), also for sessions that have
   * no agent yet; every session agent stops its running reply at a safe point, within `graceMs`,
   * and saves it to its store as a reply that `start(id, {type: 'RESUME_REPLY'})` continues,
   * here or in another process. Resolves once every reply ended, its `REPLY_END
   * {finishReason: 'shutdown'}` is on the bus and its state is saved. The bus stays open.
   *
   * @example
   * ```ts
   * process.once('SIGTERM', async () => {
   *   const report = await sessions.shutdown({ graceMs: 10_000, reason: 'received SIGTERM' });
   *   await writeFile('resume.json', JSON.stringify(report.suspended)); // the next process resumes these
   *   process.exit(0);
   * });
   * ```
   */
  async shutdown(options: Omit<ShutdownAgentsOptions, 'signal'> = {}): Promise<ShutdownReport> {
    const reason = (this.closing ??= options.reason ?? 'the service is shutting down');
    const created = await Promise.all([...this.agents.values()].map((a) => a.catch(() => undefined)));
    const runs = [...this.runs.values()];
    const report = await shutdownAgents(
      created.filter((a): a is Agent => a !== undefined),
      { ...options, reason },
    );
    await Promise.all(runs.map((run) => run.done));
    return report;
  }

  /** Cancels every running reply (waiting for each to end) and closes the bus. */
  async close(): Promise<void> {
    await Promise.all(this.runningSessions().map((id) => this.cancel(id, 'the service is shutting down')));
    await this.bus.close();
  }

  private refuseWhileRunning(sessionId: string): void {
    const run = this.runs.get(sessionId);
    if (run) {
      throw new AgentUsageError(
        `Session "${sessionId}" is running reply ${run.replyId ?? '(starting)'}; wait for its REPLY_END or cancel it first.`,
      );
    }
  }

  private appendAll(sessionId: string, events: readonly AgentEvent[]): void {
    void events
      .reduce((chain, event) => chain.then(() => this.bus.append(sessionId, event)), Promise.resolve())
      .catch((error: unknown) => this.onError(error));
  }
}
