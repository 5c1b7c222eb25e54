import type { AgentEvent, ReplyEndEvent, ToolResultStatus, Usage } from '@rxscope/core';

/**
 * One tool call of a reply as the scorers see it: its name, its arguments (parsed from the
 * streamed JSON; the raw text with `inputError` when it is not JSON), and how its result ended
 * (`status` is missing when no result came).
 *
 * @example
 * ```ts
 * const call: ToolCallRecord = { id: 'c1', name: 'read_file', input: { path: 'a.ts' }, status: 'success', output: 'export …' };
 * ```
 */
export interface ToolCallRecord {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  readonly inputError?: string;
  readonly status?: ToolResultStatus;
  /** The result's text parts, joined. */
  readonly output?: string;
}

/**
 * What scorers read of one reply: its events as they came, and what is derived from them — the
 * final answer's text, the tool calls in order, the `REPLY_END` (missing when the stream ended
 * without one), the usage and the time from `REPLY_START` to `REPLY_END`. Only the agent's own
 * events count (a subagent's are in `events`).
 *
 * @example
 * ```ts
 * const sample = replySample(await runReply(agent, 'hi'));
 * sample.toolCalls.map((c) => c.name); // ['read_file']
 * ```
 */
export interface ReplySample {
  readonly events: readonly AgentEvent[];
  /** The text of the reply's last model call that wrote text (its final answer). */
  readonly answer: string;
  /** Every text the reply wrote, joined. */
  readonly text: string;
  readonly toolCalls: readonly ToolCallRecord[];
  readonly end?: ReplyEndEvent;
  readonly usage: Usage;
  readonly durationMs?: number;
  /** The number of model calls. */
  readonly modelCalls: number;
}

interface OpenCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Derives a {@link ReplySample} from a reply's events. Tolerates malformed streams (no
 * `REPLY_START`, no `REPLY_END`, deltas of unknown blocks, arguments that are not JSON): what
 * cannot be read is left out or marked, never thrown; the grammar scorer says what is wrong.
 *
 * @example
 * ```ts
 * const sample = replySample(events);
 * if (!sample.end) console.log('the reply never ended');
 * ```
 */
export function replySample(events: readonly AgentEvent[]): ReplySample {
  const root = events.find((e) => e.type === 'REPLY_START')?.source ?? events[0]?.source;
  const own = events.filter((e) => e.source === root);
  const calls = new Map<string, OpenCall>();
  const byBlock = new Map<string, OpenCall>();
  const results = new Map<string, { status: ToolResultStatus; output: string }>();
  const texts: string[][] = [];
  let modelCalls = 0;
  let summed: Usage = { inputTokens: 0, outputTokens: 0 };
  for (const e of own) {
    if (e.type === 'MODEL_CALL_START') {
      modelCalls++;
      texts.push([]);
    } else if (e.type === 'TEXT_BLOCK_DELTA') {
      if (texts.length === 0) texts.push([]);
      texts.at(-1)!.push(e.delta);
    } else if (e.type === 'TOOL_CALL_START') {
      const call = { id: e.toolCallId, name: e.name, args: '' };
      calls.set(e.toolCallId, call);
      byBlock.set(e.blockId, call);
    } else if (e.type === 'TOOL_CALL_DELTA') {
      const call = byBlock.get(e.blockId);
      if (call) call.args += e.delta;
    } else if (e.type === 'TOOL_RESULT_END') {
      const output = e.output
        .map((p) => (p.type === 'text' ? p.text : ''))
        .join('')
        .trim();
      results.set(e.toolCallId, { status: e.status, output });
    } else if (e.type === 'MODEL_CALL_END') {
      summed = {
        inputTokens: summed.inputTokens + (e.usage?.inputTokens ?? 0),
        outputTokens: summed.outputTokens + (e.usage?.outputTokens ?? 0),
      };
    }
  }
  const written = texts.filter((t) => t.length > 0);
  const end = own.find((e): e is ReplyEndEvent => e.type === 'REPLY_END');
  const start = own.find((e) => e.type === 'REPLY_START');
  const toolCalls = [...calls.values()].map((c): ToolCallRecord => {
    const result = results.get(c.id);
    const parsed = parseArgs(c.args);
    return {
      id: c.id,
      name: c.name,
      input: parsed.value,
      ...(parsed.error ? { inputError: parsed.error } : {}),
      ...(result ? { status: result.status, output: result.output } : {}),
    };
  });
  return {
    events,
    answer: (written.at(-1) ?? []).join(''),
    text: written.map((t) => t.join('')).join('\n'),
    toolCalls,
    ...(end ? { end } : {}),
    usage: end?.usage ?? summed,
    ...(start && end ? { durationMs: end.createdAt - start.createdAt } : {}),
    modelCalls,
  };
}

function parseArgs(args: string): { value: unknown; error?: string } {
  if (args.trim() === '') return { value: {} };
  try {
    return { value: JSON.parse(args) };
  } catch (e) {
    return { value: args, error: `arguments are not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}
