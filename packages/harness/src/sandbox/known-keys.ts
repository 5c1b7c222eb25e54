import { SandboxError } from './sandbox-error.js';

/** Edit distance between two short strings (options keys). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known key closest to `key`, when it is close enough to be a slip. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = candidate.toLowerCase() === key.toLowerCase() ? 0 : distance(key, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

/**
 * Refuses an options object that is not a plain object or that has a key not in `known`
 * (a misspelt option would otherwise be ignored silently and a limit never applied), with a
 * "did you mean" hint. Throws a {@link SandboxError} with code `sandbox_option_unknown` (an
 * unknown key) or `sandbox_option_invalid` (not an object).
 *
 * @example
 * ```ts
 * refuseUnknownKeys('LocalSandbox options', { limts: {} }, ['shell', 'env', 'limits']);
 * // throws: LocalSandbox options: unknown option "limts" (did you mean "limits"?). Known: shell, env, limits.
 * ```
 */
export function refuseUnknownKeys(where: string, options: unknown, known: readonly string[]): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new SandboxError('sandbox_option_invalid', `${where} must be an object, got ${JSON.stringify(options)}.`);
  }
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const suggestion = closest(key, known);
    const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
    throw new SandboxError(
      'sandbox_option_unknown',
      `${where}: unknown option "${key}"${hint}. Known: ${known.join(', ')}.`,
    );
  }
}
