import { MiddlewareOptionError } from '../internal/option-error.js';
import type { GuardrailCheck } from './check.js';

const MAX_TERMS = 10_000;
const MAX_TERM_LENGTH = 1_000;

/**
 * A check that trips when the text contains one of `terms`: a string matches as a whole word
 * (or phrase), ignoring case; a RegExp as it is (its flags kept; `g` and `y` ignored).
 *
 * @example
 * ```ts
 * new GuardrailMiddleware({ output: denylist(['internal use only', /\bAKIA[0-9A-Z]{16}\b/]) });
 * ```
 */
export function denylist(
  terms: readonly (string | RegExp)[],
  options: { readonly name?: string } = {},
): GuardrailCheck {
  if (!Array.isArray(terms) || terms.length === 0 || terms.length > MAX_TERMS)
    throw new MiddlewareOptionError(`denylist: terms must be a list of 1 to ${MAX_TERMS} strings or RegExps.`);
  const patterns = terms.map((t, i) => {
    if (t instanceof RegExp) return new RegExp(t.source, t.flags.replace(/[gy]/g, ''));
    if (typeof t !== 'string' || !t.trim() || t.length > MAX_TERM_LENGTH)
      throw new MiddlewareOptionError(
        `denylist: terms[${i}] must be a non-empty string of at most ${MAX_TERM_LENGTH} characters, or a RegExp.`,
      );
    const escaped = t.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'iu');
  });
  return {
    name: options.name ?? 'denylist',
    check: (text) => {
      const i = patterns.findIndex((p) => p.test(text));
      return i < 0 ? { tripped: false } : { tripped: true, reason: `contains a denied term (#${i + 1})` };
    },
  };
}

/**
 * A check that trips when the text is longer than `max` characters (UTF-16 code units).
 *
 * @example
 * ```ts
 * new GuardrailMiddleware({ input: maxLength(8_000), output: maxLength(20_000) });
 * ```
 */
export function maxLength(max: number, options: { readonly name?: string } = {}): GuardrailCheck {
  if (!Number.isInteger(max) || max < 1)
    throw new MiddlewareOptionError(`maxLength: max must be an integer >= 1, got ${String(max)}.`);
  return {
    name: options.name ?? 'maxLength',
    check: (text) =>
      text.length > max
        ? { tripped: true, reason: `longer than ${max} characters (${text.length})` }
        : { tripped: false },
  };
}
