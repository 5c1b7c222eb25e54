import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { lastValueFrom } from 'rxjs';
import { tempDir } from '../__tests__/helpers.js';
import { exitOf, processesWith, sleep, startAgentProcess, waitFor } from './__tests__/sandbox-helpers.js';
import { BubblewrapSandbox } from './bubblewrap-sandbox.js';
import { LocalSandbox } from './local-sandbox.js';
import type { ExecEvent, Sandbox, SandboxSession } from './sandbox.js';

describe.each([
  ['local', () => new LocalSandbox()],
  ['bubblewrap', () => new BubblewrapSandbox()],
] as const)('%s sandbox', (kind, make: () => Sandbox) => {
  let dir: ReturnType<typeof tempDir>;
  let session: SandboxSession;

  beforeEach(async () => {
    dir = tempDir();
    session = await make().acquire({ workspace: dir.path });
  });
  afterEach(async () => {
    await session.release();
    dir.cleanup();
  });

  it('runs a command in the workspace and reports output and exit code', async () => {
    const exit = await exitOf(session.exec('pwd; echo out; echo err >&2; exit 3', { timeoutMs: 10_000 }));
    expect(exit).toMatchObject({ exitCode: 3, timedOut: false });
    expect(exit.output).toBe(`${dir.path}\nout\nerr\n`);
  });

  it("passes none of the agent's environment (API keys stay out)", async () => {
    process.env['RXSCOPE_TEST_SECRET'] = 'sk-live-123';
    try {
      const exit = await exitOf(session.exec('env', { timeoutMs: 10_000 }));
      expect(exit.output).not.toContain('sk-live-123');
      expect(exit.output).toContain(`HOME=${dir.path}`);
      expect(exit.output).toContain('PATH=');
    } finally {
      delete process.env['RXSCOPE_TEST_SECRET'];
    }
  });

  it('kills the whole process tree on timeout, background processes included', async () => {
    const started = Date.now();
    const exit = await exitOf(
      session.exec('(sleep 1; touch bg-survived) & echo started; sleep 30', { timeoutMs: 500 }),
    );
    expect(exit.timedOut).toBe(true);
    expect(exit.output).toContain('started');
    expect(Date.now() - started).toBeLessThan(10_000);
    await sleep(1500);
    expect(existsSync(join(dir.path, 'bg-survived'))).toBe(false);
  });

  it('kills the command when the subscriber unsubscribes', async () => {
    const events: ExecEvent[] = [];
    const sub = session
      .exec('echo $$ > me.pid; sleep 2; touch survived', { timeoutMs: 30_000 })
      .subscribe((e) => events.push(e));
    await waitFor(
      () => existsSync(join(dir.path, 'me.pid')) && readFileSync(join(dir.path, 'me.pid'), 'utf8').trim() !== '',
    );
    sub.unsubscribe();
    await new Promise((r) => setTimeout(r, 2600));
    expect(existsSync(join(dir.path, 'survived'))).toBe(false);
    expect(events.some((e) => e.type === 'exit')).toBe(false);
  });

  it('kills what still runs when the session is released', async () => {
    const sub = session.exec('sleep 2; touch survived', { timeoutMs: 30_000 }).subscribe();
    await new Promise((r) => setTimeout(r, 300));
    await session.release();
    await new Promise((r) => setTimeout(r, 2500));
    expect(existsSync(join(dir.path, 'survived'))).toBe(false);
    sub.unsubscribe();
    await expect(lastValueFrom(session.exec('true', { timeoutMs: 1000 }))).rejects.toThrow(/released/);
  });

  // Finding 2 of issue #28: a process that left the command's process group (setsid) kept
  // running, and writing into the workspace, after the call and the reply had ended.
  it.each([
    // `sleep 0.5`: the grandchild has left the process group before the command ends.
    ['setsid ... &', "setsid sh -c 'sleep 1; echo late > late.txt' > /dev/null 2>&1 & sleep 0.5; echo started"],
    ['(setsid ... &)', "(setsid sh -c 'sleep 1; echo late > late.txt' &); sleep 0.5; echo started"],
  ])('a `%s` grandchild does not outlive its command', async (_form, command) => {
    const exit = await exitOf(session.exec(command, { timeoutMs: 10_000 }));
    expect(exit).toMatchObject({ exitCode: 0, timedOut: false });
    expect(exit.output).toContain('started');
    await sleep(1500);
    expect(existsSync(join(dir.path, 'late.txt'))).toBe(false);
  });

  it.each(['cancelled', 'released'] as const)('a setsid grandchild does not outlive its reply (%s)', async (how) => {
    const events: ExecEvent[] = [];
    const sub = session
      .exec("setsid sh -c 'sleep 1; echo late > late.txt' & echo started; sleep 30", { timeoutMs: 30_000 })
      .subscribe((e) => events.push(e));
    await waitFor(() => events.some((e) => e.type === 'output' && e.text.includes('started')));
    if (how === 'released') await session.release();
    sub.unsubscribe();
    await sleep(1500);
    expect(existsSync(join(dir.path, 'late.txt'))).toBe(false);
  });

  it("leaves no process behind when the agent's own process is SIGKILLed mid-command", async () => {
    const marker = `rxscope-orphan-${Math.random().toString(36).slice(2)}`;
    const agent = startAgentProcess(
      kind,
      dir.path,
      `export MARK=${marker}; setsid sh -c 'sleep 2; echo late > late.txt' > /dev/null 2>&1 & echo started; sleep 60`,
    );
    try {
      await waitFor(
        () => agent.events().some((e) => e.type === 'output' && e.text.includes('started')),
        20_000,
        `the command to start (${agent.stderr()})`,
      );
      expect(processesWith(marker).length).toBeGreaterThan(1); // the command and its setsid grandchild run
      agent.child.kill('SIGKILL');
      await waitFor(() => processesWith(marker).length === 0, 5000, 'every process of the command to end');
      await sleep(2500);
      expect(processesWith(marker)).toEqual([]);
      expect(existsSync(join(dir.path, 'late.txt'))).toBe(false);
    } finally {
      agent.child.kill('SIGKILL');
      for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
    }
  }, 40_000);

  it('caps the output, keeping its head and its tail', async () => {
    const exit = await exitOf(
      session.exec('echo FIRST; seq 1 100000; echo LAST', { timeoutMs: 10_000, maxOutputChars: 1000 }),
    );
    expect(exit.output.length).toBeLessThan(1200);
    expect(exit.output.startsWith('FIRST\n')).toBe(true);
    expect(exit.output.trimEnd().endsWith('LAST')).toBe(true);
    expect(exit.omittedChars).toBeGreaterThan(500_000);
    expect(exit.output).toContain('characters of output left out');
  });
});

