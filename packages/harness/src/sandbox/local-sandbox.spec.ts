import { lastValueFrom } from 'rxjs';
import { tempDir } from '../__tests__/helpers.js';
import { exitOf, startAgentProcess, waitFor, type Exit } from './__tests__/sandbox-helpers.js';
import { LocalSandbox } from './local-sandbox.js';
import { SandboxError } from './sandbox-error.js';

/** Runs `command` in the agent-like process, whose environment holds `secret`; returns the exit event. */
async function runInAgentWithSecret(workspace: string, command: string, secret: string, isolation?: string) {
  const agent = startAgentProcess('local', workspace, command, {
    env: { RXSCOPE_AGENT_SECRET: secret },
    ...(isolation ? { isolation } : {}),
  });
  await waitFor(() => agent.events().some((e) => e.type === 'exit'), 20_000, `the command to end (${agent.stderr()})`);
  return agent.events().find((e): e is Exit => e.type === 'exit')!;
}

describe('local sandbox', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.cleanup());

  // Finding 4 of issue #28: `cat /proc/$PPID/environ` printed the agent's environment (its API keys).
  describe("hides the agent's environment", () => {
    const secret = `sk-live-${Math.random().toString(36).slice(2)}`;
    const reveal =
      'cat /proc/$PPID/environ; cat /proc/{agentPid}/environ; ' +
      'for f in /proc/[0-9]*/environ; do cat "$f"; done; echo; kill -0 {agentPid} 2>/dev/null && echo AGENT-VISIBLE; echo SCANNED';

    it('from /proc/$PPID/environ and from a scan of /proc for the agent', async () => {
      const exit = await runInAgentWithSecret(dir.path, reveal, secret);
      expect(exit.output).toContain('SCANNED');
      expect(exit.output).not.toContain(secret);
      expect(exit.output).not.toContain('AGENT-VISIBLE');
    }, 30_000);

    it("but not with processIsolation 'process-group' (the caveat the docs state)", async () => {
      const exit = await runInAgentWithSecret(dir.path, reveal, secret, 'process-group');
      expect(exit.output).toContain(secret);
      expect(exit.output).toContain('AGENT-VISIBLE');
    }, 30_000);
  });

  it('shows the command only its own processes; `kill $$` still ends the command', async () => {
    const session = await new LocalSandbox().acquire({ workspace: dir.path });
    try {
      const exit = await exitOf(
        session.exec("ls /proc | grep -c '^[0-9]'; kill $$; echo NOT-KILLED", { timeoutMs: 10_000 }),
      );
      expect(Number(exit.output.split('\n')[0])).toBeLessThan(10);
      expect(exit.output).not.toContain('NOT-KILLED');
    } finally {
      await session.release();
    }
  });

  it('says in its description that it runs each command in a PID namespace', () => {
    expect(new LocalSandbox().description).toMatch(/PID namespace of their own/);
    expect(new LocalSandbox({ processIsolation: 'process-group' }).description).toMatch(
      /no PID namespace .*read the agent's environment/,
    );
  });

  it("fails acquire with a clear error when a required PID namespace cannot be made, and falls back under 'auto'", async () => {
    const path = process.env['PATH'];
    process.env['PATH'] = dir.path; // no unshare, setpriv nor prlimit on it
    try {
      const refused = new LocalSandbox({ processIsolation: 'pid-namespace' }).acquire({ workspace: dir.path });
      await expect(refused).rejects.toMatchObject({
        code: 'sandbox_unavailable',
        message: expect.stringMatching(/util-linux/),
      });
      const auto = new LocalSandbox();
      expect(auto.description).toMatch(/no PID namespace \(util-linux setpriv and unshare are not installed\)/);
      const session = await auto.acquire({ workspace: dir.path });
      const exit = await exitOf(session.exec('echo fallback', { timeoutMs: 10_000 }));
      expect(exit.output).toBe('fallback\n');
      await session.release();
    } finally {
      process.env['PATH'] = path;
    }
  });

  it('fails exec on a released session with a SandboxError', async () => {
    const session = await new LocalSandbox().acquire({ workspace: dir.path });
    await session.release();
    await expect(lastValueFrom(session.exec('true', { timeoutMs: 1000 }))).rejects.toMatchObject({
      code: 'sandbox_released',
    });
  });

  it.each([
    [
      { limts: {} },
      'sandbox_option_unknown',
      /^unknown option "limts" of LocalSandbox; did you mean "limits"\? Known: /,
    ],
    [{ processIsolaton: 'auto' }, 'sandbox_option_unknown', /did you mean "processIsolation"/],
    [
      { limits: { memoryByte: 1 } },
      'sandbox_option_unknown',
      /unknown option "memoryByte" of LocalSandbox limits; did you mean "memoryBytes"\?/,
    ],
    [{ limits: { cpuSeconds: 0 } }, 'sandbox_option_invalid', /limits.cpuSeconds must be a positive integer or null/],
    [{ limits: { processes: '20' } }, 'sandbox_option_invalid', /limits.processes must be a positive integer/],
    [
      { processIsolation: 'namespace' },
      'sandbox_option_invalid',
      /processIsolation must be 'auto', 'pid-namespace', 'process-group'/,
    ],
    [{ env: { A: 1 } }, 'sandbox_option_invalid', /env must be an object of string values/],
  ])('refuses the options %j', (options, code, message) => {
    let error: unknown;
    try {
      new LocalSandbox(options as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
  });
});
