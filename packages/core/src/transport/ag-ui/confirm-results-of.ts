import type { ResumeEntry } from '@ag-ui/core';
import { AgentUsageError } from '../../agent/errors.js';
import type { ConfirmResult } from '../../event/events.js';

/**
 * Turns the `resume` entries of an AG-UI run (answers to tool-call interrupts) into the
 * `USER_CONFIRM_RESULT` results of the suspended reply. A call runs only when its answer approves
 * it explicitly:
 *
 * - `status: 'resolved'` with `payload: {approved: true}` approves (`confirmed` is accepted as an
 *   alias of `approved`); `payload.editedArgs` (alias `input`) replaces the arguments — a full
 *   replacement, validated against the tool's schema like any edit; `payload.alwaysAllow: true`
 *   also allows the tool from now on.
 * - `payload: {approved: false}` denies, with `payload.reason` shown to the model.
 * - `status: 'cancelled'` (the user abandoned the interrupt) denies (`cancelled: true`: a tool's
 *   question is sent on as cancelled rather than declined).
 * - A `resolved` entry whose payload does not say `approved: true | false` is refused with an
 *   {@link AgentUsageError}: nothing runs and the interrupt stays open, so the client can answer
 *   it again.
 *
 * @example
 * ```ts
 * confirmResultsOf([{ interruptId: 'call-1', status: 'resolved', payload: { approved: false, reason: 'Not now' } }]);
 * // → [{ toolCallId: 'call-1', confirmed: false, reason: 'Not now' }]
 * ```
 */
export function confirmResultsOf(resume: readonly ResumeEntry[]): ConfirmResult[] {
  return resume.map((entry) => {
    const refuse = (why: string): never => {
      throw new AgentUsageError(`The answer to interrupt "${entry.interruptId}" ${why}`);
    };
    const payload: unknown = entry.payload;
    const fields = isRecord(payload) ? payload : {};
    const reason = typeof fields['reason'] === 'string' ? { reason: fields['reason'] } : {};
    if (entry.status === 'cancelled')
      return { toolCallId: entry.interruptId, confirmed: false, cancelled: true, ...reason };
    if (entry.status !== 'resolved')
      return refuse(`has an unknown status "${String(entry.status)}"; use "resolved" or "cancelled".`);
    if (!isRecord(payload)) return refuse('needs a payload {approved: true | false, editedArgs?}.');
    const approved = fields['approved'] ?? fields['confirmed'];
    if (typeof approved !== 'boolean')
      return refuse(`needs "approved": true or false in its payload, got ${JSON.stringify(approved)}.`);
    if (!approved) return { toolCallId: entry.interruptId, confirmed: false, ...reason };
    const edited = fields['editedArgs'] ?? fields['input'];
    if (edited !== undefined && !isRecord(edited))
      return refuse('has "editedArgs" that is not an object (a full replacement of the arguments).');
    return {
      toolCallId: entry.interruptId,
      confirmed: true,
      ...(edited !== undefined ? { input: edited } : {}),
      ...(fields['alwaysAllow'] === true ? { alwaysAllow: true } : {}),
    };
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
