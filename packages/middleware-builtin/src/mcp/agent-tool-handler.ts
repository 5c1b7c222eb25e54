import { filter, fromEvent, lastValueFrom, take, takeUntil, tap } from 'rxjs';
import {
  type Agent,
  type AgentEvent,
  type ConfirmResult,
  isEvent,
  type PendingToolCall,
  type ReplyEndEvent,
  type ReplyInput,
} from '@rxscope/core';
import type { CallToolResult, LoggingLevel, ServerNotification } from '@modelcontextprotocol/sdk/types.js';

/**
 * What the handler of the served tool needs from the SDK's request context.
 *
 * @example
 * ```ts
 * const call: ServedCall = { signal: extra.signal, sendNotification: extra.sendNotification };
 * ```
 */
export interface ServedCall {
  readonly signal: AbortSignal;
  readonly progressToken?: string | number;
  readonly sendNotification: (notification: ServerNotification) => Promise<void>;
  /**
   * Asks the caller about the calls a reply stopped for (MCP elicitation); the reply then goes
   * on with the answers. Without it, a reply that waits for a confirmation is an `isError` result.
   */
  readonly confirm?: (calls: readonly PendingToolCall[]) => Promise<ConfirmResult[]>;
  /** Sends a log message to the caller (the MCP `logging` capability). */
  readonly log?: (level: LoggingLevel, data: Record<string, unknown>) => void;
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
 * is an `isError` result that says so; one that waits for a person's confirmation asks the caller
 * (`call.confirm`) and goes on with the answers, or, without `confirm`, is an `isError` result.
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
  let input: ReplyInput = message;
  for (;;) {
    let pending: readonly PendingToolCall[] = [];
    const end: ReplyEndEvent | undefined = await lastValueFrom(
      agent.reply(input).pipe(
        tap((e) => {
          if (e.source !== agent.name) return; // events of nested agents are theirs
          if (e.type === 'MODEL_CALL_START') finalText = '';
          else if (e.type === 'TEXT_BLOCK_DELTA') {
            finalText += e.delta;
            progress(e.delta);
          } else if (e.type === 'REQUIRE_USER_CONFIRM') pending = e.toolCalls;
          logEvent(call, e);
        }),
        filter(isEvent('REPLY_END')),
        filter((e) => e.source === agent.name),
        take(1),
        takeUntil(fromEvent(call.signal, 'abort')),
      ),
      { defaultValue: undefined },
    );
    if (end?.finishReason !== 'awaiting_confirmation' || !call.confirm || pending.length === 0)
      return resultOf(end, finalText);
    let results: ConfirmResult[];
    try {
      results = await call.confirm(pending);
    } catch (e) {
      return text(`The agent waits for a confirmation the caller could not give: ${String(e)}`, true);
    }
    if (call.signal.aborted) return text('cancelled', true);
    input = { type: 'USER_CONFIRM_RESULT', results };
  }
}

/** The tool's result for the end of the reply. */
function resultOf(end: ReplyEndEvent | undefined, finalText: string): CallToolResult {
  if (!end) return text('cancelled', true);
  switch (end.finishReason) {
    case 'error':
      return text(`The agent failed: ${end.error?.message ?? 'unknown error'}`, true);
    case 'awaiting_confirmation':
    case 'awaiting_external_execution':
      return text(
        `The agent stopped to wait for ${end.finishReason === 'awaiting_confirmation' ? "a person's confirmation" : 'an external tool'}` +
          ', which this MCP client cannot give (it declares no elicitation). Allow its tools with permission rules, or use a client with elicitation.',
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

/** What the caller's log shows of the reply: its tool calls, failed results and its end. */
function logEvent(call: ServedCall, e: AgentEvent): void {
  if (!call.log) return;
  if (e.type === 'TOOL_CALL_START')
    call.log('info', { event: 'tool_call', agent: e.source, tool: e.name, toolCallId: e.toolCallId });
  else if (e.type === 'TOOL_RESULT_END' && e.status !== 'success')
    call.log('warning', { event: 'tool_result', agent: e.source, toolCallId: e.toolCallId, status: e.status });
  else if (e.type === 'REQUIRE_USER_CONFIRM')
    call.log('notice', { event: 'confirmation', agent: e.source, tools: e.toolCalls.map((c) => c.name) });
  else if (e.type === 'REPLY_END')
    call.log(e.finishReason === 'error' ? 'error' : 'info', {
      event: 'reply_end',
      agent: e.source,
      finishReason: e.finishReason,
      ...(e.error ? { error: e.error.message } : {}),
    });
}
