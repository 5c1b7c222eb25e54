// Runs the built RAG assistant as a person would (a child process, offline: no OPENAI_API_KEY)
// and checks the answer comes from the right file and cites it.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const MAIN = join(ROOT, 'examples', 'rag-assistant', 'dist', 'main.js');

function runAssistant(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'OPENAI_EMBEDDING_MODEL']) delete env[name];
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

/** The answer: the lines between the question and the list of sources. */
const answerOf = (stdout: string) => stdout.split(/\n> .*\n/)[1]!.split('\nSources retrieved:')[0]!;

describe('examples/rag-assistant (offline)', () => {
  jest.setTimeout(60_000);

  it('answers a question from the handbook through the search tool and cites the file and lines', async () => {
    const { code, stdout, stderr } = await runAssistant('How long do refunds take?');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('Knowledge: 4 files');
    expect(stdout).toContain('[searching the knowledge base]');
    const answer = answerOf(stdout);
    expect(answer).toContain('Customers get a full refund within 14 days');
    expect(answer).toMatch(/\[handbook\/refunds\.md:1-6\]/);
    expect(stdout).toMatch(/Sources retrieved:\n {2}- handbook\/refunds\.md:1-6/);
  });

  it('in static mode retrieves before the first step, without a tool call, and cites another file for another question', async () => {
    const { code, stdout } = await runAssistant('--static', 'Is limescale damage covered by the warranty?');
    expect(code).toBe(0);
    expect(stdout).not.toContain('[searching the knowledge base]');
    const answer = answerOf(stdout);
    expect(answer).toContain('does not cover limescale damage');
    expect(answer).toContain('[handbook/warranty.md:1-6]');
  });

  it('answers from a folder of your own and says so when nothing matches', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kb-'));
    try {
      await writeFile(join(dir, 'office.md'), '# Office\n\nThe office in Lyon opens at nine and closes at six.\n');
      const found = await runAssistant('--knowledge', dir, 'When does the office in Lyon open?');
      expect(answerOf(found.stdout)).toContain('The office in Lyon opens at nine and closes at six. [office.md:1-3]');
      const nothing = await runAssistant('--knowledge', dir, 'zebra xylophone quantum');
      expect(nothing.code).toBe(0);
      expect(answerOf(nothing.stdout)).toContain('I could not find anything about that');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
