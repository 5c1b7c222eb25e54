// Runs the built quickstart as a person would (a child process, offline: no OPENAI_API_KEY) and
// checks what they would see. Builds it first when needed (`tsc -b` is incremental).
import { type AgentEvent, isAgentEvent } from '@rxscope/core';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const MAIN = join(ROOT, 'examples', 'quickstart', 'dist', 'main.js');

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout as it arrived, chunk by chunk. */
  readonly chunks: readonly string[];
}

function runQuickstart(...args: string[]): Promise<Run> {
  const env = { ...process.env };
  // Offline, and piped output as a person's `| less` would get it: no key, no forced colours.
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'FORCE_COLOR', 'NO_COLOR']) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: string[] = [];
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => chunks.push(c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: chunks.join(''), stderr, chunks }));
  });
}

/** Index of the stdout chunk holding the character at `offset` of the whole output. */
function chunkAt(chunks: readonly string[], offset: number): number {
  let end = 0;
  return chunks.findIndex((c) => (end += c.length) > offset);
}

/** `HH:MM` now in a time zone, as the `current_time` tool reports it. */
const clock = (timeZone: string) =>
  new Intl.DateTimeFormat('en-US', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    new Date(),
  );

beforeAll(() => {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'examples/quickstart'],
    { cwd: ROOT, stdio: 'pipe' },
  );
}, 120_000);

describe('quickstart (offline scripted model)', () => {
  it('streams the answer, shows each tool call with ✓ and ends with a usage summary', async () => {
    const before = clock('America/New_York');
    const run = await runQuickstart();
    const after = clock('America/New_York');
    const out = run.stdout;

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(out).toContain('offline scripted model');
    // Piped output: no colours, no spinner frames.
    // eslint-disable-next-line no-control-regex -- ESC starts an ANSI colour code
    expect(out).not.toMatch(/\x1b|\r|⠋/);

    // One line per tool call: mark, name, arguments, result, duration.
    expect(out).toMatch(
      /^ {2}✓ current_time \{"timeZone":"America\/New_York"\} → \{.*"utcOffset":"-0[45]:00"\} (<1|\d+) ms$/m,
    );
    expect(out).toMatch(/^ {2}✓ current_time \{"timeZone":"Asia\/Tokyo"\} → .*"utcOffset":"\+09:00".* ms$/m);
    expect(out).toMatch(/^ {2}✓ calculator \{"expression":"45 \* 365 \/ 60"\} → 45 \* 365 \/ 60 = 273\.75 .*ms$/m);
    expect(out).toMatch(/^ {2}✓ calculator \{"expression":"9 - \(-[45]\)"\} → 9 - \(-[45]\) = 1[34] .*ms$/m);
    expect(out.match(/^ {2}✓ /gm)).toHaveLength(4);
    expect(out).not.toContain('✗');

    // The answer is written from the real tool results (the clock of this machine) ...
    const answer =
      /Right now it is (\d\d:\d\d) on \w+ in New York and \d\d:\d\d on \w+ in Tokyo, so Tokyo is 1[34] hours ahead of you\. Talking 45 minutes every day for a year adds up to 273\.75 hours on the phone\./.exec(
        out,
      );
    expect(answer).not.toBeNull();
    expect([before, after]).toContain(answer![1]);
    // ... and streamed: it arrives in many pieces, not in one write.
    expect(
      chunkAt(run.chunks, out.indexOf('on the phone.')) - chunkAt(run.chunks, out.indexOf('Right now')),
    ).toBeGreaterThan(10);

    expect(out).toMatch(
      /^── completed · [\d,]+ input \+ [\d,]+ output tokens · 3 model calls · 4 tool calls · [\d.]+ s$/m,
    );
  }, 20_000);

  it('--json prints every event as one JSON line, from REPLY_START to REPLY_END completed', async () => {
    const run = await runQuickstart('--json');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('offline scripted model');

    const lines = run.stdout.trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line) as AgentEvent);
    for (const e of events) expect(isAgentEvent(e)).toBe(true);
    expect(events[0]!.type).toBe('REPLY_START');
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(events.filter((e) => e.type === 'MODEL_CALL_END')).toHaveLength(3);
    const results = events.filter((e) => e.type === 'TOOL_RESULT_END');
    expect(results.map((e) => e.type === 'TOOL_RESULT_END' && e.status)).toEqual([
      'success',
      'success',
      'success',
      'success',
    ]);
    expect(events.filter((e) => e.type === 'TEXT_BLOCK_DELTA').length).toBeGreaterThan(20);
  }, 20_000);
});
