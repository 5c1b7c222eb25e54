// Finding 1 of issue #28: grep_files ran the model's pattern with `new RegExp()` on the main
// thread, so `(a+)+$` against one line of 27 "a" and a "!" froze the whole process for 8.4 s
// (doubling with each "a"). Patterns now run on RE2 in time slices; these tests watch the event
// loop while the attack runs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool, ToolContext } from '@rxscope/core';
import { probeEventLoop, RESPONSIVE_MS } from '../__tests__/probes.js';
import { toolInput, tempDir } from '../__tests__/helpers.js';
import { HarnessOptionError } from '../options/harness-option-error.js';
import { PatternError } from '../search/pattern-error.js';
import { LocalFileSystem } from '../workspace/local-file-system.js';
import { grepFilesTool } from './grep-files.js';

const ctx = (signal = new AbortController().signal): ToolContext => ({
  signal,
  callId: 'c1',
  idempotencyKey: 'c1',
  agentName: 'a',
  replyId: 'r',
  emit: () => undefined,
  forward: () => undefined,
});
const call = async (tool: Tool, input: unknown, signal?: AbortSignal): Promise<string> =>
  (await tool.execute!(toolInput(tool, input), ctx(signal))) as string;

/** The longest the event loop was held while `work` ran, and its result. */
async function watched<T>(work: () => Promise<T>): Promise<{ result: T; heldMs: number }> {
  const probe = probeEventLoop();
  try {
    return { result: await work(), heldMs: probe.stop() };
  } finally {
    probe.stop();
  }
}

