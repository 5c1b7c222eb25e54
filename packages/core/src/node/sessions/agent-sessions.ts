import { concatMap, from, map, type Observable, Subscription, switchMap, tap } from 'rxjs';
import type { Agent, ReplyInput } from '../../agent/agent.js';
import { AgentShutdownError, AgentUsageError } from '../../agent/errors.js';
import { bindAgentToSession } from '../../agent/session-claim.js';
import { assertSessionOwner, checkUserId } from '../../agent/user-identity.js';
import { shutdownAgents, type ShutdownAgentsOptions, type ShutdownReport } from '../shutdown-agents.js';
import type { AgentEvent } from '../../event/events.js';
import { ReplyTracker } from '../reply-tracker.js';
import { forkSessionAgent, type SessionForkOptions } from './fork-session.js';
import type { Msg } from '../../message/blocks.js';
import { InMemorySessionScheduler } from './schedules/in-memory-session-scheduler.js';
import {
  checkSchedule,
  type SessionSchedule,
  type SessionScheduleOptions,
  type SessionScheduler,
} from './schedules/session-schedule.js';
import { wakeSession, type WakeResult } from './wake.js';
import { InMemorySessionEventBus } from './in-memory-session-event-bus.js';
import type { SessionEventBus, SessionEventsOptions } from './session-event-bus.js';
import { checkOptionKeys } from '../../error/check-option-keys.js';
import {
  AGENT_SESSIONS_OPTION_KEYS as OPTION_KEYS,
  type AgentSessionsOptions,
  type SessionUserOptions,
} from './agent-sessions-options.js';
import { recoverSessions, type RecoveryReport } from './recover-sessions.js';
import { RecoveredReplySplice } from './recovered-reply-splice.js';
import { isRecoverReply } from '../../agent/journal-sync.js';

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
  private readonly scheduler: SessionScheduler;

  constructor(private readonly options: AgentSessionsOptions) {
    checkOptionKeys('AgentSessions', options, OPTION_KEYS, {
      foreign: { agentFactory: 'agent', factory: 'agent', createAgent: 'agent' },
    });
    this.bus = options.bus ?? new InMemorySessionEventBus();
    this.cancelGraceMs = options.cancelGraceMs ?? 5000;
    this.onError = options.onError ?? ((error) => console.error('[rxscope] session reply failed:', error));
    this.scheduler = options.scheduler ?? new InMemorySessionScheduler();
    this.scheduler.start((s) => this.wake(s.sessionId, s.message).then(() => undefined, this.onError));
  }

  /**
   * The session's agent (created on first use; `userId`: the user creating the session, when the
   * store holds no owner for it yet).
   */
  agent(sessionId: string, userId?: string): Promise<Agent> {
    let agent = this.agents.get(sessionId);
    if (!agent) {
      agent = Promise.resolve()
        .then(async () => {
          const owner = (await this.options.store?.load(sessionId))?.state.owner ?? userId;
          return this.options.agent(sessionId, owner !== undefined ? { userId: owner } : {});
        })
        .then((created) => {
          bindAgentToSession(created, sessionId, 'AgentSessions');
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
  async start(
    sessionId: string,
    input: ReplyInput,
    options: SessionUserOptions = {},
  ): Promise<{ readonly replyId: string }> {
    const userId = checkUserId(options.userId, 'sessions.start');
    if (this.closing !== undefined) {
      throw new AgentShutdownError(
        `The service is shutting down (${this.closing}); no reply starts here. Retry on another instance.`,
      );
    }
    this.refuseWhileRunning(sessionId);
    const agent = await this.agent(sessionId, userId);
    // A recovered reply continues, on the bus, the stream its dead process left open.
    const splice = isRecoverReply(input) ? await RecoveredReplySplice.of(this.bus, sessionId) : undefined;
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
          .reply(input, userId !== undefined ? { userId } : {})
          .pipe(
            tap((event) => tracker.apply(event)),
            concatMap((event) =>
              from(this.appendInOrder(sessionId, splice ? splice.next(event) : [event])).pipe(map(() => event)),
            ),
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
  events(sessionId: string, options: SessionEventsOptions & SessionUserOptions = {}): Observable<AgentEvent> {
    const { userId, ...rest } = options;
    if (checkUserId(userId, 'sessions.events') === undefined) return this.bus.events(sessionId, rest);
    // A reader with an id reads only a session that is not another user's (its owner is in the agent's state).
    return from(this.ownerOf(sessionId)).pipe(
      switchMap((owner) => {
        assertSessionOwner(owner, sessionId, userId);
        return this.bus.events(sessionId, rest);
      }),
    );
  }

  /** The session's owner: as its agent here knows it, else as the store has it. */
  private async ownerOf(sessionId: string): Promise<string | undefined> {
    const known = (await this.agent(sessionId)).saveState().owner;
    return known ?? (await this.options.store?.load(sessionId))?.state.owner;
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
    await this.scheduler.close(); // ticks go to the other processes (BullMQ) from now on
    const created = await Promise.all([...this.agents.values()].map((a) => a.catch(() => undefined)));
    const runs = [...this.runs.values()];
    const report = await shutdownAgents(
      created.filter((a): a is Agent => a !== undefined),
      { ...options, reason },
    );
    await Promise.all(runs.map((run) => run.done));
    return report;
  }

  /**
   * A new session `newSessionId` whose conversation is this one's up to message `upTo`
   * (inclusive; or `before` it): see `agent.fork()`. Resolves with its agent once its state is in
   * the session store (an id this service or the store already has is refused).
   *
   * @example
   * ```ts
   * await sessions.fork('s1', { upTo: messageId, newSessionId: 's1-alt' });
   * await sessions.start('s1-alt', 'What if we used Postgres instead?');
   * ```
   */
  async fork(sessionId: string, options: SessionForkOptions): Promise<Agent> {
    const forked = await forkSessionAgent(sessionId, await this.agent(sessionId), options, (id) => this.agents.has(id));
    this.agents.set(forked.sessionId, Promise.resolve(forked));
    return forked;
  }

  /**
   * Wakes the session: starts a reply when none runs (with `message` as its input, or with none:
   * the reply begins with what waits for it, such as its inbox's messages), else joins `message`
   * to the running reply (`agent.send()`). Never a second reply of a session; a session the
   * `wakeUps` option leaves out is not woken. Background results and inbox messages call it
   * (the harness's `InboxWakeUps`), and so does every tick of a schedule.
   *
   * @example
   * ```ts
   * const woke = await sessions.wake('s1', 'The export you asked for is ready.');
   * if (woke.started) sessions.events('s1').subscribe(render);
   * ```
   */
  wake(sessionId: string, message?: string | Msg): Promise<WakeResult> {
    const wakeUps = this.options.wakeUps ?? true;
    return wakeSession(
      {
        closing: this.closing !== undefined,
        optedIn: (id) => (typeof wakeUps === 'function' ? wakeUps(id) : wakeUps),
        running: (id) => this.running(id),
        openOnBus: async (id) => (await this.bus.openReply?.(id)) !== undefined,
        agent: (id) => this.agent(id),
        start: (id, input) => this.start(id, input),
      },
      sessionId,
      message,
    );
  }

  /**
   * Schedules a message to the session, `every` milliseconds or on a `cron` expression (checked
   * here: an invalid one is an `InvalidScheduleError`). Each tick wakes the session with the
   * message ({@link AgentSessions.wake}). Resolves with the schedule (its `id` cancels it).
   *
   * @example
   * ```ts
   * const { id } = await sessions.schedule('ops', { cron: '0 9 * * 1-5', message: 'Post the daily summary.' });
   * await sessions.cancelSchedule(id);
   * ```
   */
  async schedule(sessionId: string, options: SessionScheduleOptions): Promise<SessionSchedule> {
    const schedule = checkSchedule(sessionId, options);
    await this.scheduler.add(schedule);
    return schedule;
  }

  /**
   * The schedules of a session, or of every session.
   *
   * @example
   * ```ts
   * const ids = (await sessions.schedules('ops')).map((s) => s.id);
   * ```
   */
  schedules(sessionId?: string): Promise<SessionSchedule[]> {
    return this.scheduler.list(sessionId);
  }

  /**
   * Cancels a schedule; resolves `false` when there is none with that id.
   *
   * @example
   * ```ts
   * await sessions.cancelSchedule(scheduleId);
   * ```
   */
  cancelSchedule(id: string): Promise<boolean> {
    return this.scheduler.remove(id);
  }

  /** Cancels every running reply (waiting for each to end), stops firing schedules and closes the bus. */
  async close(): Promise<void> {
    await this.scheduler.close();
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

  private async appendInOrder(sessionId: string, events: readonly AgentEvent[]): Promise<void> {
    for (const event of events) await this.bus.append(sessionId, event);
  }

  private appendAll(sessionId: string, events: readonly AgentEvent[]): void {
    void events
      .reduce((chain, event) => chain.then(() => this.bus.append(sessionId, event)), Promise.resolve())
      .catch((error: unknown) => this.onError(error));
  }
}
