import type { Message, ToolCall } from '@ag-ui/core';
import { textOfToolResult } from '../../event/text-of-tool-result.js';
import type { Msg } from '../../message/blocks.js';

/**
 * A conversation as the AG-UI messages a client holds: user messages (their text), each reply
 * as assistant messages (text and tool calls) with a tool message after the calls it answers.
 * Thinking, hints and data blocks are left out (a client shows the reply's text and calls). What
 * a reconnecting client receives as `MESSAGES_SNAPSHOT`; the ids are stable, so the client's next
 * run matches the agent's conversation.
 *
 * @example
 * ```ts
 * const snapshot = { type: EventType.MESSAGES_SNAPSHOT, messages: agUiMessagesOf(agent.context) };
 * ```
 */
export function agUiMessagesOf(conversation: readonly Msg[]): Message[] {
  const out: Message[] = [];
  for (const msg of conversation) {
    if (msg.role === 'system') continue;
    if (msg.role === 'user') {
      const text = msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      out.push({ id: msg.id, role: 'user', content: text });
      continue;
    }
    let part = 0;
    let text = '';
    let calls: ToolCall[] = [];
    const flush = () => {
      if (!text && !calls.length) return;
      const id = part++ === 0 ? msg.id : `${msg.id}:${part - 1}`;
      out.push({
        id,
        role: 'assistant',
        ...(text ? { content: text } : {}),
        ...(calls.length ? { toolCalls: calls } : {}),
      });
      text = '';
      calls = [];
    };
    for (const b of msg.content) {
      if (b.type === 'text') {
        if (calls.length) flush();
        text += b.text;
      } else if (b.type === 'tool_call') {
        calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: b.arguments } });
      } else if (b.type === 'tool_result') {
        flush();
        out.push({
          id: `${msg.id}:${b.toolCallId}`,
          role: 'tool',
          toolCallId: b.toolCallId,
          content: textOfToolResult(b),
        });
      }
    }
    flush();
  }
  return out;
}
