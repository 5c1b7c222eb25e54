import type { ConfirmResult, PendingToolCall } from '@rxscope/core';
import type { Message } from '@a2a-js/sdk';
import { dataOfParts, textOfParts } from './a2a-parts.js';

const YES = /^\s*(y|yes|ok|okay|approve|approved|confirm|confirmed|allow|go ahead)\b/i;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads the client's answer to an `input-required` task (a confirmation) from its next message:
 * a data part `{approve, arguments?, reason?}` (for every waiting call) or `{results: [{toolCallId,
 * confirmed, input?, reason?}]}` (call by call), or text: "yes", "ok", "approve" ... confirms,
 * anything else denies with the text as the reason.
 *
 * @example
 * ```ts
 * const results = confirmationAnswer(requestContext.userMessage, pendingCalls);
 * agent.reply({ type: 'USER_CONFIRM_RESULT', results });
 * ```
 */
export function confirmationAnswer(message: Message, calls: readonly PendingToolCall[]): ConfirmResult[] {
  const data = dataOfParts(message.parts);
  if (isRecord(data) && Array.isArray(data['results'])) {
    const given = new Map<string, Record<string, unknown>>();
    for (const r of data['results'] as unknown[]) if (isRecord(r)) given.set(String(r['toolCallId']), r);
    return calls.map((call) => {
      const r = given.get(call.id);
      if (!r) return { toolCallId: call.id, confirmed: false, reason: 'The caller did not answer for this call.' };
      return answer(call, r['confirmed'] === true, r['input'], r['reason']);
    });
  }
  if (isRecord(data) && typeof data['approve'] === 'boolean')
    return calls.map((call) => answer(call, data['approve'] === true, data['arguments'], data['reason']));
  const text = textOfParts(message.parts).trim();
  const yes = YES.test(text);
  return calls.map((call) => answer(call, yes, undefined, yes ? undefined : text || undefined));
}

function answer(call: PendingToolCall, confirmed: boolean, input: unknown, reason: unknown): ConfirmResult {
  if (!confirmed) {
    const why = typeof reason === 'string' && reason ? reason : 'The caller denied the call.';
    return { toolCallId: call.id, confirmed: false, reason: why };
  }
  return { toolCallId: call.id, confirmed: true, ...(isRecord(input) ? { input } : {}) };
}
