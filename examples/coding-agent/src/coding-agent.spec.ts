// Runs the built coding agent as a person would (a child process, offline: no OPENAI_API_KEY,
// output piped) and checks what they would see: the plan approved, the fix made, the tests run in
// the sandbox, the task list, a compaction before the second task, and the project's tests passing.
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const MAIN = join(ROOT, 'examples', 'coding-agent', 'dist', 'main.js');

function runAgent(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'FORCE_COLOR', 'NO_COLOR']) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'examples/coding-agent'],
    { cwd: ROOT, stdio: 'pipe' },
  );
}, 120_000);

describe.each(['bubblewrap', 'local'])('the coding agent example (%s sandbox)', (sandbox) => {
  let run: { code: number | null; stdout: string; stderr: string };
  beforeAll(async () => {
    run = await runAgent('--sandbox', sandbox);
  }, 60_000);

  it('exits 0 with the project fixed: its tests pass in the workspace afterwards', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`sandbox: ${sandbox}`);
    expect(run.stdout.trimEnd().endsWith('node test.js in the workspace: all tests passed')).toBe(true);
  });

  it('plans first: plan mode on, writes are only tried after the approved plan_exit', () => {
    const on = run.stdout.indexOf('plan mode ON');
    const approval = run.stdout.indexOf('? plan_exit needs your approval');
    const off = run.stdout.indexOf('plan mode OFF');
    const edit = run.stdout.indexOf('→ edit_file');
    expect(on).toBeGreaterThan(-1);
    expect(on).toBeLessThan(approval);
    expect(approval).toBeLessThan(off);
    expect(off).toBeLessThan(edit);
  });

  it('runs the tests in the sandbox after asking, and shows the task list progress', () => {
    expect(run.stdout).toContain('? execute needs your approval: {"command":"node test.js","timeout_s":60}');
    expect(run.stdout).toContain('✓ all tests passed [exit code 0]');
    expect(run.stdout).toContain('tasks: [~] Fix sum() in sum.js  [ ] Run the tests');
    expect(run.stdout).toContain('tasks: [x] Fix sum() in sum.js  [x] Run the tests');
  });

  it('compacts the history once before the second task', () => {
    const second = run.stdout.indexOf('› Now add a short README.md');
    const compacted = run.stdout.indexOf('compacted: 3 → 2 messages');
    expect(second).toBeGreaterThan(-1);
    expect(compacted).toBeGreaterThan(second);
    expect(run.stdout.match(/compacted:/g)).toHaveLength(1);
    expect(run.stdout).toContain('✓ Created README.md');
  });
});

describe('the coding agent example with --devtools', () => {
  it('serves the devtools while it runs: every reply recorded with the harness description and the compaction', async () => {
    const env = { ...process.env };
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'NODE_ENV']) delete env[name];
    const child = spawn(process.execPath, [MAIN, '--devtools', '--sandbox', 'local'], {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      for (let i = 0; i < 1200 && !stdout.includes('press Enter to exit'); i++)
        await new Promise((r) => setTimeout(r, 25));
      const url = /devtools: (http:\/\/127\.0\.0\.1:\d+\/_devtools\/)/.exec(stdout)?.[1];
      expect(url).toBeDefined();
      const { replies } = (await (await fetch(`${url}api/replies`)).json()) as {
        replies: { replyId: string; agentName: string; status: string }[];
      };
      expect(replies.length).toBeGreaterThanOrEqual(2);
      expect(replies.every((r) => r.agentName === 'coder' && r.status === 'completed')).toBe(true);
      const records = await Promise.all(
        replies.map(
          async (r) =>
            (await (await fetch(`${url}api/replies/${r.replyId}`)).json()) as {
              harness: { parts: { name: string; enabled: boolean }[] };
              events: { event: { type: string; name?: string } }[];
            },
        ),
      );
      expect(records[0]!.harness.parts.map((p) => p.name)).toContain('CompactionMiddleware');
      const customs = records.flatMap((r) =>
        r.events.filter((e) => e.event.type === 'CUSTOM').map((e) => e.event.name),
      );
      expect(customs).toEqual(expect.arrayContaining(['compaction_start', 'compaction_end']));
    } finally {
      child.stdin.end('\n');
      expect(await closed).toBe(0);
    }
    expect(stderr).toBe('');
  }, 60_000);
});
