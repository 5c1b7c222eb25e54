import { Observable } from 'rxjs';
import type { AgentEvent, ModelEvent, Usage } from '../../event/events.js';
import type { Msg } from '../../message/blocks.js';
import type { ModelCallInput } from '../../middleware/middleware.js';
import type { RuntimeContext } from '../../middleware/context.js';
import { ModelError, toErrorInfo } from '../../model/model-error.js';
import { isSelfAborting } from '../../model/self-aborting.js';
import { linkAbort } from '../../util/abort-link.js';
import { newId } from '../../util/id.js';

const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

const END_OF: Record<string, 'TEXT_BLOCK_END' | 'THINKING_BLOCK_END' | 'TOOL_CALL_END' | 'DATA_BLOCK_END'> = {
  TEXT_BLOCK_START: 'TEXT_BLOCK_END',
  THINKING_BLOCK_START: 'THINKING_BLOCK_END',
  TOOL_CALL_START: 'TOOL_CALL_END',
  DATA_BLOCK_START: 'DATA_BLOCK_END',
};

/**
 * The innermost step of `onModelCall`: one call of `input.model`, stamped into agent events.
 * Whatever the model does, each attempt is well formed: `MODEL_CALL_START`, blocks that all
 * close, then `MODEL_CALL_END` (with `finishReason: 'error'` before a failure is rethrown as a
 * {@link ModelError}). Unsubscribing aborts the model's request through its own signal.
 */
export function callModel(ctx: RuntimeContext, input: ModelCallInput): Observable<AgentEvent> {
  // One Observable (not concat(of(start), call) inside defer): a model event passes one subscriber here.
  return new Observable<AgentEvent>((subscriber) => {
    const model = input.model.modelName;
    if (input.signal.aborted) {
      // Cancelled before the request went out (an interrupt while an outer layer retried): send
      // nothing and emit nothing, so no MODEL_CALL_START is left without its end.
      subscriber.error(new ModelError('model call cancelled before it started', { code: 'cancelled' }));
      return undefined;
    }
    const request = input.model.describeRequest?.(input);
    subscriber.next(
      ctx.event('MODEL_CALL_START', {
        model,
        iteration: ctx.iteration,
        provider: input.model.provider,
        ...(request ? { request } : {}),
      }),
    );
    if (subscriber.closed) return undefined;
    if (input.signal.aborted) {
      // Cancelled by whoever saw the MODEL_CALL_START: the call ends unsent, well formed.
      const error = new ModelError('model call cancelled before it started', { code: 'cancelled' });
      subscriber.next(
        ctx.event('MODEL_CALL_END', { model, usage: ZERO_USAGE, finishReason: 'error', error: toErrorInfo(error) }),
      );
      subscriber.error(error);
      return undefined;
    }
    // A model that aborts its request on unsubscribe gets the input's signal itself; any other gets
    // a signal of this call, aborted on unsubscribe (what the ChatModel contract promises it).
    const controller = isSelfAborting(input.model) ? undefined : new AbortController();
    const unlink = controller ? linkAbort(input.signal, controller) : undefined;

    const call = new CallStamp(ctx, input, model);

    const subscription = input.model.stream(controller ? { ...input, signal: controller.signal } : input).subscribe({
      next: (e) => {
        if (call.ended) return;
        const out = call.stamp(e);
        if (Array.isArray(out)) for (const x of out) subscriber.next(x);
        else subscriber.next(out);
      },
      error: (err: unknown) => {
        const error = asModelError(err);
        if (!call.ended) for (const x of call.end('error', error)) subscriber.next(x);
        subscriber.error(error);
      },
      complete: () => {
        if (!call.ended) for (const x of call.end('stop')) subscriber.next(x);
        subscriber.complete();
      },
    });
    return () => {
      subscription.unsubscribe();
      unlink?.();
      if (!call.ended) controller?.abort(new ModelError('model call cancelled', { code: 'cancelled' }));
    };
  });
}

/**
 * The agent events of one model call as its model events arrive: stamped with the reply's
 * origin, the open blocks tracked so every one is closed, tool-call ids made unique.
 */
