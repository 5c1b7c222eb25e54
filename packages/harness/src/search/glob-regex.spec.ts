// compileGlob: what a glob the model wrote matches, where a crawl for it starts, and how it
// refuses what it cannot run (each refusal's stable code and a message naming the construct).
import { RxscopeError } from '@rxscope/core';
import { compileGlob, GLOB_SUPPORT, MAX_GLOB_CHARS } from './glob-regex.js';
import { PatternError } from './pattern-error.js';

/** The PatternError `compile` throws (fails the test when it does not throw one). */
function refusal(compile: () => unknown): PatternError {
  try {
    compile();
  } catch (e) {
    if (e instanceof PatternError) return e;
    throw e;
  }
  throw new Error('expected a PatternError');
}

describe('compileGlob matching', () => {
  it('matches src/**/*.{ts,tsx} at any depth below src, including src itself, and nothing else', () => {
    const glob = compileGlob('src/**/*.{ts,tsx}');
    expect(glob.test('src/main.ts')).toBe(true);
    expect(glob.test('src/app/main.tsx')).toBe(true);
    expect(glob.test('src/a/b/c/d.ts')).toBe(true);
    expect(glob.test('src/main.js')).toBe(false);
    expect(glob.test('lib/main.ts')).toBe(false);
    expect(glob.test('src/main.tsx.bak')).toBe(false);
  });

  it('keeps * within one folder and matches dotfiles like any name', () => {
    const glob = compileGlob('*.ts');
    expect(glob.test('a.ts')).toBe(true);
    expect(glob.test('.hidden.ts')).toBe(true);
    expect(glob.test('dir/a.ts')).toBe(false);
    expect(compileGlob('*').test('.env')).toBe(true);
  });

  it('treats ** inside a name (a**b) as a plain *, never crossing a folder', () => {
    const glob = compileGlob('a**b');
    expect(glob.test('axyzb')).toBe(true);
    expect(glob.test('ax/yb')).toBe(false);
  });

  it('lets a trailing ** match everything below the folder', () => {
    const glob = compileGlob('docs/**');
    expect(glob.test('docs/a.md')).toBe(true);
    expect(glob.test('docs/deep/er/b.md')).toBe(true);
    expect(glob.test('other/a.md')).toBe(false);
  });

  it('matches ? as exactly one character other than a slash', () => {
    const glob = compileGlob('file?.txt');
    expect(glob.test('file1.txt')).toBe(true);
    expect(glob.test('file.txt')).toBe(false);
    expect(glob.test('file12.txt')).toBe(false);
    expect(compileGlob('a?b').test('a/b')).toBe(false);
  });

  it('supports ranges, sets and negated sets, and a negated set never matches a slash', () => {
    expect(compileGlob('v[0-9].md').test('v7.md')).toBe(true);
    expect(compileGlob('v[0-9].md').test('vx.md')).toBe(false);
    expect(compileGlob('[abc].ts').test('b.ts')).toBe(true);
    expect(compileGlob('[!abc].ts').test('b.ts')).toBe(false);
    expect(compileGlob('[!abc].ts').test('d.ts')).toBe(true);
    expect(compileGlob('[^abc].ts').test('d.ts')).toBe(true);
    expect(compileGlob('x[!a]y').test('x/y')).toBe(false);
  });

  it('takes ] first in a set as a member, and a - as a literal at the end', () => {
    expect(compileGlob('[]x].txt').test('].txt')).toBe(true);
    expect(compileGlob('[a-].txt').test('-.txt')).toBe(true);
    expect(compileGlob('[a-].txt').test('b.txt')).toBe(false);
  });

  it('supports POSIX classes such as [[:digit:]] and [[:upper:]]', () => {
    expect(compileGlob('log[[:digit:]].txt').test('log3.txt')).toBe(true);
    expect(compileGlob('log[[:digit:]].txt').test('logx.txt')).toBe(false);
    expect(compileGlob('[[:upper:]]*.md').test('README.md')).toBe(true);
    expect(compileGlob('[[:upper:]]*.md').test('readme.md')).toBe(false);
  });

  it('treats a [ that is never closed as a literal bracket', () => {
    const glob = compileGlob('a[bc.txt');
    expect(glob.test('a[bc.txt')).toBe(true);
    expect(glob.test('ab.txt')).toBe(false);
  });

  it('expands nested braces, and keeps {x} (one alternative) as literal braces', () => {
    const glob = compileGlob('{src,lib/{a,b}}/x.ts');
    expect(glob.test('src/x.ts')).toBe(true);
    expect(glob.test('lib/a/x.ts')).toBe(true);
    expect(glob.test('lib/b/x.ts')).toBe(true);
    expect(glob.test('lib/c/x.ts')).toBe(false);
    expect(compileGlob('{x}.ts').test('{x}.ts')).toBe(true);
    expect(compileGlob('{x}.ts').test('x.ts')).toBe(false);
  });

  it('treats a { that is never closed, or closed only inside a set, as a literal', () => {
    expect(compileGlob('a{b.txt').test('a{b.txt')).toBe(true);
    expect(compileGlob('{a,[}]').test('{a,}')).toBe(true);
  });

  it('allows an empty alternative, so {,.min}.js matches both forms', () => {
    const glob = compileGlob('app{,.min}.js');
    expect(glob.test('app.js')).toBe(true);
    expect(glob.test('app.min.js')).toBe(true);
    expect(glob.test('app.max.js')).toBe(false);
  });

  it('escapes with a backslash: \\* matches only a literal star', () => {
    const glob = compileGlob('a\\*b');
    expect(glob.test('a*b')).toBe(true);
    expect(glob.test('axb')).toBe(false);
    expect(compileGlob('\\[x\\]').test('[x]')).toBe(true);
  });

  it('takes regular-expression characters literally: . + ( ) $ ^ | do not act as operators', () => {
    expect(compileGlob('a.b').test('axb')).toBe(false);
    expect(compileGlob('a.b').test('a.b')).toBe(true);
    expect(compileGlob('a+b').test('aab')).toBe(false);
    expect(compileGlob('a+b').test('a+b')).toBe(true);
    expect(compileGlob('f(1)|$^.ts').test('f(1)|$^.ts')).toBe(true);
  });

  it('ignores leading ./ segments', () => {
    const glob = compileGlob('././src/*.ts');
    expect(glob.test('src/a.ts')).toBe(true);
    expect(glob.base).toBe('src');
  });

  it('never matches a path longer than PATH_MAX, even with **', () => {
    const glob = compileGlob('**');
    expect(glob.test('a/'.repeat(2_000) + 'b')).toBe(true);
    expect(glob.test('a/'.repeat(2_100) + 'b')).toBe(false);
  });

  it('matches in linear time a glob that makes backtracking engines take minutes', () => {
    const glob = compileGlob('*a*a*a*a*a*a*a*a*b');
    expect(glob.test('a'.repeat(4_000))).toBe(false);
    expect(glob.test('a'.repeat(40) + 'b')).toBe(true);
  });
});

