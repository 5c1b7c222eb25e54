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

/** Edit distance of two short strings (option names), case-insensitive. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[y.length]!;
}

/** The known key closest to `key`, when it is close enough to be a typo. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(key, k);
    if (!best || d < best.d) best = { key: k, d };
  }
  return best && best.d <= Math.max(2, Math.floor(key.length / 3)) ? best.key : undefined;
}

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
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new HarnessOptionError(
      'invalid_option',
      owner,
      `The options of ${owner} must be an object (${known.join(', ')}), got ${describe(options)}.`,
    );
  }
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const check = Object.prototype.hasOwnProperty.call(checks, key) ? checks[key] : undefined;
    if (!check) {
      const guess = closest(key, known);
      throw new HarnessOptionError(
        'unknown_option',
        `${owner}.${key}`,
        `unknown option "${key}" of ${owner}${guess ? `; did you mean "${guess}"?` : '.'} Known: ${known.join(', ')}.`,
      );
    }
    const problem = check(value);
    if (problem) throw new HarnessOptionError('invalid_option', `${owner}.${key}`, `${owner}: ${key} ${problem}.`);
  }
}
