// Runs the built example as a person would (a child process, offline: no OPENAI_API_KEY) and
// checks the span tree it prints. Builds it first when needed (`tsc -b` is incremental).
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const MAIN = join(ROOT, 'examples', 'tracing', 'dist', 'main.js');

function runExample(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const env = { ...process.env };
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'OTEL_TRACES_EXPORTER', 'OTEL_SDK_DISABLED'])
    delete env[name];
  const res = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'examples/tracing'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}, 120_000);

describe('tracing example (offline scripted model)', () => {
  it("prints the answer and one trace: invoke_agent > chat, execute_tool > the tool's own span, chat", () => {
    const run = runExample();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('answer: It is sunny and 24°C in Lisbon today.');
    const tree = run.stdout.split('\n').filter((line) => /^(trace |[│├└ ]*[├└]─ |invoke_agent)/.test(line));
    expect(tree.map((line) => line.replace(/ {2}\(\d+\.\d ms\)$/, ''))).toEqual([
      expect.stringMatching(/^trace [0-9a-f]{32}$/),
      'invoke_agent weather-assistant',
      '├─ chat scripted-model',
      '├─ execute_tool get_forecast',
      '│  └─ weather-api lookup',
      '└─ chat scripted-model',
    ]);
    expect(run.stdout).toContain('gen_ai.usage.input_tokens = 142');
    expect(run.stdout).toContain('gen_ai.response.finish_reasons = ["tool_call"]');
    expect(run.stdout).toContain('rxscope.reply.finish_reason = "completed"');
    expect(run.stdout).not.toContain('gen_ai.input.messages');
  });

  it('records message content only with --content', () => {
    const run = runExample('--content');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('gen_ai.input.messages');
    expect(run.stdout).toContain('gen_ai.tool.call.arguments = {"city":"Lisbon"}'); // structured, not a JSON string
  });
});
