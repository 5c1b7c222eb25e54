import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { DataBlock, Msg, TextBlock } from '../../message/blocks.js';
import { toConversationTurns } from '../conversation.js';

/**
 * Converts our messages to LangChain messages, with the same turn structure as the OpenAI
 * adapter: `SystemMessage`, `HumanMessage` (images as `image_url` parts, which LangChain's
 * providers translate), one `AIMessage` per run of assistant blocks (text + `tool_calls`), one
 * `ToolMessage` per tool result (`status: 'error'` unless it succeeded), hints as `HumanMessage`s.
 * Tool-call arguments that are not a JSON object are sent as `{}` (LangChain requires an object;
 * the paired result already tells the model what was wrong). Thinking is not sent back.
 *
 * @example
 * ```ts
 * const lc = toLangChainMessages([createMsg('system', 'Be brief.'), createMsg('user', 'hi')]);
 * // [SystemMessage { content: 'Be brief.' }, HumanMessage { content: 'hi' }]
 * ```
 */
export function toLangChainMessages(messages: readonly Msg[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (const turn of toConversationTurns(messages)) {
    switch (turn.kind) {
      case 'system':
        out.push(new SystemMessage(turn.text));
        break;
      case 'user':
        out.push(new HumanMessage({ content: userContent(turn.parts) }));
        break;
      case 'assistant':
        if (!turn.text && !turn.toolCalls.length) break;
        out.push(
          new AIMessage({
            content: turn.text,
            tool_calls: turn.toolCalls.map((c) => ({
              id: c.id,
              name: c.name,
              args: argsObject(c.arguments),
              type: 'tool_call' as const,
            })),
          }),
        );
        break;
      case 'tool':
        out.push(
          new ToolMessage({
            content: turn.text,
            tool_call_id: turn.result.toolCallId,
            name: turn.result.name,
            status: turn.result.status === 'success' ? 'success' : 'error',
          }),
        );
        break;
    }
  }
  return out;
}

function argsObject(raw: string): Record<string, unknown> {
  if (!raw.trim()) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

function userContent(parts: readonly (TextBlock | DataBlock)[]): string | Part[] {
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => p.text).join('\n\n');
  return parts.map((p): Part => {
    if (p.type === 'text') return { type: 'text', text: p.text };
    const url = p.url ?? (p.data !== undefined ? `data:${p.mediaType};base64,${p.data}` : undefined);
    if (p.mediaType.startsWith('image/') && url) return { type: 'image_url', image_url: { url } };
    return { type: 'text', text: `[attachment: ${p.mediaType}${p.url ? ` ${p.url}` : ''}]` };
  });
}
