import { RxscopeError } from '../error/rxscope-error.js';

/**
 * Refused: one `Agent` was about to serve a second session (an HTTP handler's session, an AG-UI
 * thread). An `Agent` is **one conversation**: serving it to two users shows each the other's
 * messages and queues their replies behind each other. `code` is `'agent_shared'`; an HTTP handler
 * answers it with a 500 (the server is misconfigured, not the client) and reports it to `onError`.
 * Fix: one agent per session (`AgentSessions`, or an agent factory), or, when every request
 * really is the same conversation, tell the handler so with `shared: true`.
 *
 * @example
 * ```ts
 * createAgentSseHandler({
 *   ...options,
 *   onError: (e) => {
 *     if (e instanceof AgentSharedError) console.error(`${e.code}: ${e.message}`); // names the fix
 *   },
 * });
 * ```
 */
export class AgentSharedError extends RxscopeError {
  override readonly name = 'AgentSharedError';
  /** Always `'agent_shared'`. */
  readonly code = 'agent_shared';
  /** The HTTP status the handlers answer with: the server's configuration is wrong. */
  readonly status = 500;
}
