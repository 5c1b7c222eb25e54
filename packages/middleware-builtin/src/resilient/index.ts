/**
 * `resilient(middleware, options)`: runs an auxiliary middleware (tracing, prompt context,
 * memory, analytics...) so that its own failures cannot break a reply. An exception the
 * middleware raises itself — a synchronous throw or an error notification, in any hook,
 * `onSystemPrompt`, `tools()` (once, until it works again: agents read it at every step) and
 * `onShutdown` included — is reported to `onError` (and, in the onion hooks,
 * as a `CUSTOM middleware.error` event), and the phase goes on as if the middleware were absent.
 *
 * Failures that come **from `next`** (inner layers, the model, the tools) are not the
 * middleware's: they propagate unchanged, the same error object, so `RetryMiddleware`, fallbacks
 * and the loop see what they would see without the wrapper. `LimitExceededError`s (and errors
 * `propagate` selects) are deliberate ends, not failures, and propagate too.
 *
 * Exact semantics when the wrapped hook fails with its own error, by how far it got:
 * 1. **Before it subscribed `next`** (typically a throw in the hook body): blocks it opened on
 *    the stream are closed (a tool result it started ends `error`; a model call it started ends
 *    `finishReason: 'error'`), then `next` runs with the **original** input. In `onActing`, if
 *    the middleware had already answered the call, `next` is not run (one result per call).
 * 2. **While the inner run is in progress** (a throw in its `tap`/`map` on an inner event, or
 *    an asynchronous failure): the inner run is **not** cancelled and **not** restarted; it is
 *    detached from the failed middleware and its remaining events pass through unchanged. The
 *    stream is first brought in line with the inner run: the inner event being handled when the
 *    middleware failed is re-emitted if it had not been passed on, blocks the middleware had
 *    open that the inner run has not are closed, and inner blocks (and the model call) the
 *    middleware had held back are opened with their original start events. Events the
 *    middleware swallowed earlier (say, a buffered delta) are not replayed.
 * 3. **After the inner run completed**: nothing runs again; open blocks are closed (with the
 *    inner run's own end event when the middleware failed on it) and the phase completes.
 * 4. **After the inner run failed** (the middleware failed while handling that failure, e.g. in
 *    its retry logic): the inner failure propagates unchanged; the middleware's own error is
 *    reported.
 *
 * If the middleware ran `next` several times at once (fan-out), only the latest run is kept;
 * the others are cancelled. An error thrown by `onError` itself propagates.
 *
 * Limits, guards and other middlewares whose errors are meant to end a reply should not be
 * wrapped.
 *
 * @example
 * ```ts
 * const agent = new Agent({
 *   model,
 *   middlewares: [
 *     new RetryMiddleware(),
 *     resilient(new DynamicPromptMiddleware({ sections: [{ title: 'Profile', value: () => profiles.get(userId) }] }), {
 *       onError: (err, { middleware, hook }) => logger.warn({ err, middleware, hook }, 'prompt context skipped'),
 *     }),
 *   ],
 * });
 * ```
 *
 * @module
 */
import { catchError, concat, defer, from, isObservable, Observable, of, take, tap } from 'rxjs';
import type { Subscriber, Subscription } from 'rxjs';
import {
  type ActingInput,
  type AgentEvent,
  closeBlock,
  closeOpenStream,
  isBlockEnd,
  isBlockStart,
  type Middleware,
  middlewareKey,
  type Next,
  OpenStream,
  type RuntimeContext,
  type Tool,
  toErrorInfo,
  checkOptionKeys,
  optionKeys,
} from '@rxscope/core';
import { type Layer, type OnionHook } from '@rxscope/core/internal';
import { LimitExceededError } from '../limit-exceeded-error.js';

/** The hook a failure happened in. */
export type MiddlewareHook =
  'onAgent' | 'onReasoning' | 'onActing' | 'onModelCall' | 'onSystemPrompt' | 'tools' | 'onShutdown';

/** Where a wrapped middleware failed. */
export interface MiddlewareFailure {
  /** The wrapped middleware's key (`middlewareKey`). */
  readonly middleware: string;
  readonly hook: MiddlewareHook;
  /** Absent for `tools()` (read by the agent outside any reply) and `onShutdown`. */
  readonly ctx?: RuntimeContext;
}

/** Options of {@link resilient}. */
export interface ResilientOptions {
  /** Receives each failure of the middleware. Default: `console.error`. */
  readonly onError?: (error: unknown, failure: MiddlewareFailure) => void;
  /** Emit `CUSTOM {name: 'middleware.error', value: {middleware, hook, error}}` in onion hooks. Default true. */
  readonly event?: boolean;
  /** Errors of the middleware that are deliberate and must propagate. Default: `LimitExceededError`s. */
  readonly propagate?: (error: unknown) => boolean;
}

const ONION_HOOKS: readonly OnionHook[] = ['onAgent', 'onReasoning', 'onActing', 'onModelCall'];
const NO_TOOLS: readonly Tool[] = [];

