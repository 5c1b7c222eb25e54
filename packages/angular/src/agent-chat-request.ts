import type { ConfirmResult } from '@rxscope/core';

/**
 * The JSON body `injectAgentChat()` POSTs with the `'sse'` transport; the server answers each
 * with the events of one reply (`createAgentSseHandler`):
 *
 * - `{ message }`: a new user message — `agent.reply(message)`;
 * - `{ message, regenerate: true }`: the same message again, to answer anew — rewind the
 *   conversation to before the last user message, then `agent.reply(message)`;
 * - `{ confirmations }`: the answers to every call of `REQUIRE_USER_CONFIRM` —
 *   `agent.reply({ type: 'USER_CONFIRM_RESULT', results: confirmations })`.
 *
 * @example
 * ```ts
 * const body = (await request.body()) as AgentChatRequest;
 * return 'confirmations' in body
 *   ? agent.reply({ type: 'USER_CONFIRM_RESULT', results: body.confirmations })
 *   : agent.reply(body.message);
 * ```
 */
export type AgentChatRequest =
  { readonly message: string; readonly regenerate?: true } | { readonly confirmations: readonly ConfirmResult[] };
