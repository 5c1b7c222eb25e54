// Runs the built rxscope-eval bin as CI would (a child process) on a suite file, and reads what it
// prints, writes and returns.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PKG = join(__dirname, '..', '..');
const ROOT = join(PKG, '..', '..');
const BIN = join(PKG, 'dist', 'cli', 'main.js');
const SUITE = join(PKG, 'src', '__tests__', 'fixtures', 'math.eval.mjs');
const dir = mkdtempSync(join(tmpdir(), 'rxscope-eval-cli-'));

function cli(args: string[], env: Record<string, string> = {}) {
  const res = spawnSync(process.execPath, [BIN, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/evals'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rxscope-eval', () => {
  it('runs a suite: a progress bar, the table, the JSON results; exit 0 when the thresholds hold', () => {
    const { code, stdout, stderr } = cli([SUITE, '--out', 'math.json', '--concurrency', '2']);
    expect(code).toBe(0);
    expect(stderr).toContain('[########################] 3/3');
    expect(stdout).toMatch(
      /^math: 3 case\(s\)\nscorer\s+mean\s+pass\s+errors\nanswer:numeric\s+1\.00\s+100%\s+0\nverbatim\s+0\.00\s+0%\s+0\n/,
    );
    expect(stdout).toContain('results written to math.json');
    const run = JSON.parse(readFileSync(join(dir, 'math.json'), 'utf8')) as {
      results: { caseId: string; answer: string }[];
    };
    expect(run.results.map((r) => [r.caseId, r.answer])).toEqual([
      ['a', 'It is 2'],
      ['b', 'It is 5'],
      ['c', 'It is 30'],
    ]);
  });

  it('gates: a missed threshold exits 1 naming it; --baseline prints the comparison', () => {
    cli([SUITE, '--out', 'base.json']);
    const { code, stdout, stderr } = cli([SUITE, '--baseline', 'base.json', '--out', 'wrong.json', '--repeat', '2'], {
      EVAL_WRONG: '1',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('thresholds missed:\n  answer:numeric: pass rate 0.667 < 1');
    expect(stdout).toMatch(/scorer\s+math\s+pass\s+wrong\s+pass\s+diff/);
    expect(stdout).toContain('b answer:numeric: 100% → 0%');
    const strict = cli([SUITE, '--threshold', 'verbatim:mean=0.5']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('verbatim: mean 0.000 < 0.5');
  });

  it('compares two results files side by side', () => {
    cli([SUITE, '--out', 'a.json']);
    cli([SUITE, '--out', 'b.json', '--repeat', '3'], { EVAL_WRONG: '1' });
    const { code, stdout } = cli(['compare', 'a.json', 'b.json']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/answer:numeric\s+1\.00\s+100%\s+0\.67 \[0\.\d\d, 1\.00\]\s+67%\s+-0\.33/);
  });

  it('reports unreadable dataset lines (the rest runs) and fails the gate on them', () => {
    const { code, stdout, stderr } = cli([SUITE], { EVAL_BAD_LINE: '1' });
    expect(code).toBe(1);
    expect(stdout).toMatch(/answer:numeric\s+1\.00\s+100%/);
    expect(stdout).toMatch(/unreadable dataset lines:\n {2}line 4: not JSON/);
    expect(stderr).toContain('1 dataset line(s) could not be read');
  });

  it('exits 2 with a clear message on bad usage and bad files', () => {
    expect(cli([SUITE, '--concurency', '2'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown flag --concurency'),
    });
    expect(cli(['--help'])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('rxscope-eval compare <a.json> <b.json>'),
    });
    writeFileSync(join(dir, 'junk.json'), '{"name": "x"}');
    expect(cli(['compare', 'junk.json', 'junk.json'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('junk.json: not eval results (no "results" array)'),
    });
    expect(cli(['compare', 'nope.json', 'junk.json'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('nope.json: cannot read'),
    });
    expect(cli([join(PKG, 'src', '__tests__', 'fixtures', 'no-default.eval.mjs')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('export default defineEvalSuite({...}) is missing'),
    });
    expect(cli([SUITE, '--threshold', 'x:avg=1'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--threshold x:avg=1'),
    });
  });
});
