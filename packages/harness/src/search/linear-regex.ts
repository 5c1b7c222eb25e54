import { RE2JS, RE2JSException } from 're2js';
import { PatternError } from './pattern-error.js';

/**
 * The bounds of one match call, measured on re2js (RE2 never backtracks, but its lazy DFA builds
 * a state per new situation, each costing up to the program's size): a counted repetition such
 * as `\p{L}{200}` costs about program² × 150 ns the first time (~6 ms at 200 instructions), and a
 * pattern whose states never repeat costs about program × characters × 4 ns. So a program has at
 * most {@link MAX_PROGRAM} instructions and an input at most {@link WORK_PER_CALL} / program
 * characters, and one call stays under ~10 ms.
 */
export const MAX_PROGRAM = 200;

/** Program size × characters of input one match call may cost (see {@link MAX_PROGRAM}). */
export const WORK_PER_CALL = 1_000_000;

/** How refusals of a pattern describe it. */
export interface PatternDescription {
  /** `regular expression` or `glob`. */
  readonly kind: string;
  /** Sentence saying what is supported, appended to every refusal. */
  readonly supported: string;
}

/** RE2's complaint without its `error parsing regexp:` prefix. */
const reasonOf = (e: Error): string => e.message.replace(/^error parsing regexp:\s*/i, '');

/** True when RE2's complaint is about a count such as `{2,1}`: its minimum above its maximum is a mistake, not a size. */
function backwardsCount(reason: string): boolean {
  const count = /`\{(\d+),(\d+)\}`/.exec(reason);
  return count !== null && Number(count[1]) > Number(count[2]);
}

/**
 * Compiles RE2 syntax on re2js (a pure-JavaScript port of RE2: matching is linear in the
 * input, whatever the pattern). `original` is what the model wrote, for the messages. Throws a
 * {@link PatternError} naming the problem.
 *
 * @example
 * ```ts
 * const re = compileLinear('(a+)+$', '(a+)+$', { kind: 'regular expression', supported: '' });
 * re.test('a'.repeat(100_000) + '!'); // false, in about a millisecond
 * ```
 */
export function compileLinear(source: string, original: string, about: PatternDescription): RE2JS {
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (e) {
    if (!(e instanceof RE2JSException)) throw e;
    const reason = reasonOf(e);
    // RE2 caps repetition counts (1,000, also multiplied when nested) and program size.
    const tooBig = /invalid repeat count|expression too large/.test(reason) && !backwardsCount(reason);
    throw new PatternError(
      tooBig ? 'pattern_too_complex' : 'pattern_invalid',
      original,
      `The pattern is not a valid ${about.kind}${tooBig ? ' (it repeats too much)' : ''}: ${reason}. ${about.supported}`,
    );
  }
  const size = re.programSize();
  if (size > MAX_PROGRAM) {
    throw new PatternError(
      'pattern_too_complex',
      original,
      `The ${about.kind} is too complex: it compiles to ${size.toLocaleString('en-US')} instructions, ` +
        `more than the ${MAX_PROGRAM} allowed (counts such as {100} and long alternations ` +
        `cost the most). Use a shorter pattern, or search in two steps. ${about.supported}`,
    );
  }
  return re;
}