const OPTION_KEYS = optionKeys<ResilientOptions>({ onError: true, event: true, propagate: true });

/**
 * Wraps `middleware` so that its own failures are reported and skipped instead of failing the
 * reply. See the module documentation for the exact semantics.
 */
export function resilient(middleware: Middleware, options: ResilientOptions = {}): Middleware {
  checkOptionKeys('resilient', options, OPTION_KEYS);
  const name = middlewareKey(middleware);
  const settings: Settings = {
    name,
    onError:
      options.onError ??
      ((err, f) =>
        console.error(`[rxscope] middleware ${f.middleware} failed in ${f.hook}; continuing without it:`, err)),
    event: options.event ?? true,
    propagate: options.propagate ?? ((err) => err instanceof LimitExceededError),
  };
  const wrapped: { -readonly [K in keyof Middleware]: Middleware[K] } = { key: name };
  for (const hook of ONION_HOOKS) {
    if (!middleware[hook]) continue;
    const fn = (middleware[hook] as Layer<unknown>).bind(middleware);
    const layer: Layer<unknown> = (agent, ctx, input, next) =>
      guardLayer(settings, hook, ctx, input, next, (guardedNext) => fn(agent, ctx, input, guardedNext));
    (wrapped as Record<OnionHook, Layer<unknown>>)[hook] = layer;
  }
  if (middleware.onSystemPrompt) {
    const fn = middleware.onSystemPrompt.bind(middleware);
    wrapped.onSystemPrompt = (agent, ctx, prompt) => {
      const failed = (err: unknown): string => {
        if (settings.propagate(err)) throw err;
        settings.onError(err, { middleware: name, hook: 'onSystemPrompt', ctx });
        return prompt;
      };
      try {
        const out = fn(agent, ctx, prompt);
        if (typeof out === 'string') return out;
        return from(out).pipe(
          take(1),
          catchError((err: unknown) => of(failed(err))),
        );
      } catch (err) {
        return failed(err);
      }
    };
  }
  if (middleware.tools) {
    const fn = middleware.tools.bind(middleware);
    // Agents read tools() at every step: a failure is reported once, until tools() works again.
    let failing = false;
    wrapped.tools = (): readonly Tool[] => {
      try {
        const tools = fn();
        failing = false;
        return tools;
      } catch (err) {
        if (settings.propagate(err)) throw err;
        if (!failing) settings.onError(err, { middleware: name, hook: 'tools' });
        failing = true;
        return NO_TOOLS;
      }
    };
  }
  if (middleware.onShutdown) {
    const fn = middleware.onShutdown.bind(middleware);
    wrapped.onShutdown = async (agent) => {
      try {
        await fn(agent);
      } catch (err) {
        if (settings.propagate(err)) throw err;
        settings.onError(err, { middleware: name, hook: 'onShutdown' });
      }
    };
  }
  return wrapped;
}

interface Settings {
  readonly name: string;
  readonly onError: (error: unknown, failure: MiddlewareFailure) => void;
  readonly event: boolean;
  readonly propagate: (error: unknown) => boolean;
}

/** What one side of the stream (the inner run, or what went downstream) has open, and which tool calls it answered. */
class StreamState extends OpenStream {
  readonly answered = new Set<string>();

  override apply(e: AgentEvent): void {
    super.apply(e);
    if (e.type === 'TOOL_RESULT_END') this.answered.add(e.toolCallId);
  }
}

/** One subscription of `next` by the wrapped middleware. */
class InnerRun {
  readonly state = new StreamState();
  status: 'running' | 'done' | 'failed' = 'running';
  error: unknown;
  /** The latest inner event, and whether the middleware passed it on (same object downstream). */
  last: AgentEvent | undefined;
  lastForwarded = true;
  /** Set once the middleware failed: the run then survives the middleware's teardown. */
  detached = false;
  subscription: Subscription | undefined;
  private target: Subscriber<AgentEvent> | undefined;
  private readonly buffer: AgentEvent[] = [];

  constructor(target: Subscriber<AgentEvent>) {
    this.target = target;
  }

  onNext(e: AgentEvent): void {
    this.state.apply(e);
    this.last = e;
    this.lastForwarded = false;
    if (this.target) this.target.next(e);
    else this.buffer.push(e);
  }

  onEnd(error?: { error: unknown }): void {
    this.status = error ? 'failed' : 'done';
    if (error) this.error = error.error;
    const t = this.target;
    if (!t) return;
    if (error) t.error(error.error);
    else t.complete();
  }

  /** Detaches the run from the failed middleware (events are buffered until re-attached). */
  detach(): void {
    this.detached = true;
    this.target = undefined;
  }

