import { firstValueFrom, fromEvent, of, take, takeUntil } from 'rxjs';
import { RxscopeError } from '../error/rxscope-error.js';
import type { PermissionDecision } from '../permission/engine.js';
import type { AgentHandle } from './agent-handle.js';
import { composeChain, type Chain, type Layer } from './chain.js';
import type { RuntimeContext } from './context.js';
import type { Middleware, PermissionCheckInput } from './middleware.js';

/** The composed `onCheckPermission` onion of an agent. */
export type PermissionChain = Chain<PermissionCheckInput, PermissionDecision>;

/**
 * Thrown (and so answered as the call's error result) when the `onCheckPermission` layers end
 * without a decision or with something that is not one. `code` is `'invalid_permission_decision'`.
 *
 * @example
 * ```ts
 * // a layer that returns EMPTY: the call's result is an error naming this
 * ```
 */
export class PermissionDecisionError extends RxscopeError {
  override readonly name = 'PermissionDecisionError';
  readonly code = 'invalid_permission_decision';
}

/**
 * The `onCheckPermission` onion of a middleware list (first = outermost, each layer in `defer`),
 * or `undefined` when no middleware implements the hook: the engine's decision is then used as
 * is, with no cost.
 *
 * @example
 * ```ts
 * const chain = permissionChainFor(middlewares); // undefined: nothing wraps the engine
 * ```
 */
export function permissionChainFor(middlewares: readonly Middleware[]): PermissionChain | undefined {
  const layers: Layer<PermissionCheckInput, PermissionDecision>[] = [];
  for (const mw of middlewares) {
    // Called as a method of its middleware (class-based middlewares use `this`).
    if (mw.onCheckPermission) layers.push((agent, ctx, input, next) => mw.onCheckPermission!(agent, ctx, input, next));
  }
  return layers.length ? composeChain(layers) : undefined;
}

const BEHAVIORS: ReadonlySet<unknown> = new Set(['allow', 'deny', 'ask']);

/**
 * Runs the chain for one call and resolves with its first decision (the innermost step answers
 * the engine's). Cancelled with the reply.
 *
 * @example
 * ```ts
 * const decision = await runPermissionChain(chain, agent, ctx, { toolCall, tool, input, decision: engineDecision });
 * ```
 */
export async function runPermissionChain(
  chain: PermissionChain,
  agent: AgentHandle,
  ctx: RuntimeContext,
  input: PermissionCheckInput,
): Promise<PermissionDecision> {
  const cancelled = fromEvent(ctx.signal, 'abort');
  const decision: unknown = await firstValueFrom(
    chain(agent, ctx, input, (inner) => of(inner.decision)).pipe(take(1), takeUntil(cancelled)),
    { defaultValue: undefined },
  );
  const d = decision as Partial<PermissionDecision> | undefined;
  if (d === undefined || !BEHAVIORS.has(d.behavior) || typeof d.reason !== 'string') {
    throw new PermissionDecisionError(
      ctx.signal.aborted
        ? 'the reply was cancelled before the permission was decided'
        : `onCheckPermission layers answered ${decision === undefined ? 'no decision' : JSON.stringify(decision)}; ` +
            `emit one { behavior: 'allow' | 'deny' | 'ask', reason: string, decidedBy }.`,
    );
  }
  return d as PermissionDecision;
}
