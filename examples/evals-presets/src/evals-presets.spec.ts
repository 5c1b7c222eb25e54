// Runs the built example as a person would (a child process, offline) and checks what they would
// read: each preset's summary, coding() ahead of the two others with the differences marked.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const MAIN = join(ROOT, 'examples', 'evals-presets', 'dist', 'main.js');

beforeAll(() => {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'examples/evals-presets'],
    {
      cwd: ROOT,
      stdio: 'pipe',
    },
  );
}, 120_000);

describe('the presets compared offline from the committed cassettes', () => {
  const out = mkdtempSync(join(tmpdir(), 'evals-presets-out-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  const env = { ...process.env };
  delete env['OPENAI_API_KEY'];
  let run: { status: number | null; stdout: string; stderr: string };
  beforeAll(() => {
    run = spawnSync(process.execPath, [MAIN, '--out', out], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  }, 70_000);

  it('replays every case without error and prints a summary per preset', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    for (const preset of ['coding', 'research', 'custom']) expect(run.stdout).toContain(`${preset}: 12 case(s)`);
    expect(run.stdout).toMatch(
      /coding: 12 case\(s\)\nscorer\s+mean\s+pass\s+errors\ntrajectory:in-order\s+1\.00\s+100%\s+0\nanswer:includes\s+1\.00\s+100%\s+0\ngrammar\s+1\.00\s+100%\s+0/,
    );
  });

  it('marks coding ahead of research (which cannot edit) and of the custom preset (no search or listing tools)', () => {
    expect(run.stdout).toMatch(
      /coding vs research\n[^\n]+\ntrajectory:in-order\s+1\.00\s+100%\s+0\.67\s+67%\s+-0\.33\s+\*/,
    );
    expect(run.stdout).toMatch(
      /coding vs custom\n[^\n]+\ntrajectory:in-order\s+1\.00\s+100%\s+0\.58\s+58%\s+-0\.42\s+\*/,
    );
    expect(run.stdout).toContain('t09-fix-sum answer:includes: 100% → 0%');
    expect(run.stdout).toContain('t06-todo trajectory:in-order: 100% → 0%');
  });

  it('ran the real tools on a copy of the fixture: research was offered no edit_file and said so', () => {
    const research = JSON.parse(readFileSync(join(out, 'research.json'), 'utf8')) as {
      results: { caseId: string; answer: string; toolCalls: string[] }[];
    };
    const fix = research.results.find((r) => r.caseId === 't09-fix-sum')!;
    expect(fix.toolCalls).toEqual([]);
    expect(fix.answer).toMatch(/cannot change files/);
    const coding = JSON.parse(readFileSync(join(out, 'coding.json'), 'utf8')) as typeof research;
    expect(coding.results.find((r) => r.caseId === 't09-fix-sum')!.toolCalls).toEqual(['read_file', 'edit_file']);
    expect(coding.results.find((r) => r.caseId === 't02-package-name')!.answer).toBe(
      'The project is called tiny-repo.',
    );
  });
});
