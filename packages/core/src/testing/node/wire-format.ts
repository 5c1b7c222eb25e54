// The Chat Completions wire format: a scripted turn rendered as a `chat.completion` and as the
// `chat.completion.chunk`s of its stream (tool-call arguments split over several chunks).
import { withToolCallFault } from './faults.js';
import type { RecordedBody } from './recording.js';
import type { BuiltResponse, ServerTurn, WireToolCall } from './server-types.js';

export type { BuiltResponse } from './server-types.js';

const chunksOf = (v: string | readonly string[] | undefined): readonly string[] =>
  v === undefined ? [] : typeof v === 'string' ? [v] : v;

/** Splits a string into up to `parts` non-empty pieces (so arguments stream over several chunks). */
function split(text: string, parts = 3): string[] {
  if (text.length < 2) return text ? [text] : [''];
  const size = Math.ceil(text.length / Math.min(parts, text.length));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function toolCallsOf(turn: ServerTurn, body: RecordedBody, index: number): WireToolCall[] {
  const declared = (body.tools ?? []).map((t) => t.function?.name).filter((n): n is string => typeof n === 'string');
  const calls = (turn.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${index}_${i}_${Math.random().toString(36).slice(2, 10)}`,
    name: c.name,
    // `input` (or the deprecated object `arguments`) as JSON text; a string `arguments` as it is.
    arguments:
      c.input !== undefined
        ? JSON.stringify(c.input)
        : typeof c.arguments === 'string'
          ? c.arguments
          : JSON.stringify(c.arguments ?? {}),
  }));
  return withToolCallFault(turn.fault, calls, declared, index);
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Renders `turn` as the completion and the stream chunks answering chat request number `index`. */
export function buildResponse(turn: ServerTurn, body: RecordedBody, model: string, index: number): BuiltResponse {
  const id = `chatcmpl-test${index}${Math.random().toString(36).slice(2, 8)}`;
  const created = Math.floor(Date.now() / 1000);
  const text = chunksOf(turn.text);
  const reasoning = chunksOf(turn.thinking ?? turn.reasoning);
  const calls = toolCallsOf(turn, body, index);
  const finishReason = turn.finishReason ?? (calls.length ? 'tool_calls' : 'stop');
  const u = turn.usage ?? {};
  const promptTokens = u.inputTokens ?? u.prompt_tokens ?? estimateTokens(JSON.stringify(body.messages));
  const completionTokens =
    u.outputTokens ??
    u.completion_tokens ??
    estimateTokens(text.join('') + reasoning.join('') + calls.map((c) => c.name + c.arguments).join(''));
  const cached = u.cacheReadTokens ?? u.cached_tokens;
  const reasoningTokens = u.reasoningTokens ?? u.reasoning_tokens;
  const usage: Record<string, unknown> = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    ...(cached !== undefined ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
    ...(reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
  };
  const empty = turn.fault === 'empty_choices';
  const base = { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_rxscope_test' };
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });

  const chunks: Record<string, unknown>[] = [];
  if (empty) {
    chunks.push({ ...base, choices: [] });
  } else {
    chunks.push(choice({ role: 'assistant', content: '', refusal: null }));
    for (const r of reasoning) chunks.push(choice({ reasoning_content: r }));
    for (const t of text) chunks.push(choice({ content: t }));
    calls.forEach((c, i) => {
      chunks.push(
        choice({ tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }),
      );
      for (const piece of split(c.arguments))
        chunks.push(choice({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    });
    chunks.push(choice({}, finishReason));
  }

  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text.length ? text.join('') : null,
    refusal: null,
    ...(reasoning.length ? { reasoning_content: reasoning.join('') } : {}),
    ...(calls.length
      ? {
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          })),
        }
      : {}),
  };
  const completion = {
    id,
    object: 'chat.completion',
    created,
    model,
    system_fingerprint: 'fp_rxscope_test',
    choices: empty ? [] : [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage,
  };
  return { id, completion, chunks, usageChunk: { ...base, choices: [], usage } };
}

/** The SSE lines of a streamed response: the chunks, the usage chunk when asked for, `[DONE]`. */
export function sseLines(r: BuiltResponse, includeUsage: boolean): string[] {
  const lines: string[] = [];
  const usageField = includeUsage ? { usage: null } : {};
  for (const chunk of r.chunks) lines.push(`data: ${JSON.stringify({ ...chunk, ...usageField })}\n\n`);
  if (includeUsage) lines.push(`data: ${JSON.stringify({ ...r.usageChunk })}\n\n`);
  lines.push('data: [DONE]\n\n');
  return lines;
}
