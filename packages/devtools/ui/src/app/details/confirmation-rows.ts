import type { ReplyRecord } from '@rxscope/devtools';
import { arrayField, eventType, field } from '../records/event-fields';
import { type ShownValue, showValue } from '../records/shown-value';

/** One tool call a person was asked to confirm, and the answer. */
export interface ConfirmationRow {
  readonly toolCallId: string;
  readonly name: string;
  readonly input: ShownValue;
  /** Why the call asked (the permission rule or the tool's own check), when it says. */
  readonly reason: string | undefined;
  readonly askedAt: number;
  /** `confirmed`, `rejected`, or `waiting` while nobody answered. */
  readonly answer: 'confirmed' | 'rejected' | 'waiting';
  /** The reason given with the answer. */
  readonly answerReason: string | undefined;
  /** The input the person edited before confirming, when they did. */
  readonly editedInput: ShownValue | undefined;
  /** The person allowed such calls from now on. */
  readonly alwaysAllow: boolean;
  readonly answeredAt: number | undefined;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The confirmations of a reply: every call a `REQUIRE_USER_CONFIRM` asked about, matched with its
 * answer in the `USER_CONFIRM_RESULT` that resumed the reply.
 *
 * @example
 * ```ts
 * confirmationRows(record).filter((c) => c.answer === 'waiting'); // what still waits for a person
 * ```
 */
export function confirmationRows(record: ReplyRecord): ConfirmationRow[] {
  const rows = new Map<string, ConfirmationRow>();
  for (const e of record.events) {
    const type = eventType(e);
    if (type === 'REQUIRE_USER_CONFIRM') {
      for (const call of arrayField(e, 'toolCalls')) {
        const id = String(field(call, 'id'));
        rows.set(id, {
          toolCallId: id,
          name: text(field(call, 'name')) ?? '?',
          input: showValue(field(call, 'input')),
          reason: text(field(call, 'reason')),
          askedAt: e.t,
          answer: 'waiting',
          answerReason: undefined,
          editedInput: undefined,
          alwaysAllow: false,
          answeredAt: undefined,
        });
      }
    } else if (type === 'USER_CONFIRM_RESULT') {
      for (const result of arrayField(e, 'results')) {
        const row = rows.get(String(field(result, 'toolCallId')));
        if (!row) continue;
        const edited = field(result, 'input');
        rows.set(row.toolCallId, {
          ...row,
          answer: field(result, 'confirmed') === true ? 'confirmed' : 'rejected',
          answerReason: text(field(result, 'reason')),
          editedInput: edited === undefined ? undefined : showValue(edited),
          alwaysAllow: field(result, 'alwaysAllow') === true,
          answeredAt: e.t,
        });
      }
    }
  }
  return [...rows.values()];
}
