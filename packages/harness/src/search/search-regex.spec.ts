// compileSearchRegex: the JavaScript-syntax patterns grep_files accepts, how they are rewritten
// for RE2, the bound on how much of a line is searched, and each refusal's code and message.
import { RxscopeError } from '@rxscope/core';
import { WORK_PER_CALL } from './linear-regex.js';
import { PatternError } from './pattern-error.js';
import { compileSearchRegex, MAX_REGEX_CHARS, REGEX_SUPPORT } from './search-regex.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const matches = (pattern: string, line: string): boolean => compileSearchRegex(pattern).test(bytes(line));

function refusal(pattern: string): PatternError {
  try {
    compileSearchRegex(pattern);
  } catch (e) {
    if (e instanceof PatternError) return e;
    throw e;
  }
  throw new Error(`expected ${pattern} to be refused`);
}

describe('compileSearchRegex: what it runs', () => {
  it('finds literal text anywhere in the line, and keeps the pattern as written', () => {
    const re = compileSearchRegex('TODO');
    expect(re.pattern).toBe('TODO');
    expect(re.test(bytes('  // TODO: later'))).toBe(true);
    expect(re.test(bytes('  // todo: later'))).toBe(false);
  });

  it('searches case-insensitively with (?i) at the start', () => {
    expect(matches('(?i)^import .* from', "IMPORT x FROM 'y'")).toBe(true);
    expect(matches('^import .* from', "IMPORT x FROM 'y'")).toBe(false);
  });

  it('supports classes, anchors, alternation, word boundaries and counted repetition', () => {
    expect(matches('^\\s*export (const|function) \\w+', 'export function main() {')).toBe(true);
    expect(matches('\\bid\\b', 'const idx = 1')).toBe(false);
    expect(matches('\\bid\\b', 'const id = 1')).toBe(true);
    expect(matches('^\\d{3}-\\d{4}$', '555-1234')).toBe(true);
    expect(matches('^\\d{3}-\\d{4}$', '555-12345')).toBe(false);
    expect(matches('[^a-z]', 'abc')).toBe(false);
  });

  it('accepts named groups and lazy quantifiers, which are not lookbehind or possessive', () => {
    expect(matches('(?<word>foo)bar', 'xfoobar')).toBe(true);
    expect(matches('a.*?b', 'a---b')).toBe(true);
    expect(matches('x{2,3}?y', 'xxy')).toBe(true);
  });

  it('rewrites \\uXXXX, \\u{…} and \\cX into what RE2 reads', () => {
    expect(matches('\\u0041B', 'zABz')).toBe(true);
    expect(matches('\\u{1F600}', 'smile 😀 here')).toBe(true);
    expect(matches('a\\cIb', 'a\tb')).toBe(true);
    expect(matches('a\\cIb', 'a b')).toBe(false);
  });

  it('takes [^] as any character, as JavaScript does', () => {
    expect(matches('a[^]c', 'abc')).toBe(true);
    expect(matches('a[^]c', 'ac')).toBe(false);
  });

  it('reads lookaround and backreference syntax inside a character class as plain characters', () => {
    expect(compileSearchRegex('[(?=]').test(bytes('f(x)'))).toBe(true);
    expect(compileSearchRegex('[(?<!]x').test(bytes('!x'))).toBe(true);
  });

  it('matches Unicode properties on UTF-8 bytes', () => {
    expect(matches('^[\\p{L}]+$', 'Grüße')).toBe(true);
    expect(matches('^[\\p{L}]+$', 'Grüße!')).toBe(false);
    expect(matches('^\\p{Lu}\\p{Ll}*$', 'Émile')).toBe(true);
    expect(matches('^\\p{Lu}\\p{Ll}*$', 'émile')).toBe(false);
  });

  it('runs (a+)+$ in linear time: a line as long as it searches, with no match, returns false', () => {
    const re = compileSearchRegex('(a+)+$');
    expect(re.test(bytes('a'.repeat(re.lineBytes - 1) + '!'))).toBe(false);
    expect(re.test(bytes('aaaa'))).toBe(true);
  });
});

