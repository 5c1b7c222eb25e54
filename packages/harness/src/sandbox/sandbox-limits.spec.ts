// Finding 6 of issue #28: no resource limits in either sandbox. Each limit is exceeded for real
// (a busy loop, a fork bomb, a memory hog, a big file, many open files), each bounded so that
// the test stays harmless if the limit were not enforced.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, resultOf, run, tempDir, testServerModel, textOfResult } from '../__tests__/helpers.js';
import { createHarnessAgent } from '../assembly/create-harness-agent.js';
import { exitOf } from './__tests__/sandbox-helpers.js';
import { BubblewrapSandbox } from './bubblewrap-sandbox.js';
import { LocalSandbox } from './local-sandbox.js';
import type { Sandbox } from './sandbox.js';
import type { SandboxLimits } from './sandbox-limits.js';

const MiB = 2 ** 20;

describe.each([
  ['local', (limits?: SandboxLimits) => new LocalSandbox(limits ? { limits } : {})],
  ['bubblewrap', (limits?: SandboxLimits) => new BubblewrapSandbox(limits ? { limits } : {})],
] as const)('%s sandbox limits', (_kind, make: (limits?: SandboxLimits) => Sandbox) => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.cleanup());

  /** Runs one command in a fresh session of a sandbox with `limits`. */
  async function sh(command: string, limits?: SandboxLimits, timeoutMs = 30_000) {
    const session = await make(limits).acquire({ workspace: dir.path });
    try {
      return await exitOf(session.exec(command, { timeoutMs }));
    } finally {
      await session.release();
    }
  }

  it('sets the default limits on every command, and node still runs under them', async () => {
    const exit = await sh('ulimit -t; ulimit -f; ulimit -n; node -e "console.log(\'node ok\')"');
    expect(exit.output).toBe(`300\n${2 ** 30 / 512}\n4096\nnode ok\n`);
    expect(exit.exceededLimit).toBeUndefined();
  });

  it('lifts a limit set to null', async () => {
    const exit = await sh('ulimit -f', { fileSizeBytes: null });
    expect(exit.output).toBe('unlimited\n');
  });

  it('stops a busy loop at its CPU time limit and says so', async () => {
    const exit = await sh('while :; do :; done', { cpuSeconds: 1 });
    expect(exit.timedOut).toBe(false);
    expect(exit.exceededLimit).toEqual({
      limit: 'cpuSeconds',
      value: 1,
      message: 'the command exceeded its CPU time limit of 1 s',
    });
  });

  it('does not mistake a quick exit status 152 for the CPU limit', async () => {
    const exit = await sh('exit 152', { cpuSeconds: 60 });
    expect(exit.exitCode).toBe(152);
    expect(exit.exceededLimit).toBeUndefined();
  });

  it('stops a memory hog at its memory limit and says so', async () => {
    // At most 1 GiB even without the limit.
    const hog = `node -e "const a = []; for (let i = 0; i < 64; i++) a.push(Buffer.alloc(16 * 2 ** 20, 1)); console.log('ALLOCATED')"`;
    const exit = await sh(hog, { memoryBytes: 128 * MiB });
    expect(exit.output).not.toContain('ALLOCATED');
    expect(exit.exceededLimit).toMatchObject({
      limit: 'memoryBytes',
      message: 'the command exceeded its memory limit of 128 MiB',
    });
  });

  it('stops a fork bomb at its process limit and says so', async () => {
    // Without the limit it would make at most 2^10 short-lived shells.
    const bomb = 'b() { [ "$1" -lt 9 ] || { sleep 2; return; }; b $(($1 + 1)) & b $(($1 + 1)) & wait; }; b 0; echo END';
    const exit = await sh(bomb, { processes: 20 });
    expect(exit.output).toContain('END');
    expect(exit.exceededLimit).toMatchObject({
      limit: 'processes',
      message: 'the command exceeded its limit of 20 processes',
    });
  });

  it('stops a big file write at its file size limit and says so, also in a longer command', async () => {
    const exit = await sh('head -c 4194304 /dev/zero > big.bin', { fileSizeBytes: MiB });
    expect(statSync(join(dir.path, 'big.bin')).size).toBe(MiB);
    expect(exit.exceededLimit?.message).toBe('the command exceeded its file size limit of 1 MiB');
    const longer = await sh('head -c 4194304 /dev/zero > big2.bin; echo AFTER', { fileSizeBytes: MiB });
    expect(longer).toMatchObject({ exitCode: 0, exceededLimit: { limit: 'fileSizeBytes' } });
    expect(longer.output).toContain('AFTER');
  });

  it('reports the open files limit a program ran into', async () => {
    const exit = await sh(
      `node -e "const fs = require('fs'); for (let i = 0; i < 200; i++) fs.openSync('/dev/null')"`,
      { openFiles: 64 },
    );
    expect(exit.exceededLimit?.message).toBe('the command exceeded its limit of 64 open files');
  });
});

describe('the execute tool', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer;
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    await closeTestServer(server);
    dir.cleanup();
  });

  it.each([
    ['local', () => new LocalSandbox({ limits: { cpuSeconds: 1 } })],
    ['bubblewrap', () => new BubblewrapSandbox({ limits: { cpuSeconds: 1 } })],
  ])('turns an exceeded limit into an error result saying which limit (%s)', async (_kind, sandbox) => {
    server = await startOpenAITestServer({
      script: [
        { toolCalls: [{ id: 'busy', name: 'execute', input: { command: 'echo spinning; while :; do :; done' } }] },
        { text: 'done' },
      ],
    });
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      sandbox: sandbox(),
      execute: { askPermission: false },
    });
    const result = resultOf((await run(agent, 'go')).events, 'busy');
    expect(result.status).toBe('error');
    expect(textOfResult(result)).toContain('The command exceeded its CPU time limit of 1 s (exit code 152)');
    expect(textOfResult(result)).toContain('spinning');
  });
});
