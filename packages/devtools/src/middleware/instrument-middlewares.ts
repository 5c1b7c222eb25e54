import { tap, type Observable } from 'rxjs';
import type { Middleware } from '@rxscope/core';
import type { DevtoolsRecorder } from '../recorder/devtools-recorder.js';
import { LayeredDevtoolsMiddleware, teachChain } from './devtools-middleware.js';
import { LayerTrail } from './layer-trail.js';

const ONION_HOOKS = ['onAgent', 'onReasoning', 'onModelCall', 'onActing'] as const;
type OnionHook = (typeof ONION_HOOKS)[number];
const OTHER_HOOKS = ['onCheckPermission', 'onSystemPrompt'] as const;

/** A middleware's name in the record: its `key`, else its class name. */
function nameOf(mw: Middleware, index: number): string {
  if (typeof mw.key === 'string' && mw.key) return mw.key;
  const ctor = (mw as { constructor?: { name?: string } }).constructor?.name;
  return ctor && ctor !== 'Object' ? ctor : `middleware#${index + 1}`;
}

/**
 * The same middleware, its onion hooks tapped to note that an event left this layer. Everything
 * else (its key, its tools, its other hooks, `instanceof`) is the middleware's own: a Proxy
 * whose methods run on the middleware itself (so private fields keep working).
 */
function tapped(mw: Middleware, codes: Partial<Record<OnionHook, number>>, trail: LayerTrail): Middleware {
  const cache = new Map<PropertyKey, unknown>();
  return new Proxy(mw, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || property === 'constructor') return value;
      if (cache.has(property)) return cache.get(property);
      const fn = value as (...args: unknown[]) => unknown;
      const code = codes[property as OnionHook];
      const wrapped =
        code !== undefined
          ? (...args: unknown[]) =>
              (fn.apply(target, args) as Observable<unknown>).pipe(tap((e) => trail.passed(e, code)))
          : fn.bind(target);
      cache.set(property, wrapped);
      return wrapped;
    },
  });
}

/**
 * A middleware list with the devtools in it: a `DevtoolsMiddleware` first (outermost, so it
 * sees every event), then each of `middlewares`, tapped so that the record says which layers of
 * its hook every event passed (`RecordedEvent.layers`) and what the chain of each hook is
 * (`ReplyRecord.chain`). The middlewares keep their identity for the agent (same key, tools,
 * hooks); nothing reaches into the agent.
 *
 * @example
 * ```ts
 * const recorder = new DevtoolsRecorder();
 * const agent = new Agent({
 *   name: 'bot',
 *   model,
 *   middlewares: instrumentMiddlewares(recorder, [new RetryMiddleware(), new ReplyBudgetMiddleware({ tokenBudget: 50_000 })]),
 * });
 * ```
 */
export function instrumentMiddlewares(recorder: DevtoolsRecorder, middlewares: readonly Middleware[]): Middleware[] {
  const names = middlewares.map(nameOf);
  const implementing = (hook: OnionHook | (typeof OTHER_HOOKS)[number]) =>
    names.filter((_, i) => typeof middlewares[i]![hook] === 'function');
  const layers = Object.fromEntries(ONION_HOOKS.map((hook) => [hook, implementing(hook)])) as Record<
    OnionHook,
    string[]
  >;
  const trail = new LayerTrail(layers);
  const chain = [
    ...ONION_HOOKS.map((hook) => ({ hook, layers: ['devtools', ...layers[hook]] })),
    // Not onions of events, listed for the whole picture: the permission onion and the prompt pipeline.
    ...OTHER_HOOKS.map((hook) => ({ hook, layers: implementing(hook) })),
  ];
  // Hooks without a layer of their own: the devtools layer tells their events apart.
  const bare = new Set(ONION_HOOKS.filter((hook) => layers[hook].length === 0));
  const devtools = teachChain(new LayeredDevtoolsMiddleware({ recorder }), { trail, chain, bare });
  const position: Record<OnionHook, number> = { onAgent: 0, onReasoning: 0, onModelCall: 0, onActing: 0 };
  return [
    devtools,
    ...middlewares.map((mw) => {
      const codes: Partial<Record<OnionHook, number>> = {};
      for (const hook of ONION_HOOKS)
        if (typeof mw[hook] === 'function') codes[hook] = LayerTrail.code(hook, position[hook]++);
      return tapped(mw, codes, trail);
    }),
  ];
}
