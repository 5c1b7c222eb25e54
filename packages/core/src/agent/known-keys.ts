import { AgentUsageError } from './errors.js';

/**
 * Refuses an options object that is not a plain object, or that has a key not in `known` (a
 * misspelt option would be ignored silently), with a "did you mean" hint. Throws an
 * {@link AgentUsageError} (code `invalid_use`).
 *
 * @example
 * ```ts
 * refuseUnknownOptionKeys('agent.fork()', { upto: 'msg_1' }, ['upTo', 'before', 'sessionId']);
 * // throws: agent.fork(): unknown option "upto" (did you mean "upTo"?). Known: upTo, before, sessionId.
 * ```
 */
export function refuseUnknownOptionKeys(where: string, options: unknown, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new AgentUsageError(
      `${where} takes an options object ({ ${known.join(', ')} }), got ${JSON.stringify(options)}.`,
    );
  }
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const suggestion = closest(key, known);
    const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
    throw new AgentUsageError(`${where}: unknown option "${key.slice(0, 64)}"${hint}. Known: ${known.join(', ')}.`);
  }
}

/** The known key nearest to `key` (case-insensitive edit distance), when near enough. */
function closest(key: string, known: readonly string[]): string | undefined {
  const k = key.toLowerCase().slice(0, 64);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(k, candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(2, Math.floor(k.length / 3)) ? best : undefined;
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}
