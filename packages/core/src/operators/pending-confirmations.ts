import { defer, filter, map, type Observable, type OperatorFunction, startWith } from 'rxjs';
import type { AgentEvent, PendingToolCall } from '../event/events.js';

/**
 * The tool calls waiting for a person's confirmation, at every moment: `[]` first, then the
 * list after every change. `REQUIRE_USER_CONFIRM` adds its calls; a call leaves the list when
 * it is answered (`USER_CONFIRM_RESULT`), when its result arrives (`TOOL_RESULT_END`), or when a
 * new message rejected it (the `CUSTOM` `pending_calls_rejected` event).
 *
 * @example
 * ```ts
 * events$.pipe(pendingConfirmations()).subscribe((calls) => (dialog.open = calls.length > 0));
 * ```
 */
export function pendingConfirmations(): OperatorFunction<AgentEvent, readonly PendingToolCall[]> {
  return (source$: Observable<AgentEvent>) =>
    defer(() => {
      const pending = new Map<string, PendingToolCall>();
      const remove = (ids: readonly string[]) => ids.reduce((changed, id) => pending.delete(id) || changed, false);
      return source$.pipe(
        filter((event) => {
          switch (event.type) {
            case 'REQUIRE_USER_CONFIRM':
              for (const call of event.toolCalls) pending.set(call.id, call);
              return event.toolCalls.length > 0;
            case 'USER_CONFIRM_RESULT':
              return remove(event.results.map((r) => r.toolCallId));
            case 'TOOL_RESULT_END':
              return remove([event.toolCallId]);
            case 'CUSTOM':
              return event.name === 'pending_calls_rejected' && remove(rejectedIds(event.value));
            default:
              return false;
          }
        }),
        map(() => [...pending.values()]),
        startWith([] as readonly PendingToolCall[]),
      );
    });
}

function rejectedIds(value: unknown): string[] {
  const ids = (value as { toolCallIds?: unknown } | null)?.toolCallIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}
