import type { DataBlock, Msg, TextBlock, ToolCallBlock, ToolResultBlock } from '../message/blocks.js';

/** One provider-neutral turn of a conversation, in the order a chat API expects them. */
export type ConversationTurn =
  | { readonly kind: 'system'; readonly text: string }
  | { readonly kind: 'user'; readonly parts: readonly (TextBlock | DataBlock)[] }
  | {
      readonly kind: 'assistant';
      readonly text: string;
      readonly thinking: string;
      readonly toolCalls: readonly ToolCallBlock[];
    }
  | {
      readonly kind: 'tool';
      readonly result: ToolResultBlock;
      /** The result's text; media are named and sent in the user turn that follows the results. */
      readonly text: string;
    };

/**
 * Splits our messages into the turns of a chat API. An assistant `Msg` holds a whole reply —
 * text, thinking, tool calls and tool results interleaved across iterations — so it becomes:
 * consecutive non-result blocks → one assistant turn (text + tool calls), each tool result →
 * a tool turn, each hint → a user turn. Media returned by tools go into one user turn right
 * after the run of tool results (chat APIs accept no media in tool messages, and nothing may
 * stand between an assistant's tool calls and their results). Data blocks written by the
 * assistant are not sent back (chat APIs accept no media in assistant messages).
 *
 * @internal Shared by the model adapters.
 */
export function toConversationTurns(messages: readonly Msg[]): ConversationTurn[] {
  const turns: ConversationTurn[] = [];
  let toolMedia: DataBlock[] = [];
  const flushToolMedia = () => {
    if (toolMedia.length) turns.push({ kind: 'user', parts: toolMedia });
    toolMedia = [];
  };

  for (const msg of messages) {
    if (msg.role === 'system') {
      flushToolMedia();
      const text = msg.content
        .map((b) => (b.type === 'text' ? b.text : b.type === 'hint' ? b.text : ''))
        .filter(Boolean)
        .join('\n\n');
      turns.push({ kind: 'system', text });
      continue;
    }

    let user: (TextBlock | DataBlock)[] = [];
    let text = '';
    let thinking = '';
    let calls: ToolCallBlock[] = [];
    const flushUser = () => {
      if (user.length) turns.push({ kind: 'user', parts: user });
      user = [];
    };
    const flushAssistant = () => {
      if (text || calls.length || thinking) turns.push({ kind: 'assistant', text, thinking, toolCalls: calls });
      text = '';
      thinking = '';
      calls = [];
    };
    const assistant = msg.role === 'assistant';

    for (const block of msg.content) {
      if (block.type === 'tool_result') {
        flushUser();
        flushAssistant();
        const media = block.output.filter((o): o is DataBlock => o.type === 'data');
        toolMedia.push(...media);
        const resultText = block.output
          .map((o) => (o.type === 'text' ? o.text : `[${o.mediaType} attached below]`))
          .join('');
        turns.push({ kind: 'tool', result: block, text: resultText });
        continue;
      }
      flushToolMedia();
      if (block.type === 'hint') {
        flushAssistant();
        user.push({ type: 'text', text: block.text });
        if (assistant) flushUser();
      } else if (assistant) {
        if (block.type === 'text') text += block.text;
        else if (block.type === 'thinking') thinking += block.thinking;
        else if (block.type === 'tool_call') calls.push(block);
        // data blocks of the assistant are not sent back
      } else if (block.type === 'text' || block.type === 'data') {
        user.push(block);
      } else if (block.type === 'tool_call') {
        flushUser();
        calls.push(block);
        flushAssistant();
      }
      // thinking in a user message carries nothing for the model
    }
    flushUser();
    flushAssistant();
  }
  flushToolMedia();
  return turns;
}
