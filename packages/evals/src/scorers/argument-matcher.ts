import type { ArgumentMatcher, ExpectedToolCall } from '../dataset/eval-case.js';
import type { ToolCallRecord } from './reply-sample.js';

/** Whether `actual` has everything `expected` has (objects: every key of expected; arrays and the rest: equal). */
function contains(expected: unknown, actual: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) && expected.length === actual.length && expected.every((v, i) => contains(v, actual[i]))
    );
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([k, v]) => contains(v, (actual as Record<string, unknown>)[k]));
  }
  return Object.is(expected, actual);
}

/**
 * Whether a tool call's arguments satisfy a matcher (see {@link ArgumentMatcher}); `undefined`
 * matches any arguments.
 *
 * @example
 * ```ts
 * matchesArguments({ path: 'a.ts' }, { path: 'a.ts', limit: 10 }); // true
 * matchesArguments(/"path":"b/, { path: 'a.ts' }); // false
 * ```
 */
export function matchesArguments(matcher: ArgumentMatcher | undefined, input: unknown): boolean {
  if (matcher === undefined) return true;
  if (matcher instanceof RegExp)
    return new RegExp(matcher.source, matcher.flags.replace('g', '')).test(JSON.stringify(input) ?? '');
  if (typeof matcher === 'function') return matcher(input) === true;
  return contains(matcher, input);
}

/** Whether one call satisfies one expectation. */
export function matchesCall(expected: ExpectedToolCall, call: ToolCallRecord): boolean {
  return expected.name === call.name && matchesArguments(expected.input, call.input);
}
