/**
 * `InboxMiddleware`: messages pushed to a session's inbox on a {@link MessageBus} (with
 * `pushToInbox`, from this process or any other one on the same bus) join the session's running
 * reply at its very next model request, through the core's `agent.send()`: each appears once as
 * `HINT_BLOCK {hintSource: 'user'}`, reaches the model as a user turn and is kept in the reply
 * message. A message that arrives while the model writes what would be the final answer gets the
 * reply one more step. Messages pushed while no reply runs wait on the bus and join the next
 * reply, before its first model request.
 *
 * Nothing pushed is lost: a message stays on the bus until a reply takes it, and a message taken
 * just as the reply ends is handed to `agent.send()` all the same, which keeps it in the agent's
 * state for the next reply. A failing bus (Redis down) never fails the reply: the failure goes to
 * `onError` and the messages stay on the bus.
 *
 * @example
 * ```ts
 * const bus = new RedisMessageBus({ redis: new Redis(process.env.REDIS_URL!) });
 * const agent = new Agent({ model, sessionId: 's1', middlewares: [new InboxMiddleware({ bus })] });
 * agent.reply('Refactor the parser').subscribe(render);
 * // in another process, on the same Redis:
 * await pushToInbox(bus, 's1', { text: 'Keep the public API unchanged.', from: 'reviewer' });
 * ```
 *
 * @module
 */
import {
  catchError,
  concatMap,
  connect,
  defer,
  EMPTY,
  endWith,
  ignoreElements,
  merge,
  type Observable,
  switchMap,
  takeUntil,
} from 'rxjs';
import type { Agent, AgentEvent, AgentInput, Middleware, Next, RuntimeContext } from '@rxscope/core';
import type { MessageBus } from '../../bus/message-bus.js';
import { checkInboxMessage, inboxQueueOf, inboxText } from '../../inbox/inbox-message.js';

/**
 * Options of {@link InboxMiddleware}.
 *
 * @example
 * ```ts
 * new InboxMiddleware({ bus, onError: (e, what) => logger.warn(what, e) });
 * ```
 */
export interface InboxOptions {
  /** The bus the inbox lives on (`inbox:<sessionId>` queues). */
  readonly bus: MessageBus;
  /** A failed drain, a lost listener or a malformed message. Default: `console.error`. */
  readonly onError?: (error: unknown, what: string) => void;
}

/** See the module documentation. */
export class InboxMiddleware implements Middleware {
  readonly key = 'InboxMiddleware';
  private readonly bus: MessageBus;
  private readonly onError: (error: unknown, what: string) => void;

  constructor(options: InboxOptions) {
    if (!options?.bus || typeof options.bus.drain !== 'function')
      throw new TypeError('InboxMiddleware needs a message bus (options.bus).');
    this.bus = options.bus;
    this.onError = options.onError ?? ((error, what) => console.error(`[rxscope] ${what}:`, error));
  }

  onAgent(agent: Agent, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    const queue = inboxQueueOf(ctx.sessionId);
    const live = this.bus.pushed(queue).pipe(
      concatMap(() => this.take(agent, queue)),
      catchError((error: unknown) => {
        this.onError(
          error,
          `the inbox of session ${ctx.sessionId} stopped listening; messages wait for the next reply`,
        );
        return EMPTY;
      }),
      ignoreElements(),
    );
    // What waits already joins before the first model request; then the inbox listens while the reply runs.
    return defer(() => this.take(agent, queue)).pipe(
      switchMap(() =>
        next(input).pipe(
          connect((reply) => merge(reply, live.pipe(takeUntil(reply.pipe(ignoreElements(), endWith(true)))))),
        ),
      ),
    );
  }

  /**
   * Takes every waiting message off the bus and hands it to the agent. The hand-over is part of
   * the promise, so a reply that ends (and stops listening) while a drain is in flight still
   * gets the drained messages into the agent's state. Never rejects.
   */
  private take(agent: Agent, queue: string): Promise<void> {
    return this.bus.drain<unknown>(queue).then(
      (messages) => {
        for (const message of messages) {
          try {
            agent.send(inboxText(checkInboxMessage(message)));
          } catch (error) {
            this.onError(error, `a malformed message in ${queue} was dropped`);
          }
        }
      },
      (error: unknown) => this.onError(error, `the inbox ${queue} could not be read; its messages wait on the bus`),
    );
  }
}
