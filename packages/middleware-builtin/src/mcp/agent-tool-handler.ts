import { filter, fromEvent, lastValueFrom, take, takeUntil, tap } from 'rxjs';
import { type Agent, isEvent, type ReplyEndEvent } from '@rxscope/core';
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/sdk/types.js';

/** What the handler of the served tool needs from the SDK's request context. */
export interface ServedCall {
  readonly signal: AbortSignal;
  readonly progressToken?: string | number;
  readonly sendNotification: (notification: ServerNotification) => Promise<void>;
}

const text = (t: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: t }],
  ...(isError ? { isError } : {}),
});

/**
 * Runs one reply of the agent for a call of its MCP tool: the reply's text is streamed as
 * progress notifications (when the caller asked for progress: `progress` counts the characters
 * so far, `message` is the new text), the call's cancellation cancels the reply, and the result
 * is the reply's final text (the text after its last tool call). A reply that ends in an error
 * or waits for a person's confirmation is an `isError` result that says so.
 *
 * @example
 * ```ts
 * const result = await runAgentForCall(agent, 'Where is my order?', { signal, sendNotification });
 * ```
 */
export async function runAgentForCall(agent: Agent, message: string, call: ServedCall): Promise<CallToolResult> {
  let finalText = '';
  let streamed = 0;
  const progress = (delta: string) => {
    if (call.progressToken === undefined) return;
    streamed += delta.length;
    call
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: call.progressToken, progress: streamed, message: delta },
      })
      .catch(() => undefined); // a caller that went away does not fail the reply
  };
  if (call.signal.aborted) return text('cancelled before it started', true);
  const end: ReplyEndEvent | undefined = await lastValueFrom(
    agent.reply(message).pipe(
      tap((e) => {
        if (e.source !== agent.name) return; // events of nested agents are theirs
        if (e.type === 'MODEL_CALL_START') finalText = '';
        else if (e.type === 'TEXT_BLOCK_DELTA') {
          finalText += e.delta;
          progress(e.delta);
        }
      }),
      filter(isEvent('REPLY_END')),
      filter((e) => e.source === agent.name),
      take(1),
      takeUntil(fromEvent(call.signal, 'abort')),
    ),
    { defaultValue: undefined },
  );
  if (!end) return text('cancelled', true);
  switch (end.finishReason) {
    case 'error':
      return text(`The agent failed: ${end.error?.message ?? 'unknown error'}`, true);
    case 'awaiting_confirmation':
    case 'awaiting_external_execution':
      return text(
        `The agent stopped to wait for ${end.finishReason === 'awaiting_confirmation' ? "a person's confirmation" : 'an external tool'}` +
          ', which cannot be given over MCP. Allow its tools with permission rules to serve it over MCP.',
        true,
      );
    case 'interrupted':
      return text(finalText ? `${finalText}\n[interrupted]` : 'The reply was interrupted.', true);
    case 'shutdown':
      return text('The agent was shut down before it answered (the service is restarting); ask again later.', true);
    default:
      return text(finalText);
  }
}
