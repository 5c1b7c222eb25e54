import type { ConfirmResult, PendingToolCall } from '@rxscope/core';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Sends one form-mode `elicitation/create` request to the client and resolves with its answer.
 *
 * @example
 * ```ts
 * const elicit: Elicit = (params) => extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema);
 * ```
 */
export type Elicit = (params: ElicitRequestFormParams) => Promise<ElicitResult>;

/** How many times a person is asked again after sending arguments that are not a JSON object. */
const MAX_ASKS = 3;

/** The form a client shows for one tool call: approve or deny, the arguments to edit, a reason. */
export function confirmationRequest(call: PendingToolCall, problem?: string): ElicitRequestFormParams {
  const args = JSON.stringify(call.input ?? {});
  return {
    mode: 'form',
    message:
      (problem ? `${problem}\n\n` : '') +
      `The agent wants to call the tool "${call.name}" with ${args}.` +
      (call.reason ? ` It asks because: ${call.reason}.` : '') +
      ' Approve the call, or deny it?',
    requestedSchema: {
      type: 'object',
      properties: {
        approve: { type: 'boolean', title: 'Approve', description: `Run ${call.name}.`, default: false },
        arguments: {
          type: 'string',
          title: 'Arguments (JSON)',
          description: 'The arguments the tool runs with; edit them to change the call.',
          default: args,
        },
        reason: { type: 'string', title: 'Reason', description: 'Why not (told to the agent when you deny).' },
      },
      required: ['approve'],
    },
  };
}

/**
 * Asks the MCP client, by elicitation, about each call a reply stopped for, and returns the
 * answers as `USER_CONFIRM_RESULT` results: `accept` with `approve` confirms (with the edited
 * `arguments` when they differ), `accept` without it, `decline` and `cancel` deny. Arguments
 * that are not a JSON object are asked for again (at most three times), then the call is denied.
 *
 * @example
 * ```ts
 * const results = await confirmByElicitation(pending, (params) => extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema));
 * agent.reply({ type: 'USER_CONFIRM_RESULT', results });
 * ```
 */
export async function confirmByElicitation(
  calls: readonly PendingToolCall[],
  elicit: Elicit,
): Promise<ConfirmResult[]> {
  const results: ConfirmResult[] = [];
  for (const call of calls) results.push(await confirmOne(call, elicit));
  return results;
}

async function confirmOne(call: PendingToolCall, elicit: Elicit): Promise<ConfirmResult> {
  let problem: string | undefined;
  for (let ask = 0; ask < MAX_ASKS; ask++) {
    const answer = await elicit(confirmationRequest(call, problem));
    if (answer.action !== 'accept') {
      return {
        toolCallId: call.id,
        confirmed: false,
        reason: answer.action === 'decline' ? 'The user declined the call.' : 'The user dismissed the request.',
      };
    }
    const content = answer.content ?? {};
    if (content['approve'] !== true) {
      const why =
        typeof content['reason'] === 'string' && content['reason'] ? content['reason'] : 'The user denied the call.';
      return { toolCallId: call.id, confirmed: false, reason: why };
    }
    const edited = content['arguments'];
    if (typeof edited !== 'string' || edited === JSON.stringify(call.input ?? {}))
      return { toolCallId: call.id, confirmed: true };
    const parsed = parseObject(edited);
    if (parsed !== undefined) return { toolCallId: call.id, confirmed: true, input: parsed };
    problem = `The arguments you sent are not a JSON object: ${edited.slice(0, 200)}`;
  }
  return { toolCallId: call.id, confirmed: false, reason: `The user sent invalid arguments ${MAX_ASKS} times.` };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
