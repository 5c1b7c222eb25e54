/**
 * What a running tool asks a person: a message, and either a form to fill in (`schema`, a JSON
 * Schema of an object; the answer's `input` is validated against it before the reply resumes) or
 * a page to visit (`url`). `kind` and `details` say who asks and why, for a UI (an MCP server's
 * elicitation: `kind: 'mcp_elicitation'`).
 *
 * @example
 * ```ts
 * const question: ToolQuestionRequest = {
 *   message: 'Which account should be charged?',
 *   schema: { type: 'object', properties: { account: { type: 'string' } }, required: ['account'] },
 * };
 * ```
 */
export interface ToolQuestionRequest {
  readonly message: string;
  readonly schema?: Readonly<Record<string, unknown>>;
  readonly url?: string;
  readonly kind?: string;
  readonly details?: Readonly<Record<string, unknown>>;
}
