/**
 * `InboxMiddleware`: messages pushed to a session's inbox on a {@link MessageBus} (with
 * `pushToInbox`, from this process or any other one on the same bus) join the session's running
 * reply at its very next model request, through the core's `agent.send()`: each appears once as
 * `HINT_BLOCK {hintSource: 'user'}`, reaches the model as a user turn and is kept in the reply
 * message. A message that arrives while the model writes what would be the final answer gets the
 * reply one more step. Messages pushed while no reply runs wait on the bus and join the next
 * reply, before its first model request.
 *
 * Nothing pushed is lost, even when the process dies: a message stays on the bus until the
 * agent's state holding it has been saved. The middleware reads the inbox with `peek` after a
 * cursor kept in the agent's persisted state (`middlewareState.InboxMiddleware.cursor`, saved
 * with the messages it covers), and removes the entries (`ack`) only after a reply whose saved
 * state holds them ended: at a reply's end (which comes after its save), the entries it had
 * taken before its last reasoning step began. An agent that dies before saving leaves the old cursor in the store:
 * the next reply, in any process, reads those messages again. A message taken just as the reply
 * ends is handed to `agent.send()` all the same, which keeps it in the agent's state for the next
 * reply. A failing bus (Redis down) never fails the reply: the failure goes to `onError` and the
 * messages stay on the bus.
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
  tap,
} from 'rxjs';
import {
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  ContextToken,
  type Middleware,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  type StateSlot,
  optionKeys,
} from '@rxscope/core';
import type { MessageBus } from '../../bus/index.js';
import { checkInboxMessage, inboxQueueOf, inboxText, wakeQueueOf } from '../inbox-message.js';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

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

// Every option, typed against InboxOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<InboxOptions>({
  bus: true,
  onError: true,
});

/** See the module documentation. */
export class InboxMiddleware implements Middleware {
  readonly key = 'InboxMiddleware';
  private readonly bus: MessageBus;
  private readonly onError: (error: unknown, what: string) => void;
  /** The take in progress per agent: takes of one agent run one after another. */
  private readonly taking = new WeakMap<AgentHandle, Promise<void>>();

  constructor(options: InboxOptions) {
    refuseUnknownOptions('InboxMiddleware', options, OPTION_KEYS);
    if (!options?.bus || typeof options.bus.drain !== 'function')
      throw new HarnessOptionError(
        'invalid_option',
        'InboxMiddleware.bus',
        'InboxMiddleware needs a message bus (options.bus).',
      );
    this.bus = options.bus;
    this.onError = options.onError ?? ((error, what) => console.error(`[rxscope] ${what}:`, error));
  }

  onAgent(agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    const queue = inboxQueueOf(ctx.sessionId);
    const slot = ctx.state<InboxState>(this.key);
    // The cursor this reply starts from is in the state it saves: once that save is done
    // (a REPLY_END that is not an error), the entries up to it are safe to remove from the bus.
    const startCursor = slot.get()?.cursor;
    const take = () => this.take(agent, queue, slot);
    const live = this.bus.pushed(queue).pipe(
      concatMap(() => take()),
      catchError((error: unknown) => {
        this.onError(
          error,
          `the inbox of session ${ctx.sessionId} stopped listening; messages wait for the next reply`,
        );
        return EMPTY;
      }),
      ignoreElements(),
    );
    // The reply's save (done before its REPLY_END) holds every message taken before its last
    // reasoning step began; one taken later may have missed it, and waits for the next reply's end.
    const acknowledge = (event: AgentEvent) => {
      if (event.type !== 'REPLY_END' || event.replyId !== ctx.replyId || event.finishReason === 'error') return;
      const saved = ctx.has(STEP_CURSOR) ? ctx.get(STEP_CURSOR) : startCursor;
      if (saved === undefined) return;
      this.bus
        .ack(queue, saved)
        .catch((error: unknown) => this.onError(error, `the inbox ${queue} could not remove delivered messages`));
    };
    // This reply takes what waits: the wake-up notices of those messages are moot (no InboxWakeUps acts on them).
    const dropNotices = () =>
      this.bus.drain(wakeQueueOf(ctx.sessionId)).then(
        () => undefined,
        (error: unknown) => this.onError(error, `the wake-up notices of ${queue} could not be dropped`),
      );
    // What waits already joins before the first model request; then the inbox listens while the reply runs.
    return defer(() => dropNotices().then(take)).pipe(
      switchMap(() =>
        next(input).pipe(
          tap(acknowledge),
          connect((reply) => merge(reply, live.pipe(takeUntil(reply.pipe(ignoreElements(), endWith(true)))))),
        ),
      ),
    );
  }

  /** Notes how far the inbox was taken when a reasoning step begins (see `onAgent`). */
  onReasoning(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    return defer(() => {
      ctx.set(STEP_CURSOR, ctx.state<InboxState>(this.key).get()?.cursor);
      return next(input);
    });
  }

  /**
   * Hands the messages after the cursor to the agent, advancing the cursor with each (one take
   * at a time per agent, so two never hand over one message). The hand-over is part of the
   * promise, so a reply that ends (and stops listening) while a read is in flight still gets the
   * messages into the agent's state. Never rejects.
   */
  private take(agent: AgentHandle, queue: string, slot: StateSlot<InboxState>): Promise<void> {
    const previous = this.taking.get(agent) ?? Promise.resolve();
    const taken = previous.then(() =>
      this.bus.peek<unknown>(queue, { ...(slot.get()?.cursor ? { after: slot.get()!.cursor } : {}) }).then(
        (entries) => {
          for (const { id, message } of entries) {
            let text: string;
            try {
              text = inboxText(checkInboxMessage(message));
            } catch (error) {
              this.onError(error, `a malformed message in ${queue} was dropped`);
              slot.set({ cursor: id });
              continue;
            }
            try {
              agent.send(text);
            } catch (error) {
              this.onError(error, `the agent refused a message of ${queue}; it waits on the bus`);
              return;
            }
            slot.set({ cursor: id });
          }
        },
        (error: unknown) => this.onError(error, `the inbox ${queue} could not be read; its messages wait on the bus`),
      ),
    );
    this.taking.set(agent, taken);
    return taken;
  }
}

/** The inbox cursor when the reply's latest reasoning step began. */
const STEP_CURSOR = new ContextToken<string | undefined>('harness.inboxStepCursor', () => undefined);

/** What the middleware keeps in the agent's persisted state. */
interface InboxState {
  /** The id of the last inbox entry handed to the agent. */
  readonly cursor?: string;
}
