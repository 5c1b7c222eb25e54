import { compileLinear, WORK_PER_CALL, type PatternDescription } from './linear-regex.js';
import { PatternError } from './pattern-error.js';

/** Longest regular expression accepted, in characters. */
export const MAX_REGEX_CHARS = 1_000;

/** What a refusal says is supported. */
export const REGEX_SUPPORT =
  'Patterns run on RE2, which takes linear time whatever the pattern: JavaScript syntax without ' +
  'backreferences (\\1, \\k<name>), lookahead or lookbehind ((?=…) (?!…) (?<=…) (?<!…)), atomic groups ' +
  'or possessive quantifiers. Supported: literal text, . [abc] [^a-z] \\d \\w \\s \\b, ^ $, a|b, (…) (?:…) ' +
  '(?<name>…), * + ? {n,m} and lazy *? +?, flags (?i) (?s) (?m), \\p{L}, \\uXXXX.';

const ABOUT: PatternDescription = { kind: 'regular expression', supported: REGEX_SUPPORT };

/** A regular expression compiled for searching lines, with the bound of one line's search. */
export interface SearchRegex {
  /** What the model wrote. */
  readonly pattern: string;
  /**
   * Bytes of a line searched: a longer line is searched in its first `lineBytes` only, so one
   * match call stays within {@link WORK_PER_CALL}. The more complex the pattern, the fewer (at
   * least 5,000; 62,500 for a pattern like `function\s+main`).
   */
  readonly lineBytes: number;
  /** True when the line (UTF-8; at most `lineBytes` of it are read) holds a match. */
  test(line: Uint8Array): boolean;
}

const refuse = (pattern: string, what: string, construct: string, at: number): never => {
  throw new PatternError(
    'pattern_unsupported',
    pattern,
    `The pattern has ${what} ("${construct}" at character ${at + 1}), which grep_files cannot run. ${REGEX_SUPPORT}`,
  );
};

/** `\uXXXX`, `\u{…}` and `\cX` (JavaScript only) in RE2's `\x{…}` form; `i` is at the backslash. */
function jsEscape(pattern: string, i: number): { re2: string; length: number } | undefined {
  const hex4 = /^\\u([0-9a-fA-F]{4})/.exec(pattern.slice(i, i + 6));
  if (hex4) return { re2: `\\x{${hex4[1]}}`, length: 6 };
  const braced = /^\\u\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(i, i + 10));
  if (braced) return { re2: `\\x{${braced[1]}}`, length: braced[0].length };
  const control = /^\\c([A-Za-z])/.exec(pattern.slice(i, i + 3));
  if (control) return { re2: `\\x{${(control[1]!.charCodeAt(0) % 32).toString(16)}}`, length: 3 };
  return undefined;
}

/**
 * The pattern in RE2 syntax: JavaScript's own escapes rewritten, `[^]` (any character) made
 * `[\s\S]`, and what RE2 cannot run (backreferences, lookaround, atomic groups) refused with a
 * message naming it. Character classes are skipped over: `(?=` inside `[…]` is plain text.
 */
function toRe2(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const js = jsEscape(pattern, i);
      if (js) {
        out += js.re2;
        i += js.length - 1;
        continue;
      }
      const property = /^\\[pP]\{[^}]*\}/.exec(pattern.slice(i, i + 64));
      if (property) {
        // `\p{L}` whole: its closing brace is not a counted repetition, so `\p{L}+` is not possessive.
        out += property[0];
        i += property[0].length - 1;
        continue;
      }
      const next = pattern[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) refuse(pattern, 'a backreference', `\\${next}`, i);
      if (!inClass && next === 'k' && pattern[i + 2] === '<') refuse(pattern, 'a backreference', '\\k<', i);
      out += c + next;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      if (pattern.startsWith('[^]', i)) {
        out += '[\\s\\S]';
        i += 2;
        continue;
      }
      inClass = true;
    } else if (c === '(' && pattern[i + 1] === '?') {
      const head = pattern.slice(i, i + 4);
      if (head.startsWith('(?=') || head.startsWith('(?!')) refuse(pattern, 'a lookahead', head.slice(0, 3), i);
      if (head === '(?<=' || head === '(?<!') refuse(pattern, 'a lookbehind', head, i);
      if (head.startsWith('(?>')) refuse(pattern, 'an atomic group', '(?>', i);
    } else if ((c === '+' || c === '*' || c === '?' || c === '}') && pattern[i + 1] === '+') {
      refuse(pattern, 'a possessive quantifier', `${c}+`, i);
    }
    out += c;
  }
  return out;
}

/**
 * Compiles a regular expression the model gave (JavaScript syntax) for a linear-time search:
 * RE2 semantics (no backtracking, so `(a+)+$` costs what `a+$` does), at most
 * {@link MAX_REGEX_CHARS} characters and a program of at most 200 instructions
 * (`MAX_PROGRAM`). Case-insensitive search is `(?i)` at the start. Throws a {@link PatternError}.
 *
 * @example
 * ```ts
 * const re = compileSearchRegex('(?i)^import .* from');
 * re.test(new TextEncoder().encode("IMPORT x FROM 'y'")); // true
 * compileSearchRegex('(a)\\1'); // throws PatternError (pattern_unsupported): a backreference
 * ```
 */
export function compileSearchRegex(pattern: string): SearchRegex {
  if (pattern.length > MAX_REGEX_CHARS) {
    throw new PatternError(
      'pattern_too_long',
      pattern.slice(0, 80) + '…',
      `The pattern is ${pattern.length.toLocaleString('en-US')} characters long; at most ${MAX_REGEX_CHARS.toLocaleString('en-US')} are allowed. Search for a shorter, distinctive part.`,
    );
  }
  const re = compileLinear(toRe2(pattern), pattern, ABOUT);
  const lineBytes = Math.floor(WORK_PER_CALL / Math.max(1, re.programSize()));
  return {
    pattern,
    lineBytes,
    test: (line) => re.test(line.length > lineBytes ? line.subarray(0, lineBytes) : line),
  };
}