describe('compileGlob crawl bounds', () => {
  it.each([
    ['src/lib/**/*.ts', 'src/lib', Infinity],
    ['src/*/index.ts', 'src', 1],
    ['*.md', '', 0],
    ['a/b/c.txt', 'a/b', 0],
    ['docs/{a,b}/*.md', 'docs', 1],
    ['pkg/src/[ab]/x/*.ts', 'pkg/src', 2],
  ])('%s crawls from %j, %d levels deep', (pattern, base, depth) => {
    const glob = compileGlob(pattern);
    expect(glob.base).toBe(base);
    expect(glob.depth).toBe(depth);
  });

  it('stops the base at an empty segment (a doubled slash)', () => {
    expect(compileGlob('a//b/*.ts').base).toBe('a');
  });
});

describe('compileGlob refusals', () => {
  it('refuses a negation, pointing at character 1 and suggesting to glob what is wanted', () => {
    const e = refusal(() => compileGlob('!*.ts'));
    expect(e).toBeInstanceOf(RxscopeError);
    expect(e.code).toBe('pattern_unsupported');
    expect(e.pattern).toBe('!*.ts');
    expect(e.message).toContain('a negation ("!" at character 1)');
    expect(e.message).toContain('glob what you want instead');
    expect(e.message).toContain(GLOB_SUPPORT);
  });

  it.each([
    ['+(a|b).ts', '+(', 1],
    ['src/@(x|y)', '@(', 5],
    ['a!(b)', '!(', 2],
    ['*(x)', '*(', 1],
    ['dir/?(y).md', '?(', 5],
  ])('refuses the extglob %s, naming %s at character %d and suggesting {a,b}', (pattern, construct, at) => {
    const e = refusal(() => compileGlob(pattern));
    expect(e.code).toBe('pattern_unsupported');
    expect(e.message).toContain(`an extglob ("${construct}" at character ${at})`);
    expect(e.message).toContain('use {a,b} for alternatives');
  });

  it('accepts an escaped extglob opener as literal text', () => {
    expect(compileGlob('\\+(a).ts').test('+(a).ts')).toBe(true);
  });

  it.each(['{1..9}', '{a..z}', '{-3..3}', '{1..10..2}'])(
    'refuses the numeric or letter range %s and asks for a list',
    (range) => {
      const e = refusal(() => compileGlob(`file${range}.txt`));
      expect(e.code).toBe('pattern_unsupported');
      expect(e.message).toContain(`a range ("${range}" at character 5)`);
      expect(e.message).toContain('list the values instead');
    },
  );

  it('keeps braces that merely contain dots, such as {a.b}, as literal text', () => {
    expect(compileGlob('{a.b}').test('{a.b}')).toBe(true);
  });

  it('refuses an unknown POSIX class by name', () => {
    const e = refusal(() => compileGlob('x[[:vowel:]]'));
    expect(e.code).toBe('pattern_unsupported');
    expect(e.message).toContain('an unknown class ("[:vowel:]" at character 3)');
  });

  it('refuses a glob longer than the limit, quoting only its start', () => {
    const long = 'a'.repeat(MAX_GLOB_CHARS + 1);
    const e = refusal(() => compileGlob(long));
    expect(e.code).toBe('pattern_too_long');
    expect(e.pattern).toBe('a'.repeat(80) + '…');
    expect(e.message).toContain('1,001 characters long; at most 1,000 are allowed');
    // At the limit the length is no longer the objection (the program size is, for plain letters).
    expect(refusal(() => compileGlob('a'.repeat(MAX_GLOB_CHARS))).code).toBe('pattern_too_complex');
  });

  it('refuses a glob that compiles to too large a program, under the length limit', () => {
    const e = refusal(() => compileGlob('?'.repeat(400)));
    expect(e.code).toBe('pattern_too_complex');
    expect(e.message).toContain('is too complex');
    expect(e.message).toContain(GLOB_SUPPORT);
  });
});
