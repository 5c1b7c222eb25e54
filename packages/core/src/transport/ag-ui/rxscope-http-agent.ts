import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, RunAgentInput } from '@ag-ui/core';
import type { Observable } from 'rxjs';

/**
 * Marks a request to `createAgUiHandler` as a reconnect rather than a run: `forwardedProps`
 * `{ rxscope: { connect: true } }` (what {@link RxscopeHttpAgent} sends; any client may).
 *
 * @example
 * ```ts
 * await fetch('/agui', { method: 'POST', headers, body: JSON.stringify({ ...input, forwardedProps: AG_UI_CONNECT_PROPS }) });
 * ```
 */
export const AG_UI_CONNECT_PROPS = { rxscope: { connect: true } } as const;

/**
 * `HttpAgent` of `@ag-ui/client` with `connectAgent()` for an rxscope AG-UI endpoint
 * (`createAgUiHandler`): it reconnects to the thread — the run in progress is replayed from its
 * start and followed live; when none runs, the thread's messages and shared state arrive as
 * `MESSAGES_SNAPSHOT` and `STATE_SNAPSHOT`. Runs are sent as `HttpAgent` sends them. A client whose
 * `STATE_DELTA` did not apply (it logs "Failed to apply state patch") calls `connectAgent()` to get
 * a fresh snapshot.
 *
 * @example
 * ```ts
 * const agent = new RxscopeHttpAgent({ url: '/agui', threadId });
 * await agent.connectAgent(); // after a page reload: the run in progress, or the thread as it is
 * ```
 */
export class RxscopeHttpAgent extends HttpAgent {
  protected override connect(input: RunAgentInput): Observable<BaseEvent> {
    const forwardedProps = { ...(input.forwardedProps as Record<string, unknown> | undefined), ...AG_UI_CONNECT_PROPS };
    return this.run({ ...input, forwardedProps });
  }
}

/** True for a request {@link RxscopeHttpAgent.connect} sent. */
export function isConnectInput(input: RunAgentInput): boolean {
  const props = input.forwardedProps as { rxscope?: { connect?: unknown } } | undefined;
  return props?.rxscope?.connect === true;
}
