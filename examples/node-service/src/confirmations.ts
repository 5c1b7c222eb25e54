/**
 * The body of `POST /api/sessions/:id/confirmations`, checked before the agent sees it, with
 * messages for the person who answered (the page shows them as they are):
 *
 * - a body of the wrong shape (`"confirmed": "no"`, no `results`, a `toolCallId` that is not a
 *   string) is a bad request: 400 `invalid_body`, naming each field;
 * - an edited input that does not fit the tool is 409 `invalid_edited_input`, naming the tool and
 *   each field in plain words ("amount: expected a number, got text"), never the instructions the
 *   model gets for its own bad arguments.
 *
 * What depends on the reply itself (nothing waits, a call missing or unknown) is the agent's to
 * refuse (409, its `AgentUsageError`).
 */
import type { ConfirmResult, PendingReply, Tool } from '@rxscope/core';
import { HttpError } from '@rxscope/core/node';
import { z } from 'zod';

const ConfirmationsBody = z.object({
  results: z.array(
    z.object({
      toolCallId: z.string().min(1),
      confirmed: z.boolean(),
      reason: z.string().optional(),
      input: z.record(z.string(), z.unknown()).optional(),
      alwaysAllow: z.boolean().optional(),
    }),
  ),
  replyId: z.string().optional(),
});

/** What the service passes on to the agent. */
export interface Confirmations {
  readonly results: ConfirmResult[];
  readonly replyId?: string;
}

const KINDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
};

/** What a value is, in words. */
function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  return KINDS[Array.isArray(value) ? 'array' : typeof value] ?? typeof value;
}

/** A zod issue in words for a person: `amount: expected a number, got text`. */
function inWords(issue: z.core.$ZodIssue): string {
  const field = issue.path.length ? issue.path.map(String).join('.') : 'the value';
  if (issue.code === 'invalid_type') {
    return `${field}: expected ${KINDS[issue.expected] ?? issue.expected}, got ${kindOf((issue as { input?: unknown }).input)}`;
  }
  return `${field}: ${issue.message.replace(/^Invalid input: /, '').replace(/^Too (small|big): /, '')}`;
}

/**
 * Checks a confirmations body against its shape and, for the calls of `pending`, every edited
 * input against its tool's schema. Throws an `HttpError` (400 or 409) with a message for a person.
 *
 * @example
 * ```ts
 * const { results, replyId } = checkConfirmations(await readJsonBody(req), agent.pending, tools);
 * ```
 */
export function checkConfirmations(
  body: unknown,
  pending: PendingReply | undefined,
  tools: readonly Tool[],
): Confirmations {
  const parsed = ConfirmationsBody.safeParse(body, { reportInput: true });
  if (!parsed.success) {
    const problems = parsed.error.issues.map(inWords).join('; ');
    throw new HttpError(
      400,
      `The body needs "results": [{toolCallId, confirmed: true or false, input?, reason?}]. Wrong: ${problems}.`,
      'invalid_body',
    );
  }
  for (const r of parsed.data.results) {
    if (!r.confirmed || r.input === undefined) continue;
    const call = pending?.confirm.find((c) => c.id === r.toolCallId);
    const tool = call && tools.find((t) => t.name === call.name);
    if (!tool) continue; // an unknown call: the agent says which ones it waits for
    // This service's tools are defined with zod (./tools.ts): its issues say what a person should read.
    const checked = (tool.inputSchema as z.ZodType).safeParse(r.input, { reportInput: true });
    if (!checked.success) {
      throw new HttpError(
        409,
        `The changes to ${tool.name} cannot be used: ${checked.error.issues.map(inWords).join('; ')}. Correct them and confirm again, or reject the call.`,
        'invalid_edited_input',
      );
    }
  }
  return {
    results: parsed.data.results,
    ...(parsed.data.replyId !== undefined ? { replyId: parsed.data.replyId } : {}),
  };
}
