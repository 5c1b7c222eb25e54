import { lastValueFrom, reduce } from 'rxjs';
import { createMsg } from '../message/msg.js';
import type { ChatModel } from './chat-model.js';

/** What {@link modelText} asks. */
export interface ModelTextRequest {
  /** The system prompt. */
  readonly system: string;
  /** The user message. */
  readonly user: string;
  /** Cancels the request. */
  readonly signal: AbortSignal;
}

/**
 * Asks `model` one question outside any reply (a summary, a memory extraction, a selection) and
 * resolves with the text of its answer, joined: no tools, `toolChoice: 'none'`. A failed call
 * rejects with the model's error. For middlewares that need a side answer from a model.
 *
 * @example
 * ```ts
 * const summary = await modelText(model, { system: 'Summarise the conversation.', user: transcript, signal: ctx.signal });
 * ```
 */
export function modelText(model: ChatModel, request: ModelTextRequest): Promise<string> {
  return lastValueFrom(
    model
      .stream({
        messages: [createMsg('system', request.system), createMsg('user', request.user)],
        tools: [],
        toolChoice: 'none',
        options: {},
        signal: request.signal,
      })
      .pipe(reduce((text, e) => (e.type === 'TEXT_BLOCK_DELTA' ? text + e.delta : text), '')),
    { defaultValue: '' },
  );
}
