import { createDeltaEvent, createEvent, type DeltaEventType, type EventOrigin } from '../../event/create.js';
import type { AgentEventOf, AgentEventType, EventFields, StopReason } from '../../event/events.js';
import type { ContextToken, RuntimeContext, StateSlot } from '../../middleware/context.js';
import type { Conversation } from '../../middleware/conversation.js';
import { newId } from '../../util/id.js';
import { AgentUsageError } from '../errors.js';
import type { ReplyConversation } from './reply-conversation.js';
import type { SessionSharedState } from '../../state/shared-state.js';

/** The {@link RuntimeContext} of one reply; the loop advances `iteration`. */
export class ReplyContext implements RuntimeContext {
  iteration = 0;
  /** Made on the first `set` or `get`: most replies never use a context token (a Map costs ~200 bytes per reply). */
  private values: Map<ContextToken<unknown>, unknown> | undefined;
  private readonly origin: EventOrigin;
  /** Set by the loop when the reply starts (contexts built only to stamp events have none). */
  conversationOfReply: ReplyConversation | undefined;
  /** Set by the agent when the reply starts (contexts built only to stamp events have none). */
  sharedStateOfReply: SessionSharedState | undefined;
  /** Set by the agent while the reply runs. */
  onStop: ((reason: StopReason) => void) | undefined;
  /** Per-reply state (`replyState`), saved with a suspended reply. */
  readonly replyValues: Record<string, unknown>;

  constructor(
    readonly agentName: string,
    readonly replyId: string,
    readonly sessionId: string,
    readonly signal: AbortSignal,
    private readonly store: Record<string, unknown>,
    replyValues: Record<string, unknown> = {},
    readonly userId: string | undefined = undefined,
  ) {
    this.origin = { replyId, source: agentName };
    this.replyValues = replyValues;
  }

  /**
   * The context of a reply about to start, with the controller that aborts it: a new reply id,
   * or the suspended reply's id and a copy of its saved `replyState` (so the pending reply's
   * saved state is not changed by the resumed one).
   */
  static open(
    agentName: string,
    sessionId: string,
    middlewareState: Record<string, unknown>,
    pending: { readonly replyId: string; readonly replyState?: Record<string, unknown> } | undefined,
    userId: string | undefined,
  ): { ctx: ReplyContext; controller: AbortController } {
    const controller = new AbortController();
    const saved = pending?.replyState;
    const values = saved ? structuredClone({ ...saved }) : {};
    const replyId = pending?.replyId ?? newId('reply');
    const ctx = new ReplyContext(agentName, replyId, sessionId, controller.signal, middlewareState, values, userId);
    return { ctx, controller };
  }

  replyState<T>(key: string): StateSlot<T> {
    return slotOf<T>(this.replyValues, key);
  }

  stop(reason: StopReason): void {
    if (typeof reason?.code !== 'string' || typeof reason.message !== 'string') {
      throw new AgentUsageError('ctx.stop(reason): reason needs a string "code" and a string "message".');
    }
    this.onStop?.(reason);
  }

  get sharedState(): SessionSharedState {
    const shared = this.sharedStateOfReply;
    if (!shared) throw new AgentUsageError('ctx.sharedState is only available while the reply runs.');
    return shared;
  }

  get conversation(): Conversation {
    const conversation = this.conversationOfReply;
    if (!conversation) throw new AgentUsageError('ctx.conversation is only available while the reply runs.');
    return conversation;
  }

  get<T>(token: ContextToken<T>): T {
    const values = (this.values ??= new Map());
    if (values.has(token)) return values.get(token) as T;
    const value = token.defaultValue();
    values.set(token, value);
    return value;
  }

  set<T>(token: ContextToken<T>, value: T): void {
    (this.values ??= new Map()).set(token, value);
  }

  has(token: ContextToken<unknown>): boolean {
    return this.values?.has(token) ?? false;
  }

  state<T>(key: string): StateSlot<T> {
    return slotOf<T>(this.store, key);
  }

  event<T extends AgentEventType>(type: T, fields: EventFields[T]): AgentEventOf<T> {
    return createEvent(type, fields, this.origin);
  }

  delta<T extends DeltaEventType>(type: T, blockId: string, delta: string): AgentEventOf<T> {
    return createDeltaEvent(type, blockId, delta, this.origin);
  }
}

function slotOf<T>(store: Record<string, unknown>, key: string): StateSlot<T> {
  return {
    get: () => store[key] as T | undefined,
    set: (value: T) => {
      store[key] = value;
    },
    delete: () => {
      delete store[key];
    },
  };
}
