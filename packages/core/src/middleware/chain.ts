import { defer, type Observable } from 'rxjs';
import type { AgentHandle } from './agent-handle.js';
import type { AgentEvent } from '../event/events.js';
import type { RuntimeContext } from './context.js';
import type { Middleware, Next } from './middleware.js';

/**
 * One layer of an onion: the shape of `onAgent`, `onReasoning`, `onActing` and `onModelCall`
 * (`O`: what the onion emits; `onCheckPermission` emits a permission decision).
 */
export type Layer<I, O = AgentEvent> = (
  agent: AgentHandle,
  ctx: RuntimeContext,
  input: I,
  next: Next<I, O>,
) => Observable<O>;

/** A composed onion; the innermost step (`terminal`) is passed at call time. */
export type Chain<I, O = AgentEvent> = (
  agent: AgentHandle,
  ctx: RuntimeContext,
  input: I,
  terminal: Next<I, O>,
) => Observable<O>;

/** The hooks that form onions. */
export type OnionHook = 'onAgent' | 'onReasoning' | 'onActing' | 'onModelCall';

/**
 * Composes layers into one chain, first layer outermost (built once, with `reduceRight`). Each
 * layer runs inside `defer`: nothing runs before subscribe, a synchronous throw becomes an error
 * notification, and resubscribing re-enters the layer. An empty list yields the terminal itself.
 * `handOver`, when given, maps what a layer passes to `next` before the inner layer (or the
 * terminal) receives it.
 *
 * @example
 * ```ts
 * const chain = composeChain<ModelCallInput>([logLayer, retryLayer]);
 * chain(agent, ctx, input, (i) => callModel(i)).subscribe();
 * ```
 */
export function composeChain<I, O = AgentEvent>(
  layers: readonly Layer<I, O>[],
  handOver?: (ctx: RuntimeContext, input: I) => I,
): Chain<I, O> {
  return layers.reduceRight<Chain<I, O>>(
    (inner, layer) => (agent, ctx, input, terminal) =>
      defer(() =>
        layer(agent, ctx, input, (nextInput) =>
          inner(agent, ctx, handOver ? handOver(ctx, nextInput) : nextInput, terminal),
        ),
      ),
    (_agent, _ctx, input, terminal) => terminal(input),
  );
}

/**
 * Composes the chain of one hook from the middlewares that implement it (first = outermost).
 *
 * @example
 * ```ts
 * const modelCalls = chainFor(middlewares, 'onModelCall');
 * ```
 */
export function chainFor<H extends OnionHook>(
  middlewares: readonly Middleware[],
  hook: H,
  handOver?: (
    ctx: RuntimeContext,
    input: Parameters<NonNullable<Middleware[H]>>[2],
  ) => Parameters<NonNullable<Middleware[H]>>[2],
): Chain<Parameters<NonNullable<Middleware[H]>>[2]> {
  type I = Parameters<NonNullable<Middleware[H]>>[2];
  const layers: Layer<I>[] = [];
  for (const mw of middlewares) {
    const fn = mw[hook] as ((...args: Parameters<Layer<I>>) => Observable<AgentEvent>) | undefined;
    if (fn) layers.push((agent, ctx, input, next) => fn.call(mw, agent, ctx, input, next));
  }
  return composeChain(layers, handOver);
}
