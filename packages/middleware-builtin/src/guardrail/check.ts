import { catchError, defer, from, isObservable, map, type Observable, take, throwError, throwIfEmpty } from 'rxjs';
import { RxscopeError, type RuntimeContext } from '@rxscope/core';
import { MiddlewareOptionError } from '../internal/option-error.js';

/** Where a guardrail looks: the user's input, the model's output, a tool's input or output. */
export type GuardrailStage = 'input' | 'output' | 'toolInput' | 'toolOutput';

/**
 * What a check answers: `tripped` stops the reply; `reason` says why (shown to people).
 *
 * @example
 * ```ts
 * const verdict: GuardrailVerdict = { tripped: true, reason: 'mentions a competitor' };
 * ```
 */
export interface GuardrailVerdict {
  readonly tripped: boolean;
  readonly reason?: string;
}

/** What a check is given besides the text. */
export interface GuardrailCheckContext {
  readonly stage: GuardrailStage;
  /** The reply's context (its user, session, state). */
  readonly ctx: RuntimeContext;
  /** Aborted when the check's answer is no longer wanted (the reply ended or was cut): stop your requests. */
  readonly signal: AbortSignal;
}

/**
 * A guardrail check: a name (in events, stop reasons and errors) and a function of the text
 * that answers a {@link GuardrailVerdict} as a value, a Promise or an Observable (its first value).
 *
 * @example
 * ```ts
 * const noCompetitors: GuardrailCheck = {
 *   name: 'competitors',
 *   check: (text) => ({ tripped: /acme corp/i.test(text), reason: 'mentions a competitor' }),
 * };
 * ```
 */
export interface GuardrailCheck {
  readonly name: string;
  check(
    text: string,
    context: GuardrailCheckContext,
  ): GuardrailVerdict | Promise<GuardrailVerdict> | Observable<GuardrailVerdict>;
}

/**
 * A guardrail check that failed (threw, rejected, errored or answered no verdict): the reply
 * ends `error` with this error (code `guardrail_check_failed`), naming the check. Wrap the
 * `GuardrailMiddleware` in `resilient()` to go on without the guardrail instead.
 *
 * @example
 * ```ts
 * if (end.error?.code === 'guardrail_check_failed') alert(end.error.message);
 * ```
 */
export class GuardrailCheckError extends RxscopeError {
  override readonly name = 'GuardrailCheckError';
  readonly code = 'guardrail_check_failed';
  constructor(
    readonly check: string,
    readonly stage: GuardrailStage,
    cause: unknown,
  ) {
    super(`Guardrail check "${check}" (${stage}) failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}

/** A verdict with the check that gave it. */
export interface NamedVerdict extends GuardrailVerdict {
  readonly check: string;
}

/**
 * Runs one check: a synchronous answer comes back as a value (so a trip cuts at the very event
 * that caused it), an asynchronous one as an Observable of one verdict. Failures become a
 * {@link GuardrailCheckError}.
 */
export function runCheck(
  check: GuardrailCheck,
  text: string,
  context: GuardrailCheckContext,
): NamedVerdict | Observable<NamedVerdict> {
  let answer: ReturnType<GuardrailCheck['check']>;
  try {
    answer = check.check(text, context);
  } catch (e) {
    throw new GuardrailCheckError(check.name, context.stage, e);
  }
  const named = (v: unknown): NamedVerdict => {
    if (!v || typeof (v as GuardrailVerdict).tripped !== 'boolean')
      throw new GuardrailCheckError(
        check.name,
        context.stage,
        `it answered ${JSON.stringify(v)}, not { tripped, reason }`,
      );
    const { tripped, reason } = v as GuardrailVerdict;
    return { check: check.name, tripped, ...(reason !== undefined && { reason: String(reason) }) };
  };
  if (!isObservable(answer) && !(answer instanceof Promise)) return named(answer);
  const source: Observable<GuardrailVerdict> = isObservable(answer) ? answer : from(answer);
  return defer(() => source).pipe(
    take(1),
    map(named),
    throwIfEmpty(() => new GuardrailCheckError(check.name, context.stage, 'it answered nothing')),
    catchError((e: unknown) =>
      throwError(() => (e instanceof GuardrailCheckError ? e : new GuardrailCheckError(check.name, context.stage, e))),
    ),
  );
}

/** Checks `value` is a list of checks; throws naming the stage and the bad entry. */
export function checkList(stage: string, value: unknown): readonly GuardrailCheck[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  list.forEach((c: unknown, i) => {
    const check = c as GuardrailCheck;
    if (!check || typeof check.check !== 'function' || typeof check.name !== 'string' || !check.name)
      throw new MiddlewareOptionError(
        `GuardrailMiddleware: ${stage}[${i}] must be a check { name, check(text) } such as denylist([...]) or maxLength(n).`,
      );
  });
  return list as GuardrailCheck[];
}
