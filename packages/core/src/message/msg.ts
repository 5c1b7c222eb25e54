import { newId } from '../util/id.js';
import type { ContentBlock, Msg, Role, ToolCallBlock, ToolResultBlock } from './blocks.js';

/**
 * Creates a message from a string or content blocks.
 *
 * @example
 * ```ts
 * const question = createMsg('user', 'What is 2 + 3?');
 * const withImage = createMsg('user', [{ type: 'text', text: 'What is this?' }, { type: 'data', mediaType: 'image/png', url: 'https://...' }]);
 * ```
 */
export function createMsg(
  role: Role,
  content: string | readonly ContentBlock[],
  options: { name?: string; id?: string; metadata?: Record<string, unknown> } = {},
): Msg {
  return {
    id: options.id ?? newId('msg'),
    role,
    name: options.name ?? role,
    content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
    createdAt: Date.now(),
    ...(options.metadata ? { metadata: options.metadata } : {}),
  };
}

/**
 * Concatenated text of a message's text blocks (thinking, hints and tool traffic excluded).
 *
 * @example
 * ```ts
 * const answer = textOfMsg(await agent.call('hello'));
 * ```
 */
export function textOfMsg(msg: Msg): string {
  let text = '';
  for (const block of msg.content) if (block.type === 'text') text += block.text;
  return text;
}

/**
 * The tool calls of a message, in order.
 *
 * @example
 * ```ts
 * for (const call of toolCallsOf(reply)) console.log(call.name, call.arguments);
 * ```
 */
export function toolCallsOf(msg: Msg): ToolCallBlock[] {
  return msg.content.filter((b): b is ToolCallBlock => b.type === 'tool_call');
}

/**
 * The tool results of a message, in order.
 *
 * @example
 * ```ts
 * const failed = toolResultsOf(reply).filter((r) => r.status === 'error');
 * ```
 */
export function toolResultsOf(msg: Msg): ToolResultBlock[] {
  return msg.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
}

/**
 * Ids of tool calls in `messages` that have no result: empty for a valid conversation.
 *
 * @example
 * ```ts
 * expect(unansweredToolCalls(agent.context)).toEqual([]);
 * ```
 */
export function unansweredToolCalls(messages: readonly Msg[]): string[] {
  const answered = new Set<string>();
  const calls: string[] = [];
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === 'tool_call') calls.push(b.id);
      else if (b.type === 'tool_result') answered.add(b.toolCallId);
    }
  }
  return calls.filter((id) => !answered.has(id));
}
