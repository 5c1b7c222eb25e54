import type { ToolAnswer, ToolQuestionRequest } from '@rxscope/core';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * The parameters of a server's `elicitation/create` request (form or URL mode).
 *
 * @example
 * ```ts
 * const form: McpElicitation = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
 * ```
 */
export type McpElicitation = ElicitRequest['params'];

/**
 * A server's elicitation as the question a tool call asks a person (`ToolQuestion`): form mode
 * carries the requested schema (the answer's `input` is validated against it when the reply
 * resumes), URL mode the page to open. `kind` is `'mcp_elicitation'`; `details` name the server
 * and the mode (and, for URL mode, the elicitation id).
 *
 * @example
 * ```ts
 * elicitationQuestion('shop', { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
 * // { message: 'Your name?', schema: {...}, kind: 'mcp_elicitation', details: { server: 'shop', mode: 'form' } }
 * ```
 */
export function elicitationQuestion(server: string, params: McpElicitation): ToolQuestionRequest {
  if (params.mode === 'url') {
    return {
      message: params.message,
      url: params.url,
      kind: 'mcp_elicitation',
      details: { server, mode: 'url', elicitationId: params.elicitationId },
    };
  }
  return {
    message: params.message,
    schema: params.requestedSchema,
    kind: 'mcp_elicitation',
    details: { server, mode: 'form' },
  };
}

/**
 * A person's answer (`toolCtx.answer`) as the result sent back to the server: confirmed is
 * `accept` (with the form's content), `cancelled` is `cancel`, anything else `decline`.
 *
 * @example
 * ```ts
 * elicitResultOf({ question, confirmed: true, input: { name: 'Ada' } }); // { action: 'accept', content: { name: 'Ada' } }
 * ```
 */
export function elicitResultOf(answer: ToolAnswer): ElicitResult {
  if (answer.confirmed) {
    const content = answer.question.url === undefined ? ((answer.input ?? {}) as ElicitResult['content']) : undefined;
    return content ? { action: 'accept', content } : { action: 'accept' };
  }
  return { action: answer.cancelled ? 'cancel' : 'decline' };
}

/**
 * True when an answer given to an earlier run's question answers this elicitation too: same
 * mode, same message, same schema or URL. A call made again (after its connection was lost, in
 * another process) is answered from it without asking the person twice.
 */
export function answers(answer: ToolAnswer, server: string, params: McpElicitation): boolean {
  const asked = elicitationQuestion(server, params);
  const before = answer.question;
  return (
    before.kind === 'mcp_elicitation' &&
    before.details?.['server'] === server &&
    before.message === asked.message &&
    before.url === asked.url &&
    JSON.stringify(before.schema) === JSON.stringify(asked.schema)
  );
}