class CallStamp {
  ended = false;
  /** Blocks started and not ended, by id, in start order. */
  private readonly open = new Map<string, ModelEvent['type']>();
  /** The (unique) tool-call id of each open tool-call block, stamped on its deltas and end. */
  private readonly callIds = new Map<string, string>();
  /** Tool-call ids already in the conversation or this answer; read at the answer's first call. */
  private usedIds: Set<string> | undefined;

  constructor(
    private readonly ctx: RuntimeContext,
    private readonly input: ModelCallInput,
    private readonly model: string,
  ) {}

  stamp(e: ModelEvent): AgentEvent | AgentEvent[] {
    const ctx = this.ctx;
    switch (e.type) {
      case 'TOOL_CALL_START': {
        this.open.set(e.blockId, e.type);
        const toolCallId = this.uniqueId(e.toolCallId);
        this.callIds.set(e.blockId, toolCallId);
        return ctx.event(e.type, toolCallId === e.toolCallId ? e : { ...e, toolCallId });
      }
      case 'TOOL_CALL_DELTA':
        return ctx.event(e.type, { blockId: e.blockId, toolCallId: this.callIdOf(e.blockId), delta: e.delta });
      case 'TOOL_CALL_END': {
        const toolCallId = this.callIdOf(e.blockId);
        this.open.delete(e.blockId);
        this.callIds.delete(e.blockId);
        return ctx.event(e.type, { blockId: e.blockId, toolCallId });
      }
      case 'TEXT_BLOCK_START':
      case 'THINKING_BLOCK_START':
      case 'DATA_BLOCK_START':
        this.open.set(e.blockId, e.type);
        break;
      case 'TEXT_BLOCK_END':
      case 'THINKING_BLOCK_END':
      case 'DATA_BLOCK_END':
        this.open.delete(e.blockId);
        break;
      case 'TEXT_BLOCK_DELTA':
      case 'THINKING_BLOCK_DELTA':
      case 'DATA_BLOCK_DELTA':
        return ctx.delta(e.type, e.blockId, e.delta);
      case 'MODEL_CALL_END': {
        this.ended = true;
        const end = ctx.event('MODEL_CALL_END', { ...e, model: this.model });
        return this.open.size ? [...this.closeOpen(), end] : end;
      }
      default:
        break;
    }
    return ctx.event(e.type, e);
  }

  /** The call ended without the model's MODEL_CALL_END: close its blocks and end it here. */
  end(finishReason: 'stop' | 'error', error?: ModelError): AgentEvent[] {
    this.ended = true;
    const end = this.ctx.event('MODEL_CALL_END', {
      model: this.model,
      usage: ZERO_USAGE,
      finishReason,
      ...(error ? { error: toErrorInfo(error) } : {}),
    });
    return [...this.closeOpen(), end];
  }

  private closeOpen(): AgentEvent[] {
    const closing: AgentEvent[] = [];
    for (const [blockId, startType] of [...this.open].reverse()) {
      const end = END_OF[startType]!;
      closing.push(
        end === 'TOOL_CALL_END'
          ? this.ctx.event(end, { blockId, toolCallId: this.callIdOf(blockId) })
          : this.ctx.event(end, { blockId }),
      );
    }
    this.open.clear();
    this.callIds.clear();
    return closing;
  }

  // A model's delta or end of a block it never started (a broken model) keeps the id it gave, or none.
  private callIdOf(blockId: string): string {
    return this.callIds.get(blockId) ?? '';
  }

  // A model that reuses a tool-call id (a server numbering its calls call_0, call_1... afresh in
  // every answer) would have its call taken for answered and never run; it gets a fresh id
  // instead, used on the wire from then on.
  private uniqueId(id: string): string {
    this.usedIds ??= toolCallIds(this.ctx.conversation.messages, this.input.messages);
    const unique = this.usedIds.has(id) ? newId('call') : id;
    this.usedIds.add(unique);
    return unique;
  }
}

/** The ids of the tool calls in the given messages (one pass, no copies: conversations get long). */
function toolCallIds(...lists: (readonly Msg[])[]): Set<string> {
  const ids = new Set<string>();
  for (const list of lists) for (const m of list) for (const b of m.content) if (b.type === 'tool_call') ids.add(b.id);
  return ids;
}

/** Wraps anything thrown by a model into a {@link ModelError} (kept as is when it already is one). */
export function asModelError(err: unknown): ModelError {
  if (err instanceof ModelError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ModelError(message, { cause: err, retryable: false });
}
