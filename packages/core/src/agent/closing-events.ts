import type { AgentEvent } from '../event/events.js';
import type { ReplyReducer } from '../message/reducer.js';
import type { RuntimeContext } from '../middleware/context.js';
import { resultEvents } from './acting.js';

/**
 * The events that bring a cut-off reply back to a valid shape: every open block closed
 * (innermost first), the open model call ended, and every tool call without a result answered.
 * They are applied to `reducer` as they are produced, so the stored message matches the stream.
 */
export function closingEvents(
  ctx: Pick<RuntimeContext, 'event'>,
  reducer: ReplyReducer,
  outcome: 'error' | 'interrupted',
  why: string,
): AgentEvent[] {
  const out: AgentEvent[] = [];
  const push = (e: AgentEvent) => {
    reducer.apply(e);
    out.push(e);
  };
  for (const block of reducer.openBlocks().reverse()) {
    const blockId = block.blockId;
    if (block.kind === 'tool_result') {
      push(
        ctx.event('TOOL_RESULT_END', {
          blockId,
          toolCallId: block.toolCallId ?? '',
          status: outcome,
          output: [{ type: 'text', text: `Tool call did not finish: ${why}.` }],
        }),
      );
    } else if (block.kind === 'text') push(ctx.event('TEXT_BLOCK_END', { blockId }));
    else if (block.kind === 'thinking') push(ctx.event('THINKING_BLOCK_END', { blockId }));
    else if (block.kind === 'tool_call') push(ctx.event('TOOL_CALL_END', { blockId }));
    else push(ctx.event('DATA_BLOCK_END', { blockId }));
  }
  const model = reducer.openModelCall();
  if (model !== undefined) {
    push(ctx.event('MODEL_CALL_END', { model, usage: { inputTokens: 0, outputTokens: 0 }, finishReason: outcome }));
  }
  for (const call of reducer.unansweredCalls()) {
    for (const e of resultEvents(ctx, call, 'interrupted', `Tool call was not executed: ${why}.`)) push(e);
  }
  return out;
}
