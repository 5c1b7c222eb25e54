import { closestOption } from '../error/check-option-keys.js';
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
    const suggestion = closestOption(key.slice(0, 64), known);
    const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
    throw new AgentUsageError(`${where}: unknown option "${key.slice(0, 64)}"${hint}. Known: ${known.join(', ')}.`);
  }
}
