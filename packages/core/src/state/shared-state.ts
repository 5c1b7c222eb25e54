import type { EventFactory } from '../event/create.js';
import type { AgentEvent } from '../event/events.js';
import { RxscopeError } from '../error/rxscope-error.js';
import { applyJsonPatch, diffJson, jsonEqual, type JsonObject, type JsonPatchOperation } from '../util/json-patch.js';
import type { SharedState } from '../util/shared-state.js';

export type { SharedState } from '../util/shared-state.js';

/**
 * A value given as shared state that is not a JSON object (an array, a primitive, a value JSON
 * cannot hold, or one larger than the limit). Code `invalid_shared_state`.
 *
 * @example
 * ```ts
 * try { ctx.sharedState.set(value); } catch (e) { if (e instanceof SharedStateError) console.error(e.message); }
 * ```
 */
export class SharedStateError extends RxscopeError {
  readonly code = 'invalid_shared_state';
  override readonly name = 'SharedStateError';
}

/** The largest shared state accepted, as JSON text (a state is sent whole in every snapshot). */
export const MAX_SHARED_STATE_CHARS = 1024 * 1024;

/** Where the session keeps its shared state (`SessionState`). */
export interface SharedStateHolder {
  sharedState: JsonObject;
}

/**
 * The shared state of one agent. Outside a reply a change is only stored; while a reply runs it
 * is also emitted into the reply: queued until the reply's `REPLY_START` is out ({@link live}),
 * then emitted at once, until the reply ends ({@link close}).
 */
export class SessionSharedState implements SharedState {
  private reply:
    { readonly ctx: EventFactory; emit?: (e: AgentEvent) => void; announced: boolean; dirty: boolean } | undefined;

  constructor(private readonly holder: SharedStateHolder) {}

  get(): JsonObject {
    return this.holder.sharedState;
  }

  set(state: JsonObject): void {
    const next = checked(state, 'sharedState.set(state)');
    const previous = this.holder.sharedState;
    if (jsonEqual(previous, next)) return;
    this.holder.sharedState = next;
    this.changed(() => diffJson(previous, next));
  }

  patch(operations: readonly JsonPatchOperation[]): void {
    if (!Array.isArray(operations))
      throw new SharedStateError('sharedState.patch(operations) takes an array of JSON Patch operations.');
    const next = checked(applyJsonPatch(this.holder.sharedState, operations), 'sharedState.patch(operations)');
    if (jsonEqual(this.holder.sharedState, next)) return;
    this.holder.sharedState = next;
    this.changed(() => structuredClone(operations) as JsonPatchOperation[]);
  }

  /**
   * A reply starts (its events are built by `ctx`). With `initial` (the reply's `sharedState`
   * option: a state, or a function of the current one) it starts from that state and begins with
   * a snapshot in any case. Returns this, for the reply's context.
   */
  open(ctx: EventFactory, initial?: JsonObject | ((current: JsonObject) => JsonObject)): this {
    this.reply = { ctx, announced: false, dirty: initial !== undefined };
    if (initial !== undefined) this.set(typeof initial === 'function' ? initial(this.get()) : initial);
    return this;
  }

  /** The reply's `REPLY_START` went out: emit what was queued, then every change as it comes. */
  live(emit: (e: AgentEvent) => void): void {
    const reply = this.reply;
    if (!reply) return;
    reply.emit = emit;
    if (reply.dirty) this.changed(() => []);
  }

  /** The reply ended: changes are only stored from now on. */
  close(ctx: EventFactory): void {
    if (this.reply?.ctx === ctx) this.reply = undefined;
  }

  private changed(delta: () => JsonPatchOperation[]): void {
    const reply = this.reply;
    if (!reply) return;
    if (!reply.emit) {
      reply.dirty = true;
      return;
    }
    // The first state event of a reply is a snapshot, so a consumer never patches a copy it lacks.
    if (!reply.announced) {
      reply.announced = true;
      reply.emit(reply.ctx.event('STATE_SNAPSHOT', { snapshot: structuredClone(this.holder.sharedState) }));
      return;
    }
    reply.emit(reply.ctx.event('STATE_DELTA', { delta: delta() }));
  }
}

/** A copy of `state`, checked to be a JSON object within {@link MAX_SHARED_STATE_CHARS}. */
function checked(state: unknown, where: string): JsonObject {
  if (state === null || typeof state !== 'object' || Array.isArray(state))
    throw new SharedStateError(`${where}: the shared state is a JSON object, got ${describe(state)}.`);
  let text: string;
  try {
    text = JSON.stringify(state);
  } catch (err) {
    throw new SharedStateError(`${where}: the shared state is not JSON (${(err as Error).message}).`);
  }
  if (text.length > MAX_SHARED_STATE_CHARS)
    throw new SharedStateError(
      `${where}: the shared state is ${text.length} characters of JSON, more than the ${MAX_SHARED_STATE_CHARS} allowed; keep large data elsewhere and share a reference.`,
    );
  return JSON.parse(text) as JsonObject;
}

function describe(value: unknown): string {
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
}
