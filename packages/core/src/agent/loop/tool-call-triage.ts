import type { PendingToolCall } from '../../event/events.js';
import type { ToolCallBlock } from '../../message/blocks.js';
import type { PermissionDecision } from '../../permission/engine.js';
import type { Tool } from '../../tool/tool.js';
import type { PreparedCall } from './tool-run.js';

/** A call decided in an acting step: run it (or answer it) now, or leave it pending. */
export type Triage =
  | { readonly kind: 'now'; readonly prepared: PreparedCall }
  | { readonly kind: 'confirm' | 'external'; readonly call: PendingToolCall };

/**
 * Decides a prepared call by its permission: denied calls are answered at once, `ask` waits for
 * a person, an external tool for its executor, the rest runs now. A permission check that throws
 * answers the call with an error. Synchronous unless the check is asynchronous.
 */
export function triage(
  prepared: PreparedCall,
  decide: (tool: Tool, input: unknown, call: ToolCallBlock) => PermissionDecision | Promise<PermissionDecision>,
): Triage | Promise<Triage> {
  if (prepared.kind === 'answer') return { kind: 'now', prepared };
  const { call, tool, input } = prepared;
  const failed = (err: unknown): Triage => ({
    kind: 'now',
    prepared: {
      kind: 'answer',
      call,
      status: 'error',
      text: `Permission check of "${tool.name}" failed: ${err instanceof Error ? err.message : String(err)}`,
    },
  });
  const route = (decision: PermissionDecision): Triage => {
    if (decision.behavior === 'deny')
      return { kind: 'now', prepared: { kind: 'answer', call, status: 'denied', text: decision.reason } };
    if (decision.behavior === 'ask')
      return { kind: 'confirm', call: { id: call.id, name: call.name, input, reason: decision.reason } };
    if (tool.external) return { kind: 'external', call: { id: call.id, name: call.name, input } };
    return { kind: 'now', prepared };
  };
  try {
    const decision = decide(tool, input, call);
    return decision instanceof Promise ? decision.then(route, failed) : route(decision);
  } catch (err) {
    return failed(err);
  }
}
