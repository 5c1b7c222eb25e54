import type { DeltaEventType, EventFactory } from '../event/create.js';
import type { SharedState } from '../util/shared-state.js';
import type { AgentEventOf, AgentEventType, EventFields, StopReason } from '../event/events.js';
import type { Conversation } from './conversation.js';

/**
 * A typed key for per-reply data in the {@link RuntimeContext}, like Angular's `HttpContextToken`.
 * Create tokens once (module level) and share them; values live in each reply's context.
 *
 * @example
 * ```ts
 * const STARTED_AT = new ContextToken<number>('startedAt', () => 0);
 * // in a hook: ctx.set(STARTED_AT, Date.now()); ... ctx.get(STARTED_AT)
 * ```
 */
export class ContextToken<T> {
  constructor(
    readonly description: string,
    readonly defaultValue: () => T,
  ) {}
  toString(): string {
    return `ContextToken(${this.description})`;
  }
}

/**
 * A slot of state persisted with the agent (saved by `saveState()`, restored with `state`).
 * Values must be JSON-serialisable.
 */
export interface StateSlot<T> {
  get(): T | undefined;
  set(value: T): void;
  delete(): void;
}

/**
 * What every hook receives besides its input: identity of the reply, cancellation, per-reply
 * values and persisted state. One context per reply, so shared middleware instances keep each
 * reply's data apart.
 */
export interface RuntimeContext extends EventFactory {
  readonly agentName: string;
  readonly replyId: string;
  readonly sessionId: string;
  /**
   * The user this reply acts for (`reply(input, { userId })`), `undefined` when none was given.
   * Scope what you store and recall per user with it.
   */
  readonly userId: string | undefined;
  /** Number of the current reasoning step, from 1 (0 before the first step starts). */
  readonly iteration: number;
  /** Aborted when the reply is cancelled (unsubscribe) or interrupted. */
  readonly signal: AbortSignal;
  /**
   * The conversation of this reply: read it, edit what is persisted (a summary instead of older
   * messages, a pointer instead of a large tool result), add and remove hints.
   */
  readonly conversation: Conversation;
  /**
   * The session's shared state: a JSON object frontends show, saved with the session. Each
   * change emits `STATE_SNAPSHOT` (the first of the reply) or `STATE_DELTA` into the reply.
   *
   * @example
   * ```ts
   * ctx.sharedState.patch([{ op: 'replace', path: '/phase', value: 'searching' }]);
   * ```
   */
  readonly sharedState: SharedState;
  /** The value of `token` for this reply (its default until set). */
  get<T>(token: ContextToken<T>): T;
  set<T>(token: ContextToken<T>, value: NoInfer<T>): void;
  has(token: ContextToken<unknown>): boolean;
  /** Persisted state under `key` (use the middleware's key). */
  state<T>(key: string): StateSlot<T>;
  /**
   * Per-reply state under `key`: starts empty with every reply, and is saved with a reply that
   * suspends (for confirmation or external execution) and restored when it resumes, also in
   * another process. Values must be JSON-serialisable.
   */
  replyState<T>(key: string): StateSlot<T>;
  /**
   * Ends the running reply on purpose, at once: the running step is cancelled, open blocks are
   * closed, unanswered tool calls get `interrupted` results, and the reply ends with
   * `REPLY_END {finishReason: 'stopped', stopReason: reason}` (`agent.call()` resolves). Emit
   * your own events before calling it; nothing after it is emitted. No effect once the reply ended.
   */
  stop(reason: StopReason): void;
  /** Builds an event of this reply (id, reply id, source and timestamp filled in). */
  event<T extends AgentEventType>(type: T, fields: EventFields[T]): AgentEventOf<T>;
  /** Builds a delta event of this reply (the fast path for streamed pieces). */
  delta<T extends DeltaEventType>(type: T, blockId: string, delta: string): AgentEventOf<T>;
}