describe('bubblewrap isolation', () => {
  let dir: ReturnType<typeof tempDir>;
  let session: SandboxSession;
  let server: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.end('hello from the host\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(async () => {
    dir = tempDir();
    session = await new BubblewrapSandbox().acquire({ workspace: dir.path });
  });
  afterEach(async () => {
    await session.release();
    dir.cleanup();
  });

  const sh = (command: string) => exitOf(session.exec(command, { timeoutMs: 15_000 }));

  it('has no network: a server on the host loopback cannot be reached', async () => {
    const script = `require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('CONNECTED')).on('error', (e) => console.log('ERR', e.code))`;
    const exit = await sh(`node -e "${script}"`);
    expect(exit.output).toContain('ERR');
    expect(exit.output).not.toContain('CONNECTED');
    expect(connections).toBe(0);
  });

  it('keeps the system read-only and the host files invisible; only the workspace is writable', async () => {
    const exit = await sh(
      'touch /etc/pwned 2>/dev/null && echo ETC-WRITTEN; touch /usr/pwned 2>/dev/null && echo USR-WRITTEN; ' +
        'ls /root /home /work 2>/dev/null && echo HOST-VISIBLE; cat /etc/shadow | head -c 20; echo; ' +
        'echo x > /tmp/inside-tmp && echo TMP-OK; echo ok > in-workspace.txt && echo WS-OK',
    );
    expect(exit.output).not.toMatch(/ETC-WRITTEN|USR-WRITTEN|HOST-VISIBLE|root:/);
    expect(exit.output).toContain('TMP-OK');
    expect(exit.output).toContain('WS-OK');
    expect(existsSync('/etc/pwned')).toBe(false);
    expect(existsSync('/tmp/inside-tmp')).toBe(false);
    expect(readFileSync(join(dir.path, 'in-workspace.txt'), 'utf8')).toBe('ok\n');
  });

  it('runs in its own PID namespace: host processes are neither seen nor killable', async () => {
    const exit = await sh(`ls /proc | grep -c '^[0-9]'; kill -9 ${process.pid} 2>&1 || echo KILL-FAILED`);
    const count = Number(exit.output.split('\n')[0]);
    expect(count).toBeLessThan(10);
    expect(exit.output).toContain('KILL-FAILED');
  });

  it('gives a clear error at acquire when bubblewrap is missing', async () => {
    const acquired = new BubblewrapSandbox({ bwrap: 'bwrap-not-installed' }).acquire({ workspace: dir.path });
    await expect(acquired).rejects.toThrow(/apt-get install bubblewrap/);
    await expect(acquired).rejects.toMatchObject({ code: 'sandbox_unavailable' });
  });

  it('refuses an unknown option, naming the one meant', () => {
    expect(() => new BubblewrapSandbox({ readOnlyPath: ['/opt'] } as never)).toThrow(
      'unknown option "readOnlyPath" of BubblewrapSandbox; did you mean "readOnlyPaths"?',
    );
    expect(() => new BubblewrapSandbox({ limits: { open_files: 10 } } as never)).toThrow(
      /unknown option "open_files" of BubblewrapSandbox limits; did you mean "openFiles"\?/,
    );
  });

  it('cannot hard-link host files into the workspace', async () => {
    writeFileSync(join(dir.path, 'probe'), '');
    const exit = await sh('ln /etc/passwd linked 2>&1 || echo LINK-FAILED');
    expect(exit.output).toContain('LINK-FAILED');
  });
});
