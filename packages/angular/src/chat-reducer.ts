import type { AgentEvent, ToolResultContent } from '@rxscope/core';
import type { ChatMessage, ChatToolCall, ChatView, PendingConfirmation } from './chat-types.js';
import { applyStateEvent, isSharedStateEvent, type SharedStateEvent } from './shared-state.js';

/**
 * Folds one event of a reply into the chat's view, returning new objects only for what changed
 * (the message that grew, the call whose status moved), so `@for (...; track ...)` re-renders
 * only those. Pure: the chat keeps the view in a signal and calls this per event.
 */
export function applyChatEvent(view: ChatView, event: AgentEvent | SharedStateEvent): ChatView {
  if (isSharedStateEvent(event)) return applyStateEvent(view, event);
  const e: AgentEvent = event;
  switch (e.type) {
    case 'REPLY_START':
      return { ...withReply(view, e.replyId), status: 'streaming', error: undefined };
    case 'TEXT_BLOCK_DELTA':
      return onReply(view, e.replyId, (m) => ({ ...m, text: m.text + e.delta }));
    case 'TOOL_CALL_START': {
      const call: ChatToolCall = {
        id: e.toolCallId,
        name: e.name,
        inputText: '',
        input: undefined,
        status: 'input_streaming',
      };
      const next = onReply(view, e.replyId, (m) => ({ ...m, toolCalls: [...m.toolCalls, call] }));
      return { ...next, blocks: { ...next.blocks, [e.blockId]: e.toolCallId } };
    }
    case 'TOOL_CALL_DELTA':
      return onCall(view, e.replyId, view.blocks[e.blockId], (c) => ({ ...c, inputText: c.inputText + e.delta }));
    case 'TOOL_CALL_END':
      return onCall(view, e.replyId, view.blocks[e.blockId], (c) => ({
        ...c,
        input: parse(c.inputText),
        status: 'called',
      }));
    case 'REQUIRE_USER_CONFIRM': {
      const pending: PendingConfirmation[] = e.toolCalls.map((c) => ({
        toolCallId: c.id,
        name: c.name,
        input: c.input,
        ...(c.reason !== undefined ? { reason: c.reason } : {}),
      }));
      const ids = new Set(pending.map((p) => p.toolCallId));
      const next = onReply(view, e.replyId, (m) => ({
        ...m,
        toolCalls: m.toolCalls.map((c) => (ids.has(c.id) ? { ...c, status: 'awaiting_confirmation' } : c)),
      }));
      return { ...next, pending };
    }
    case 'USER_CONFIRM_RESULT': {
      const denied = new Set(e.results.filter((r) => !r.confirmed).map((r) => r.toolCallId));
      const next = onReply(view, e.replyId, (m) => ({
        ...m,
        toolCalls: m.toolCalls.map((c) =>
          c.status !== 'awaiting_confirmation' ? c : { ...c, status: denied.has(c.id) ? 'denied' : 'called' },
        ),
      }));
      return { ...next, pending: [] };
    }
    case 'TOOL_RESULT_START':
      return onCall(view, e.replyId, e.toolCallId, (c) => ({ ...c, status: 'running' }));
    case 'TOOL_PROGRESS': {
      const { message, progress, total } = e;
      const report = {
        message,
        ...(progress !== undefined ? { progress } : {}),
        ...(total !== undefined ? { total } : {}),
      };
      return onCall(view, e.replyId, e.toolCallId, (c) => ({ ...c, progress: report }));
    }
    case 'TOOL_RESULT_END':
      return onCall(view, e.replyId, e.toolCallId, (c) => ({ ...c, status: e.status, output: textOf(e.output) }));
    case 'MODEL_CALL_END':
      return {
        ...view,
        usage: {
          inputTokens: view.usage.inputTokens + e.usage.inputTokens,
          outputTokens: view.usage.outputTokens + e.usage.outputTokens,
        },
      };
    case 'REPLY_END': {
      const next = onReply(view, e.replyId, (m) => ({ ...m, finishReason: e.finishReason }));
      if (e.finishReason === 'error')
        return {
          ...next,
          status: 'error',
          error: { code: e.error?.code ?? 'reply_failed', message: e.error?.message ?? 'The reply failed.' },
        };
      return {
        ...next,
        status: e.finishReason === 'awaiting_confirmation' ? 'awaiting_confirmation' : 'idle',
        blocks: {},
      };
    }
    case 'CUSTOM':
      // The agent rejected the calls that waited when a new message came instead of an answer.
      return e.name === 'pending_calls_rejected' ? { ...view, pending: [] } : view;
    default:
      return view;
  }
}

/** The view with an assistant message for the reply (a resumed reply keeps its message). */
function withReply(view: ChatView, replyId: string): ChatView {
  if (view.messages.some((m) => m.role === 'assistant' && m.id === replyId)) return view;
  const message: ChatMessage = { id: replyId, role: 'assistant', text: '', toolCalls: [] };
  return { ...view, messages: [...view.messages, message] };
}

function onReply(view: ChatView, replyId: string, change: (m: ChatMessage) => ChatMessage): ChatView {
  const withMessage = withReply(view, replyId);
  return {
    ...withMessage,
    messages: withMessage.messages.map((m) => (m.role === 'assistant' && m.id === replyId ? change(m) : m)),
  };
}

function onCall(
  view: ChatView,
  replyId: string,
  toolCallId: string | undefined,
  change: (c: ChatToolCall) => ChatToolCall,
): ChatView {
  if (toolCallId === undefined) return view;
  return onReply(view, replyId, (m) =>
    m.toolCalls.some((c) => c.id === toolCallId)
      ? { ...m, toolCalls: m.toolCalls.map((c) => (c.id === toolCallId ? change(c) : c)) }
      : m,
  );
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return undefined;
  }
}

function textOf(output: readonly ToolResultContent[]): string {
  return output.map((b) => (b.type === 'text' ? b.text : '')).join('');
}