  /** The rest of the run, for the new downstream subscriber. */
  rest(): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      for (const e of this.buffer.splice(0)) subscriber.next(e);
      if (this.status === 'failed') subscriber.error(this.error);
      else if (this.status === 'done') subscriber.complete();
      else this.target = subscriber;
      return () => {
        this.target = undefined;
        this.subscription?.unsubscribe();
      };
    });
  }

  cancel(): void {
    this.target = undefined;
    this.subscription?.unsubscribe();
  }
}

function guardLayer(
  settings: Settings,
  hook: OnionHook,
  ctx: RuntimeContext,
  input: unknown,
  next: Next<unknown>,
  run: (next: Next<unknown>) => Observable<AgentEvent>,
): Observable<AgentEvent> {
  return defer(() => {
    const innerErrors = new Set<unknown>();
    const downstream = new StreamState();
    const runs = new Set<InnerRun>();
    let latest: InnerRun | undefined;

    const guardedNext: Next<unknown> = (i) =>
      new Observable<AgentEvent>((subscriber) => {
        const r = new InnerRun(subscriber);
        latest = r;
        runs.add(r);
        r.subscription = next(i).subscribe({
          next: (e) => r.onNext(e),
          error: (err: unknown) => {
            innerErrors.add(err);
            r.onEnd({ error: err });
          },
          complete: () => r.onEnd(),
        });
        return () => {
          if (r.detached) return;
          runs.delete(r);
          r.cancel();
        };
      });

    const recover = (err: unknown): Observable<AgentEvent> => {
      settings.onError(err, { middleware: settings.name, hook, ctx });
      const head: AgentEvent[] = [];
      if (settings.event) {
        head.push(
          ctx.event('CUSTOM', {
            name: 'middleware.error',
            value: { middleware: settings.name, hook, error: toErrorInfo(err) },
          }),
        );
      }
      const r = latest;
      for (const other of runs) if (other !== r) other.cancel();
      if (!r) {
        head.push(...closeAll(ctx, downstream, settings.name));
        const toolCallId = hook === 'onActing' ? (input as ActingInput).toolCall.id : undefined;
        if (toolCallId !== undefined && downstream.answered.has(toolCallId)) return from(head);
        return concat(from(head), next(input));
      }
      if (r.status === 'failed') return concat(from(head), rethrow(r.error));
      r.detach();
      head.push(...reconcile(ctx, downstream, r, settings.name));
      return concat(from(head), r.rest());
    };

    let body: Observable<AgentEvent>;
    try {
      body = run(guardedNext);
      if (!isObservable(body))
        throw new TypeError(`${hook} of ${settings.name} returned ${typeof body}, not an Observable.`);
    } catch (err) {
      body = rethrow(err);
    }
    return body.pipe(
      tap((e) => {
        downstream.apply(e);
        if (latest && e === latest.last) latest.lastForwarded = true;
      }),
      catchError((err: unknown) => {
        if (innerErrors.has(err) || settings.propagate(err)) return rethrow(err);
        return recover(err);
      }),
    );
  });
}

/** End events for everything `side` has open (innermost block first, the model call last), applied to `side`. */
function closeAll(ctx: RuntimeContext, side: StreamState, name: string): AgentEvent[] {
  return closeOpenStream(ctx, side, { status: 'error', why: `middleware ${name} failed`, answerCalls: false });
}

/** Brings what went downstream in line with the inner run `r` (see the module documentation, case 2 and 3). */
function reconcile(ctx: RuntimeContext, down: StreamState, r: InnerRun, name: string): AgentEvent[] {
  const out: AgentEvent[] = [];
  const why = { status: 'error', why: `middleware ${name} failed` } as const;
  const last = r.lastForwarded ? undefined : r.last;
  let lastUsed = false;
  for (const start of [...down.blockStarts()].reverse()) {
    if (r.state.isOpen(start.blockId)) continue;
    if (last && isBlockEnd(last) && last.blockId === start.blockId) {
      out.push(last);
      lastUsed = true;
    } else out.push(closeBlock(ctx, start, why));
  }
  const downCall = down.modelCallStart();
  const innerCall = r.state.modelCallStart();
  if (downCall && !innerCall) {
    if (last?.type === 'MODEL_CALL_END') {
      out.push(last);
      lastUsed = true;
    } else
      out.push(
        ctx.event('MODEL_CALL_END', {
          model: downCall.model,
          usage: { inputTokens: 0, outputTokens: 0 },
          finishReason: 'error',
        }),
      );
  }
  if (innerCall && !downCall) out.push(innerCall);
  for (const start of r.state.blockStarts()) {
    if (!down.isOpen(start.blockId)) out.push(start);
  }
  if (
    last &&
    !lastUsed &&
    !isBlockStart(last) &&
    !isBlockEnd(last) &&
    last.type !== 'MODEL_CALL_START' &&
    last.type !== 'MODEL_CALL_END'
  ) {
    out.push(last);
  }
  return out;
}

/** An Observable that fails with `error` as is (whatever its type). */
function rethrow(error: unknown): Observable<never> {
  return new Observable<never>((subscriber) => subscriber.error(error));
}