describe('compileSearchRegex: the part of a line searched', () => {
  it('searches a line in its first lineBytes only, a bound shrinking with the pattern', () => {
    const simple = compileSearchRegex('needle');
    const complex = compileSearchRegex('(foo|bar|baz)\\s+\\w+\\d{5}');
    expect(simple.lineBytes).toBeGreaterThan(complex.lineBytes);
    expect(complex.lineBytes).toBeGreaterThanOrEqual(5_000);
    expect(simple.lineBytes * 1).toBeLessThanOrEqual(WORK_PER_CALL);

    const near = bytes('x'.repeat(simple.lineBytes - 'needle'.length) + 'needle');
    const far = bytes('x'.repeat(simple.lineBytes) + 'needle');
    expect(simple.test(near)).toBe(true);
    expect(simple.test(far)).toBe(false);
  });

  it('anchors $ at the cut when a line is longer than lineBytes', () => {
    const re = compileSearchRegex('x$');
    expect(re.test(bytes('x'.repeat(re.lineBytes + 10) + 'y'))).toBe(true);
  });
});

describe('compileSearchRegex: refusals', () => {
  it.each([
    ['(a)\\1', 'a backreference', '\\1', 4],
    ['(?<q>.)\\k<q>', 'a backreference', '\\k<', 8],
    ['foo(?=bar)', 'a lookahead', '(?=', 4],
    ['foo(?!bar)', 'a lookahead', '(?!', 4],
    ['(?<=\\$)\\d+', 'a lookbehind', '(?<=', 1],
    ['(?<!x)y', 'a lookbehind', '(?<!', 1],
    ['(?>a+)b', 'an atomic group', '(?>', 1],
    ['a++b', 'a possessive quantifier', '++', 2],
    ['a*+b', 'a possessive quantifier', '*+', 2],
    ['a{2}+', 'a possessive quantifier', '}+', 4],
    ['\\p{L}{2}+', 'a possessive quantifier', '}+', 8],
  ])('refuses %s as %s, quoting %s at character %d', (pattern, what, construct, at) => {
    const e = refusal(pattern);
    expect(e).toBeInstanceOf(RxscopeError);
    expect(e.name).toBe('PatternError');
    expect(e.code).toBe('pattern_unsupported');
    expect(e.pattern).toBe(pattern);
    expect(e.message).toContain(`${what} ("${construct}" at character ${at}), which grep_files cannot run`);
    expect(e.message).toContain(REGEX_SUPPORT);
  });

  it('takes \\p{L}+ as one or more letters, not as a possessive quantifier', () => {
    expect(matches('^\\p{L}+$', 'Grüße')).toBe(true);
    expect(matches('^\\p{L}+$', 'Grüße!')).toBe(false);
    expect(matches('\\P{L}+', 'abc')).toBe(false);
  });

  it('does not mistake an escaped backslash before a digit for a backreference', () => {
    expect(matches('a\\\\1', 'a\\1')).toBe(true);
  });

  it.each(['(unclosed', 'a[b', '*start', 'a)', 'x{2,1}'])(
    'refuses the invalid pattern %s as pattern_invalid',
    (pattern) => {
      const e = refusal(pattern);
      expect(e.code).toBe('pattern_invalid');
      expect(e.message).toContain('The pattern is not a valid regular expression');
      expect(e.message).not.toContain('error parsing regexp');
    },
  );

  it('refuses a repeat count past RE2’s cap as too complex, saying it repeats too much', () => {
    const e = refusal('a{1001}');
    expect(e.code).toBe('pattern_too_complex');
    expect(e.message).toContain('(it repeats too much)');
  });

  it('refuses a pattern compiling to more than 200 instructions, naming its size', () => {
    const e = refusal('\\p{L}{150}x{100}');
    expect(e.code).toBe('pattern_too_complex');
    expect(e.message).toMatch(/compiles to [\d,]+ instructions, more than the 200 allowed/);
  });

  it('refuses a pattern over the length limit before compiling it, quoting its first 80 characters', () => {
    const pattern = '(x'.repeat(MAX_REGEX_CHARS); // never compiled: it would be invalid too
    const e = refusal(pattern);
    expect(e.code).toBe('pattern_too_long');
    expect(e.pattern).toBe(pattern.slice(0, 80) + '…');
    expect(e.message).toContain('2,000 characters long; at most 1,000 are allowed');
  });
});
