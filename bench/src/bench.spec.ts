// Keeps the benchmark harness working: a --quick run as a child process, and the pure parts in
// process. Never asserts a timing (CI machines are noisy); only that the numbers exist.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSections } from './harness/report.js';
import { quantile, summarize } from './harness/stats.js';

const ROOT = join(__dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'BENCHMARKS.md');

interface QuickReport {
  machine: string;
  results: {
    id: string;
    config: { quick: boolean; rounds: number; batch: number };
    contenders: { name: string; ms: { n: number; median: number } }[];
    ratios: { contender: string; baseline: string; ofMedians: number }[];
    requirements: { contender: string; met: boolean; ratio: number }[];
  }[];
}

beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'bench'], { cwd: ROOT, stdio: 'pipe' });
}, 120_000);

describe('bench --quick', () => {
  it('runs every contender of the model-overhead scenario against the test server and reports ratios, writing nothing', () => {
    const docBefore = existsSync(DOC) ? statSync(DOC).mtimeMs : undefined;
    const stdout = execFileSync(process.execPath, ['--expose-gc', join(ROOT, 'bench', 'dist', 'main.js'), '--quick', '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    const report = JSON.parse(stdout) as QuickReport;
    expect(report.machine).toMatch(/cores, .* GiB memory, Node v\d+/);
    const overhead = report.results.find((r) => r.id === 'model-overhead')!;
    expect(overhead.config.quick).toBe(true);
    expect(overhead.contenders.map((c) => c.name)).toEqual(['openai', 'openai+signal', 'rxscope', 'langchain']);
    for (const c of overhead.contenders) {
      expect(c.ms.n).toBe(overhead.config.rounds * overhead.config.batch);
      expect(c.ms.median).toBeGreaterThan(0);
    }
    expect(overhead.ratios.map((r) => [r.contender, r.baseline])).toEqual([
      ['openai+signal', 'openai'],
      ['rxscope', 'openai'],
      ['langchain', 'openai'],
    ]);
    expect(overhead.requirements).toEqual([expect.objectContaining({ contender: 'rxscope', met: expect.any(Boolean) })]);
    expect(existsSync(DOC) ? statSync(DOC).mtimeMs : undefined).toBe(docBefore);
  }, 90_000);
});

describe('harness', () => {
  it('interpolates quantiles', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(summarize([5, 1, 3])).toMatchObject({ n: 3, median: 3, min: 1 });
  });

  it('replaces a scenario section in place and appends new ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-doc-'));
    try {
      const doc = join(dir, 'BENCHMARKS.md');
      writeSections(doc, new Map([['a', '<!-- bench:a -->\nA1\n<!-- /bench:a -->']]));
      writeSections(doc, new Map([['b', '<!-- bench:b -->\nB1\n<!-- /bench:b -->']]));
      writeSections(doc, new Map([['a', '<!-- bench:a -->\nA2\n<!-- /bench:a -->']]));
      const text = readFileSync(doc, 'utf8');
      expect(text).toMatch(/^# Benchmarks/);
      expect(text).not.toContain('A1');
      expect(text.indexOf('A2')).toBeLessThan(text.indexOf('B1'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
