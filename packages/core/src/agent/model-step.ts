import { Observable } from 'rxjs';
import type { AgentEvent, ModelEvent, Usage } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import type { ModelCallInput } from '../middleware/middleware.js';
import type { RuntimeContext } from '../middleware/context.js';
import { ModelError, toErrorInfo } from '../model/model-error.js';
import { isSelfAborting } from '../model/self-aborting.js';
import { linkAbort } from '../util/abort-link.js';
import { newId } from '../util/id.js';

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

    const open = new Map<string, ModelEvent['type']>();
    let ended = false;
    const closeOpen = (): AgentEvent[] => {
      const closing: AgentEvent[] = [];
      for (const [blockId, startType] of [...open].reverse()) {
        closing.push(ctx.event(END_OF[startType]!, { blockId }));
      }
      open.clear();
      return closing;
    };

    // Tool-call ids already in the conversation (or earlier in this answer). A model that reuses
    // one (a server numbering its calls call_0, call_1... afresh in every answer) would have its call taken
    // for answered and never run; it gets a fresh id instead, used on the wire from then on.
    let usedIds: Set<string> | undefined;
    const uniqueId = (id: string): string => {
      usedIds ??= toolCallIds(ctx.conversation.messages, input.messages);
      const unique = usedIds.has(id) ? newId('call') : id;
      usedIds.add(unique);
      return unique;
    };

    const stamp = (e: ModelEvent): AgentEvent | AgentEvent[] => {
      switch (e.type) {
        case 'TOOL_CALL_START': {
          open.set(e.blockId, e.type);
          const toolCallId = uniqueId(e.toolCallId);
          return ctx.event(e.type, toolCallId === e.toolCallId ? e : { ...e, toolCallId });
        }
        case 'TEXT_BLOCK_START':
        case 'THINKING_BLOCK_START':
        case 'DATA_BLOCK_START':
          open.set(e.blockId, e.type);
          break;
        case 'TEXT_BLOCK_END':
        case 'THINKING_BLOCK_END':
        case 'TOOL_CALL_END':
        case 'DATA_BLOCK_END':
          open.delete(e.blockId);
          break;
        case 'TEXT_BLOCK_DELTA':
        case 'THINKING_BLOCK_DELTA':
        case 'TOOL_CALL_DELTA':
        case 'DATA_BLOCK_DELTA':
          return ctx.delta(e.type, e.blockId, e.delta);
        case 'MODEL_CALL_END': {
          ended = true;
          const end = ctx.event('MODEL_CALL_END', { ...e, model });
          return open.size ? [...closeOpen(), end] : end;
        }
        default:
          break;
      }
      return ctx.event(e.type, e);
    };

    const subscription = input.model.stream(controller ? { ...input, signal: controller.signal } : input).subscribe({
      next: (e) => {
        if (ended) return;
        const out = stamp(e);
        if (Array.isArray(out)) for (const x of out) subscriber.next(x);
        else subscriber.next(out);
      },
      error: (err: unknown) => {
        const error = asModelError(err);
        if (!ended) {
          for (const x of closeOpen()) subscriber.next(x);
          subscriber.next(
            ctx.event('MODEL_CALL_END', { model, usage: ZERO_USAGE, finishReason: 'error', error: toErrorInfo(error) }),
          );
          ended = true;
        }
        subscriber.error(error);
      },
      complete: () => {
        if (!ended) {
          for (const x of closeOpen()) subscriber.next(x);
          subscriber.next(ctx.event('MODEL_CALL_END', { model, usage: ZERO_USAGE, finishReason: 'stop' }));
          ended = true;
        }
        subscriber.complete();
      },
    });
    return () => {
      subscription.unsubscribe();
      unlink?.();
      if (!ended) controller?.abort(new ModelError('model call cancelled', { code: 'cancelled' }));
    };
  });
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