describe('grep_files against hostile patterns', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => dir.cleanup());

  it('runs (a+)+$ against the reported line and far longer ones, and a 4 MB file of them, without holding the event loop', async () => {
    writeFileSync(join(dir.path, 'reported.txt'), `${'a'.repeat(27)}!\n`);
    writeFileSync(join(dir.path, 'long.txt'), `${'a'.repeat(5_000)}!\n${'a'.repeat(100_000)}!\n`);
    writeFileSync(join(dir.path, 'big.txt'), `${'a'.repeat(2_000)}!\n`.repeat(2_000));
    const { result, heldMs } = await watched(() => call(grepFilesTool(fs), { pattern: '(a+)+$' }));
    expect(result).toBe('No matches for /(a+)+$/.');
    expect(heldMs).toBeLessThan(RESPONSIVE_MS);
    // The same pattern still finds what it means: a line that is all "a".
    writeFileSync(join(dir.path, 'match.txt'), 'xyz\naaaa\n');
    expect(await call(grepFilesTool(fs), { pattern: '^(a+)+$' })).toBe('match.txt:2: aaaa\n[1 match in 1 file]');
  });

  it.each([
    ['a state per character (2^20 states)', '(a|b)*a(a|b){20}$'],
    ['a counted repetition of a Unicode class', '\\p{L}{190}!'],
    ['nested stars', '(.*.*.*.*.*.*.*=)+x'],
    ['an alternation of overlapping words', '(a|aa|aaa|aaaa)+b'],
  ])('stays responsive on a pattern built to be slow for RE2 too: %s', async (_what, pattern) => {
    const letters = Array.from({ length: 20_000 }, (_, i) => 'ab'[(i * 7919) % 3 === 0 ? 0 : 1]).join('');
    writeFileSync(join(dir.path, 'mixed.txt'), `${letters}\n`.repeat(20));
    const { result, heldMs } = await watched(() => call(grepFilesTool(fs), { pattern }));
    expect(result).toMatch(/^No matches|match/);
    expect(heldMs).toBeLessThan(RESPONSIVE_MS);
  });

  it('searches many files with the event loop free between them', async () => {
    for (let i = 0; i < 300; i++) writeFileSync(join(dir.path, `f${i}.txt`), `${'a'.repeat(3_000)}!\n`.repeat(20));
    const { result, heldMs } = await watched(() => call(grepFilesTool(fs), { pattern: '(a+)+$' }));
    expect(result).toBe('No matches for /(a+)+$/.');
    expect(heldMs).toBeLessThan(RESPONSIVE_MS);
  });

  it.each([
    ['a backreference', '(a)\\1', 'pattern_unsupported', /backreference \("\\1" at character 4\)/],
    ['a named backreference', '(?<x>a)\\k<x>', 'pattern_unsupported', /backreference/],
    ['a lookahead', 'foo(?=bar)', 'pattern_unsupported', /lookahead \("\(\?=" at character 4\)/],
    ['a negative lookbehind', '(?<!x)y', 'pattern_unsupported', /lookbehind/],
    ['a possessive quantifier', 'a++b', 'pattern_unsupported', /possessive/],
    ['a pattern over 1,000 characters', 'x'.repeat(1_001), 'pattern_too_long', /1,001 characters long; at most 1,000/],
    ['a program too large', '\\w{300}', 'pattern_too_complex', /too complex: it compiles to [\d,]+ instructions/],
    ['a repetition count RE2 caps', 'x{2000}', 'pattern_too_complex', /repeats too much/],
    ['an invalid pattern', '(unclosed', 'pattern_invalid', /not a valid regular expression: missing closing \)/],
  ])('refuses %s with an error naming it and what is supported', async (_what, pattern, code, message) => {
    writeFileSync(join(dir.path, 'a.txt'), 'aa\n');
    const error = await call(grepFilesTool(fs), { pattern }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PatternError);
    expect((error as PatternError).code).toBe(code);
    expect((error as PatternError).message).toMatch(message);
    if (code !== 'pattern_too_long') expect((error as PatternError).message).toContain('Supported: literal text');
  });

  it('finds what ordinary JavaScript-syntax patterns mean, in the usual path:line: text format', async () => {
    writeFileSync(
      join(dir.path, 'main.ts'),
      [
        "import { helper } from './helper';",
        'export function  main() {',
        '  const foo = 1; // TODO: rename',
        '  const food = 2;',
        "  throw new TypeError('2024-06-01');",
        '}',
      ].join('\n') + '\n',
    );
    const grep = (pattern: string) => call(grepFilesTool(fs), { pattern, glob: '*.ts' });
    expect(await grep('function\\s+main')).toBe('main.ts:2: export function  main() {\n[1 match in 1 file]');
    expect(await grep('\\bfoo\\b')).toBe('main.ts:3:   const foo = 1; // TODO: rename\n[1 match in 1 file]');
    expect(await grep('^import .* from')).toBe("main.ts:1: import { helper } from './helper';\n[1 match in 1 file]");
    expect(await grep('[A-Z][a-z]+Error')).toContain('main.ts:5:');
    expect(await grep('\\d{4}-\\d{2}-\\d{2}')).toContain('main.ts:5:');
    expect(await grep('(?i)todo: RENAME')).toBe('main.ts:3:   const foo = 1; // TODO: rename\n[1 match in 1 file]');
    expect(await grep('const (?<name>\\w+) = [12];')).toContain('[2 matches in 1 file]');
    expect(await grep('\\u0054ODO')).toContain('main.ts:3:');
    expect(await grep('[^]oo')).toContain('[2 matches in 1 file]');
    expect(await grep('nothing here')).toBe('No matches for /nothing here/ in files matching *.ts.');
  });

  it('searches a line past its bound in its first part only, and says so', async () => {
    writeFileSync(join(dir.path, 'min.js'), `needle${'x'.repeat(200_000)}late-needle\nshort needle\n`);
    const out = await call(grepFilesTool(fs), { pattern: 'needle' });
    expect(out).toMatch(/^min\.js:1: needlexxx+ … \[cut\]\nmin\.js:2: short needle\n\[2 matches in 1 file\]\n/);
    expect(out).toMatch(/\[1 line longer than [\d,]+ bytes searched in their first bytes only\]$/);
    expect(await call(grepFilesTool(fs), { pattern: 'late-needle' })).toMatch(
      /^No matches for \/late-needle\/\.\n\[1 line/,
    );
  });

  it('stops at maxSearchMs and when the call is cancelled, saying so', async () => {
    for (let i = 0; i < 50; i++) writeFileSync(join(dir.path, `f${i}.txt`), `${'a'.repeat(1_000)}\n`.repeat(200));
    const slow = await call(grepFilesTool(fs, { maxSearchMs: 1 }), { pattern: 'b' });
    expect(slow).toMatch(/^No matches for \/b\/\.\n\[stopped after 1 ms of searching; narrow it with path or glob\]$/);
    const cancelled = new AbortController();
    cancelled.abort();
    expect(await call(grepFilesTool(fs), { pattern: 'b' }, cancelled.signal)).toContain(
      'stopped: the call was cancelled',
    );
  });

  it('refuses an unknown option, naming the one meant', () => {
    expect(() => grepFilesTool(fs, { maxMatchs: 5 } as never)).toThrow(HarnessOptionError);
    expect(() => grepFilesTool(fs, { maxMatchs: 5 } as never)).toThrow(
      /unknown option "maxMatchs" of grepFilesTool; did you mean "maxMatches"\?/,
    );
    expect(() => grepFilesTool(fs, { maxSearchMs: 0 })).toThrow(
      /maxSearchMs must be a whole number of at least 1, got 0/,
    );
  });
});
