import type { AgentEvent, ContentBlock, Msg, ToolResultContent } from '@rxscope/core';

/**
 * Message content in the shape of the GenAI conventions' `gen_ai.input.messages` /
 * `gen_ai.output.messages` JSON schemas: `{role, parts: [{type, ...}]}`. Used only when the
 * tracing middleware captures content.
 */
export type GenAiPart = { readonly type: string } & Readonly<Record<string, unknown>>;

export interface GenAiMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly parts: readonly GenAiPart[];
  readonly finish_reason?: string;
}

/** A tool's output as text: text blocks joined, media as a `[mediaType]` placeholder. */
export function resultText(output: readonly ToolResultContent[]): string {
  return output.map((c) => (c.type === 'text' ? c.text : `[${c.mediaType}]`)).join('');
}

/** Parsed JSON arguments, or the raw text when they are not valid JSON. */
function parsedArguments(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function partOf(block: ContentBlock): GenAiPart {
  switch (block.type) {
    case 'text':
    case 'hint':
      return { type: 'text', content: block.text };
    case 'thinking':
      return { type: 'reasoning', content: block.thinking };
    case 'tool_call':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: parsedArguments(block.arguments) };
    case 'tool_result':
      return { type: 'tool_call_response', id: block.toolCallId, response: resultText(block.output) };
    case 'data': {
      const modality = block.mediaType.split('/')[0] ?? block.mediaType;
      return block.url !== undefined
        ? { type: 'uri', mime_type: block.mediaType, modality, uri: block.url }
        : { type: 'blob', mime_type: block.mediaType, modality, content: block.data ?? '' };
    }
  }
}

/**
 * Converts messages to GenAI messages. Tool results, which rxscope keeps inside the assistant
 * message, become `tool` messages in place; leading `system` messages are returned apart as
 * system instructions.
 */
export function toGenAiMessages(messages: readonly Msg[]): { system: GenAiPart[]; messages: GenAiMessage[] } {
  const system: GenAiPart[] = [];
  const out: GenAiMessage[] = [];
  for (const msg of messages) {
    if (msg.role === 'system' && out.length === 0) {
      system.push(...msg.content.map(partOf));
      continue;
    }
    let role: GenAiMessage['role'] | undefined;
    let parts: GenAiPart[] = [];
    for (const block of msg.content) {
      const blockRole = block.type === 'tool_result' ? 'tool' : msg.role;
      if (blockRole !== role && parts.length) {
        out.push({ role: role!, parts });
        parts = [];
      }
      role = blockRole;
      parts.push(partOf(block));
    }
    if (parts.length) out.push({ role: role!, parts });
  }
  return { system, messages: out };
}

/** A whole reply message as one output message (its tool results included as parts). */
export function toOutputMessage(msg: Msg, finishReason: string | undefined): GenAiMessage {
  const parts = msg.content.map(partOf);
  return finishReason !== undefined
    ? { role: 'assistant', parts, finish_reason: finishReason }
    : { role: 'assistant', parts };
}

/**
 * Collects what a model call streams (text, reasoning, tool calls) into output parts.
 * `reset()` starts over (a retried attempt replaces the failed one's output).
 */
export class StreamedOutput {
  private parts: { type: 'text' | 'reasoning' | 'tool_call'; text: string; id?: string; name?: string }[] = [];
  private readonly open = new Map<string, { text: string }>();

  reset(): void {
    this.parts = [];
    this.open.clear();
  }

  add(e: AgentEvent): void {
    switch (e.type) {
      case 'TEXT_BLOCK_START':
      case 'THINKING_BLOCK_START': {
        const part = { type: e.type === 'TEXT_BLOCK_START' ? ('text' as const) : ('reasoning' as const), text: '' };
        this.parts.push(part);
        this.open.set(e.blockId, part);
        break;
      }
      case 'TOOL_CALL_START': {
        const part = { type: 'tool_call' as const, text: '', id: e.toolCallId, name: e.name };
        this.parts.push(part);
        this.open.set(e.blockId, part);
        break;
      }
      case 'TEXT_BLOCK_DELTA':
      case 'THINKING_BLOCK_DELTA':
      case 'TOOL_CALL_DELTA': {
        const part = this.open.get(e.blockId);
        if (part) part.text += e.delta;
        break;
      }
      default:
        break;
    }
  }

  message(finishReason: string | undefined): GenAiMessage {
    const parts = this.parts.map((p): GenAiPart =>
      p.type === 'tool_call'
        ? { type: 'tool_call', id: p.id, name: p.name, arguments: parsedArguments(p.text) }
        : { type: p.type, content: p.text },
    );
    return finishReason !== undefined
      ? { role: 'assistant', parts, finish_reason: finishReason }
      : { role: 'assistant', parts };
  }
}
