import { checkOptionKeys, RxscopeError } from '@rxscope/core';

/**
 * A middleware's options refused at construction (code `invalid_option`), or a value refused at
 * run time with its own code (`unpriced_model`, `unknown_currency`).
 */
export class MiddlewareOptionError extends RxscopeError {
  override readonly name = 'MiddlewareOptionError';
  constructor(
    message: string,
    readonly code: string = 'invalid_option',
  ) {
    super(message);
  }
}

/**
 * Refuses keys of `options` that are not in `known` with the core's `OptionsError`
 * (`unknown_option`, "did you mean"), the refusal style of every options object.
 */
export function checkKeys(owner: string, options: object, known: readonly string[]): void {
  checkOptionKeys(owner, options, known);
}

/** Checks a money amount: a finite number >= 0, or `undefined`. */
export function checkAmount(owner: string, name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new MiddlewareOptionError(
      `${owner}: ${name} must be a finite amount >= 0, got ${typeof value === 'number' ? String(value) : JSON.stringify(value)}.`,
    );
  return value;
}
