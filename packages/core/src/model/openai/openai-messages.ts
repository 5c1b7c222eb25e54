import type { DataBlock, Msg, TextBlock } from '../../message/blocks.js';
import type { ToolChoice, ToolSchema } from '../chat-model.js';
import { toConversationTurns } from '../conversation.js';

/**
 * A content part of an OpenAI chat message.
 *
 * @example
 * ```ts
 * const part: OpenAIContentPart = { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } };
 * ```
 */
export type OpenAIContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } }
  | { readonly type: 'input_audio'; readonly input_audio: { readonly data: string; readonly format: 'wav' | 'mp3' } }
  | { readonly type: 'file'; readonly file: { readonly filename: string; readonly file_data: string } };

/**
 * A message of the OpenAI Chat Completions wire format.
 *
 * @example
 * ```ts
 * const result: OpenAIWireMessage = { role: 'tool', tool_call_id: 'call_1', content: 'Sunny' };
 * ```
 */
export type OpenAIWireMessage =
  | { readonly role: 'system' | 'developer'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | readonly OpenAIContentPart[] }
  | {
      readonly role: 'assistant';
      readonly content: string | null;
      readonly tool_calls?: readonly {
        readonly id: string;
        readonly type: 'function';
        readonly function: { readonly name: string; readonly arguments: string };
      }[];
      readonly reasoning_content?: string;
    }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

/**
 * Options of {@link toOpenAIMessages}.
 *
 * @example
 * ```ts
 * const wire = toOpenAIMessages(messages, { sendReasoning: true, systemRole: 'developer' });
 * ```
 */
export interface ToOpenAIMessagesOptions {
  /** Send the assistant's thinking back as `reasoning_content` (for servers that want it). Default false. */
  readonly sendReasoning?: boolean;
  /** Role of system messages: `developer` for OpenAI reasoning models (as ChatOpenAI sends them). Default `system`. */
  readonly systemRole?: 'system' | 'developer';
}

/**
 * Converts our messages to the OpenAI Chat Completions wire format. System and user messages
 * map directly (data blocks become `image_url`, `input_audio` or `file` parts); an assistant
 * message becomes, in order: one assistant message per run of non-result blocks (text +
 * `tool_calls`), one `tool` message per tool result, one user message per hint. Media returned by
 * tools follow the tool messages as one user message. Thinking is dropped unless `sendReasoning`.
 *
 * @example
 * ```ts
 * const wire = toOpenAIMessages([createMsg('system', 'Be brief.'), createMsg('user', 'hi')]);
 * // [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }]
 * ```
 */
export function toOpenAIMessages(messages: readonly Msg[], options: ToOpenAIMessagesOptions = {}): OpenAIWireMessage[] {
  const out: OpenAIWireMessage[] = [];
  for (const turn of toConversationTurns(messages)) {
    switch (turn.kind) {
      case 'system':
        out.push({ role: options.systemRole ?? 'system', content: turn.text });
        break;
      case 'user':
        out.push({ role: 'user', content: userContent(turn.parts) });
        break;
      case 'assistant': {
        if (!turn.text && !turn.toolCalls.length) break; // thinking alone is not a message
        out.push({
          role: 'assistant',
          content: turn.text || null,
          ...(turn.toolCalls.length
            ? {
                tool_calls: turn.toolCalls.map((c) => ({
                  id: c.id,
                  type: 'function' as const,
                  function: { name: c.name, arguments: c.arguments.trim() ? c.arguments : '{}' },
                })),
              }
            : {}),
          ...(options.sendReasoning && turn.thinking ? { reasoning_content: turn.thinking } : {}),
        });
        break;
      }
      case 'tool':
        out.push({ role: 'tool', tool_call_id: turn.result.toolCallId, content: turn.text });
        break;
    }
  }
  return out;
}

function userContent(parts: readonly (TextBlock | DataBlock)[]): string | OpenAIContentPart[] {
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => p.text).join('\n\n');
  return parts.map((p) => (p.type === 'text' ? { type: 'text', text: p.text } : dataPart(p)));
}

const AUDIO_FORMATS: Record<string, 'wav' | 'mp3'> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
};

/** A data block as a content part: images by URL or data URL, wav/mp3 audio, PDFs as files, else a text note. */
function dataPart(block: DataBlock): OpenAIContentPart {
  const dataUrl = block.data !== undefined ? `data:${block.mediaType};base64,${block.data}` : undefined;
  if (block.mediaType.startsWith('image/') && (block.url ?? dataUrl)) {
    return { type: 'image_url', image_url: { url: (block.url ?? dataUrl)! } };
  }
  const audio = AUDIO_FORMATS[block.mediaType];
  if (audio && block.data !== undefined)
    return { type: 'input_audio', input_audio: { data: block.data, format: audio } };
  if (block.mediaType === 'application/pdf' && dataUrl)
    return { type: 'file', file: { filename: 'document.pdf', file_data: dataUrl } };
  return { type: 'text', text: `[attachment: ${block.mediaType}${block.url ? ` ${block.url}` : ''}]` };
}

/**
 * A tool as an OpenAI function tool.
 *
 * @example
 * ```ts
 * toOpenAITool(add.schema); // { type: 'function', function: { name: 'add', description: 'Adds two numbers', parameters: {...} } }
 * ```
 */
export function toOpenAITool(tool: ToolSchema): {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
} {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } },
  };
}

/**
 * Our tool choice in the wire format: `'auto' | 'none' | 'required' | {type: 'function', function: {name}}`.
 *
 * @example
 * ```ts
 * toOpenAIToolChoice({ name: 'add' }); // { type: 'function', function: { name: 'add' } }
 * ```
 */
export function toOpenAIToolChoice(
  choice: ToolChoice,
): 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } } {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}
