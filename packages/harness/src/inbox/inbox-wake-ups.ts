import { catchError, EMPTY, from, mergeMap, repeat, type Subscription, timer } from 'rxjs';
import { type Agent, optionKeys } from '@rxscope/core';
import type { MessageBus } from '../bus/index.js';
import { refuseUnknownOptions } from '../options/index.js';
import { INBOX_WAKE_CHANNEL, inboxQueueOf, wakeQueueOf } from './inbox-message.js';

/**
 * The sessions {@link InboxWakeUps} wakes: `AgentSessions` of `@rxscope/core/node` (its
 * `wake(sessionId)` starts a reply of an idle session, never a second one).
 *
 * @example
 * ```ts
 * const target: WakeableSessions = new AgentSessions({ agent: (id) => createHarnessAgent({ ..., sessionId: id, bus }) });
 * ```
 */
export interface WakeableSessions {
  wake(sessionId: string): Promise<unknown>;
  agent(sessionId: string): Promise<Pick<Agent, 'queued' | 'saveState'>>;
}

/**
 * Options of {@link InboxWakeUps}.
 *
 * @example
 * ```ts
 * new InboxWakeUps({ bus, sessions, onError: (e, what) => logger.warn(what, e) }).start();
 * ```
 */
export interface InboxWakeUpsOptions {
  /** The bus the inboxes live on (the one `InboxMiddleware` and `BackgroundTasks` use). */
  readonly bus: MessageBus;
  /** The sessions to wake. */
  readonly sessions: WakeableSessions;
  /** A failed wake-up (the notice is not retried; the message waits for the next reply). Default `console.error`. */
  readonly onError?: (error: unknown, what: string) => void;
}

const OPTION_KEYS = optionKeys<InboxWakeUpsOptions>({ bus: true, sessions: true, onError: true });

/**
 * Wakes idle sessions when something arrives in their inbox: a message pushed with
 * `pushToInbox` (from any process on the bus), or the result of a background task (an async
 * tool call, a background subagent) that finished after its reply ended. Every push also leaves
 * a notice in the session's wake-up queue and announces it on the `inbox-wake` channel; the
 * notices are taken atomically, by one `InboxWakeUps` in one process, which calls
 * `sessions.wake(sessionId)` when the inbox holds messages the session has not taken yet (or
 * its agent holds queued ones). A reply of the session drops the notices of what it takes. The woken reply starts with them
 * (`InboxMiddleware` hands them over before its first model request). A session that runs a
 * reply, in this process or another one, takes them into that reply instead; one that opted out (`AgentSessions` option
 * `wakeUps`) is left alone, its messages waiting for its next reply.
 *
 * @example
 * ```ts
 * const bus = new RedisMessageBus({ redis });
 * const sessions = new AgentSessions({ agent: (id) => createHarnessAgent({ model, sessionId: id, store, bus }), bus: events });
 * const wakeUps = new InboxWakeUps({ bus, sessions }).start();
 * await pushToInbox(bus, 's1', { text: 'The build is green.', from: 'ci' }); // s1 replies, in one process
 * ```
 */
export class InboxWakeUps {
  private subscription: Subscription | undefined;
  private readonly onError: (error: unknown, what: string) => void;

  constructor(private readonly options: InboxWakeUpsOptions) {
    refuseUnknownOptions('InboxWakeUps', options, OPTION_KEYS);
    if (!options?.bus || typeof options.bus.drain !== 'function')
      throw new TypeError('InboxWakeUps needs a message bus (options.bus).');
    if (!options.sessions || typeof options.sessions.wake !== 'function')
      throw new TypeError('InboxWakeUps needs the sessions to wake (options.sessions: an AgentSessions).');
    this.onError = options.onError ?? ((error, what) => console.error(`[rxscope] ${what}:`, error));
  }

  /** Starts listening for wake-up notices. */
  start(): this {
    const { bus } = this.options;
    this.subscription ??= bus
      .subscribe<{ sessionId?: unknown }>(INBOX_WAKE_CHANNEL)
      .pipe(
        mergeMap((notice) => {
          const sessionId = notice?.sessionId;
          if (typeof sessionId !== 'string' || !sessionId) return EMPTY;
          return from(this.claim(sessionId)).pipe(
            catchError((error: unknown) => {
              this.onError(error, `session ${sessionId} could not be woken; its inbox waits for its next reply`);
              return EMPTY;
            }),
          );
        }, 8),
        catchError((error: unknown) => {
          this.onError(error, 'the inbox wake-up listener stopped; it listens again in a second');
          return EMPTY;
        }),
        repeat({ delay: () => timer(1000) }),
      )
      .subscribe();
    return this;
  }

  /** Stops listening (notices wait on the bus for another process, or the session's next reply). */
  close(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  /** Takes the session's notices (atomically: one process gets them) and wakes it if they were there. */
  private async claim(sessionId: string): Promise<void> {
    const notices = await this.options.bus.drain(wakeQueueOf(sessionId));
    if (notices.length) await this.wakeIfWaiting(sessionId);
  }

  /** Wakes the session when its inbox holds messages it has not taken (or it holds queued ones). */
  private async wakeIfWaiting(sessionId: string): Promise<void> {
    const { bus, sessions } = this.options;
    const agent = await sessions.agent(sessionId);
    const cursor = (agent.saveState().middlewareState['InboxMiddleware'] as { cursor?: string } | undefined)?.cursor;
    const waiting =
      agent.queued.length > 0 ||
      (await bus.peek(inboxQueueOf(sessionId), { ...(cursor ? { after: cursor } : {}), max: 1 })).length > 0;
    if (waiting) await sessions.wake(sessionId);
  }
}
