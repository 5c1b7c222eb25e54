import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { lastValueFrom, toArray, type Observable } from 'rxjs';
import { tempDir } from '../__tests__/helpers.js';
import { BubblewrapSandbox } from './bubblewrap-sandbox.js';
import { LocalSandbox } from './local-sandbox.js';
import type { ExecEvent, Sandbox, SandboxSession } from './sandbox.js';

type Exit = Extract<ExecEvent, { type: 'exit' }>;
const exitOf = async (run: Observable<ExecEvent>): Promise<Exit> => {
  const events = await lastValueFrom(run.pipe(toArray()));
  return events.find((e): e is Exit => e.type === 'exit')!;
};
/** True while the process runs (a killed process not yet reaped, a zombie, counts as ended). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};
const waitFor = async (check: () => boolean, ms = 5000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe.each([
  ['local', () => new LocalSandbox()],
  ['bubblewrap', () => new BubblewrapSandbox()],
] as const)('%s sandbox', (_kind, make: () => Sandbox) => {
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

  it('kills the whole process group on timeout, background processes included', async () => {
    const started = Date.now();
    const exit = await exitOf(session.exec('sleep 30 & echo $! > bg.pid; echo started; sleep 30', { timeoutMs: 500 }));
    expect(exit.timedOut).toBe(true);
    expect(exit.output).toContain('started');
    expect(Date.now() - started).toBeLessThan(10_000);
    await new Promise((r) => setTimeout(r, 300));
    if (_kind === 'local') expect(alive(Number(readFileSync(join(dir.path, 'bg.pid'), 'utf8')))).toBe(false);
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
    await expect(
      new BubblewrapSandbox({ bwrap: 'bwrap-not-installed' }).acquire({ workspace: dir.path }),
    ).rejects.toThrow(/apt-get install bubblewrap/);
  });

  it('cannot hard-link host files into the workspace', async () => {
    writeFileSync(join(dir.path, 'probe'), '');
    const exit = await sh('ln /etc/passwd linked 2>&1 || echo LINK-FAILED');
    expect(exit.output).toContain('LINK-FAILED');
  });
});
