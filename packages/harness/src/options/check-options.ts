import { checkOptionKeys } from '@rxscope/core';
import { HarnessOptionError } from './harness-option-error.js';

/** Checks one option's value: returns what is wrong with it ("must be …"), or undefined. */
export type OptionCheck = (value: unknown) => string | undefined;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return typeof value === 'function' ? 'a function' : Array.isArray(value) ? 'an array' : 'an object';
}

/** A whole number of at least `min` (a count, a size in bytes, a time in ms). */
export const integerAtLeast =
  (min: number): OptionCheck =>
  (value) =>
    typeof value === 'number' && Number.isInteger(value) && value >= min
      ? undefined
      : `must be a whole number of at least ${min}, got ${describe(value)}`;

/** `true` or `false`. */
export const aBoolean: OptionCheck = (value) =>
  typeof value === 'boolean' ? undefined : `must be true or false, got ${describe(value)}`;

/** A string. */
export const aString: OptionCheck = (value) =>
  typeof value === 'string' ? undefined : `must be a string, got ${describe(value)}`;

/** A function. */
export const aFunction: OptionCheck = (value) =>
  typeof value === 'function' ? undefined : `must be a function, got ${describe(value)}`;

/**
 * Refuses an options object with a key `checks` does not list (naming the closest known key) or
 * a value its check refuses. `undefined` values are taken as absent. Throws a
 * {@link HarnessOptionError}.
 *
 * @example
 * ```ts
 * checkOptions('grepFilesTool', options, { maxMatches: integerAtLeast(1) });
 * // { maxMatchs: 5 } → unknown option "maxMatchs" of grepFilesTool; did you mean "maxMatches"? …
 * ```
 */
export function checkOptions(owner: string, options: unknown, checks: Readonly<Record<string, OptionCheck>>): void {
  if (options === undefined) return;
  const known = Object.keys(checks);
  checkOptionKeys(owner, options, known, {
    error: (code, option, message) => new HarnessOptionError(code, option, message),
  });
  for (const [key, value] of Object.entries(options as object)) {
    if (value === undefined) continue;
    const check = checks[key]!;
    const problem = check(value);
    if (problem) throw new HarnessOptionError('invalid_option', `${owner}.${key}`, `${owner}: ${key} ${problem}.`);
  }
}

/**
 * Refuses an options object with a key `known` does not list, in the core's refusal style
 * (`checkOptionKeys`: the closest known key as "did you mean", the known keys), as a
 * {@link HarnessOptionError} with code `unknown_option` (`invalid_option` when it is not an
 * object). For the harness's middlewares, whose values their own constructors check.
 *
 * @example
 * ```ts
 * refuseUnknownOptions('TodoListMiddleware', { maxTodo: 5 }, ['maxTodos']);
 * // HarnessOptionError: unknown option "maxTodo" of TodoListMiddleware; did you mean "maxTodos"? Known: maxTodos.
 * ```
 */
export function refuseUnknownOptions(
  owner: string,
  options: unknown,
  known: readonly string[],
  foreign?: Readonly<Record<string, string>>,
): void {
  checkOptionKeys(owner, options, known, {
    ...(foreign ? { foreign } : {}),
    error: (code, option, message) => new HarnessOptionError(code, option, message),
  });
}
