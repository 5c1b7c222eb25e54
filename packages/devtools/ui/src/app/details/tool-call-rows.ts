import type { RecordedEvent, ReplyRecord } from '@rxscope/devtools';
import { arrayField, eventType, field, stringField } from '../records/event-fields';
import { type ShownValue, joinPieces, showValue } from '../records/shown-value';

/** One row of the tool-call table. */
export interface ToolCallRow {
  readonly toolCallId: string;
  readonly name: string;
  /** The arguments: the JSON the model streamed (or the input asked about in a confirmation). */
  readonly input: ShownValue;
  /** The result as the tool returned it (text parts joined; data parts named by media type). */
  readonly output: ShownValue;
  /** `success`, `error`, `denied`, `interrupted`; `running` without a result yet. */
  readonly status: string;
  /** When the model started the call (ms since the epoch). */
  readonly startedAt: number;
  /** From the model's call to the tool's result; `undefined` while it runs. */
  readonly durationMs: number | undefined;
}

interface Draft {
  name: string;
  args: unknown[];
  input?: unknown;
  resultPieces: unknown[];
  end?: RecordedEvent;
  start: RecordedEvent;
}

/** A data part's media type, as its label. */
function mediaTypeOf(part: unknown): string {
  const type = field(part, 'mediaType');
  return typeof type === 'string' ? type : 'data';
}

/** The result's output: text parts joined, a data part as `[media type]`, `value` when given. */
function outputOf(d: Draft): ShownValue {
  if (!d.end) return joinPieces(d.resultPieces);
  const value = d.end.event['value'];
  if (value !== undefined) return showValue(value);
  const parts = arrayField(d.end, 'output').map((p) =>
    field(p, 'type') === 'text' ? field(p, 'text') : `[${mediaTypeOf(p)}]`,
  );
  return parts.length > 0 ? joinPieces(parts) : joinPieces(d.resultPieces);
}

/**
 * The reply's tool calls in the order the model made them, with their input, output, status and
 * time, read from the recorded events (a subagent's own calls belong to its own reply).
 *
 * @example
 * ```ts
 * toolCallRows(record).map((r) => `${r.name}: ${r.status}`); // ['lookup_order: success', ...]
 * ```
 */
export function toolCallRows(record: ReplyRecord): ToolCallRow[] {
  const agent = record.summary.agentName;
  const calls = new Map<string, Draft>();
  const byBlock = new Map<string, Draft>();
  for (const e of record.events) {
    const source = stringField(e, 'source');
    if (source !== undefined && source !== agent) continue;
    const type = eventType(e);
    const id = stringField(e, 'toolCallId');
    if (type === 'TOOL_CALL_START' && id) {
      calls.set(id, { name: stringField(e, 'name') ?? '?', args: [], resultPieces: [], start: e });
    } else if (type === 'TOOL_CALL_DELTA' && id) {
      calls.get(id)?.args.push(e.event['delta']);
    } else if (type === 'TOOL_RESULT_START' && id) {
      const d = calls.get(id) ?? { name: stringField(e, 'name') ?? '?', args: [], resultPieces: [], start: e };
      calls.set(id, d);
      const block = stringField(e, 'blockId');
      if (block) byBlock.set(block, d);
    } else if (type === 'TOOL_RESULT_DELTA') {
      byBlock.get(stringField(e, 'blockId') ?? '')?.resultPieces.push(e.event['delta']);
    } else if (type === 'TOOL_RESULT_END' && id) {
      const d = calls.get(id);
      if (d) d.end = e;
    } else if (type === 'REQUIRE_USER_CONFIRM' || type === 'REQUIRE_EXTERNAL_EXECUTION') {
      for (const call of arrayField(e, 'toolCalls')) {
        const d = calls.get(String(field(call, 'id')));
        if (d && d.input === undefined) d.input = field(call, 'input');
      }
    }
  }
  return [...calls].map(([toolCallId, d]) => ({
    toolCallId,
    name: d.name,
    input: d.args.length > 0 ? joinPieces(d.args) : showValue(d.input),
    output: outputOf(d),
    status: d.end ? (stringField(d.end, 'status') ?? 'ended') : 'running',
    startedAt: d.start.t,
    durationMs: d.end ? d.end.t - d.start.t : undefined,
  }));
}
