// Secrets in the agent's environment (API keys, cloud credentials) reach neither the model
// request, nor the event stream, nor the commands the shell runs, in either sandbox.
import { spawn } from 'node:child_process';
import { lastValueFrom, toArray } from 'rxjs';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { BubblewrapSandbox } from '../sandbox/bubblewrap-sandbox.js';
import { createHarnessAgent } from '../assembly/create-harness-agent.js';
import { closeTestServer, resultOf, run, tempDir, testServerModel, textOfResult } from './helpers.js';

const nonce = Math.random().toString(36).slice(2);
const SECRETS = {
  OPENAI_API_KEY: `sk-env-${nonce}`,
  AWS_SECRET_ACCESS_KEY: `aws-env-${nonce}`,
  GITHUB_TOKEN: `ghp-env-${nonce}`,
};

describe.each(['local', 'bubblewrap'] as const)('secrets in the environment (%s sandbox)', (sandbox) => {
  let server: OpenAITestServer;
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir('rxscope-secrets-');
    Object.assign(process.env, SECRETS);
  });
  afterEach(async () => {
    for (const name of Object.keys(SECRETS)) delete process.env[name];
    await closeTestServer(server);
    dir.cleanup();
  });

  it('never reach the model request, the event stream or the output of `env` in the shell', async () => {
    server = await startOpenAITestServer({
      script: [
        {
          toolCalls: [
            {
              id: 'env',
              name: 'execute',
              input: { command: 'env; printenv OPENAI_API_KEY; echo "[$AWS_SECRET_ACCESS_KEY]"' },
            },
          ],
        },
        { text: 'done' },
      ],
    });
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      sandbox,
      execute: { askPermission: false },
    });
    const { events, end } = await run(agent, 'show me the environment');
    expect(end.finishReason).toBe('completed');
    const shown = textOfResult(resultOf(events, 'env'));
    expect(shown).toContain('PATH=');
    expect(shown).toContain('[]');
    const wire = JSON.stringify(server.requests.map((r) => ({ headers: r.headers, body: r.body })));
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    for (const secret of Object.values(SECRETS)) {
      expect(shown).not.toContain(secret);
      expect(wire).not.toContain(secret);
      expect(JSON.stringify(events)).not.toContain(secret);
    }
  });
});

describe('bubblewrap sandbox and the environment of other processes', () => {
  it('a command cannot read a host process environment through /proc (the local sandbox can: see RELIABILITY.md)', async () => {
    const secret = `proc-env-${nonce}`;
    // /proc/<pid>/environ shows a process's environment as it started: a host process started with a key.
    const host = spawn('sleep', ['30'], { env: { ...process.env, HOST_ONLY_KEY: secret }, stdio: 'ignore' });
    const dir = tempDir('rxscope-secrets-');
    const session = await new BubblewrapSandbox().acquire({ workspace: dir.path });
    try {
      const events = await lastValueFrom(
        session
          .exec(`cat /proc/${host.pid}/environ; cat /proc/*/environ | tr '\\0' '\\n'; echo checked`, {
            timeoutMs: 10_000,
          })
          .pipe(toArray()),
      );
      const output = events.map((e) => (e.type === 'exit' ? e.output : '')).join('');
      expect(output).toContain('checked');
      expect(output).not.toContain(secret);
    } finally {
      await session.release();
      host.kill('SIGKILL');
      dir.cleanup();
    }
  });
});
