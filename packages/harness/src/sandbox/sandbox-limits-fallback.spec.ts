// The limits on a machine where the agent cannot make cgroups (as in many containers): memory
// falls back to RLIMIT_DATA, which must still let node start (RLIMIT_AS would not), and no
// command fails for want of a cgroup.
import { tempDir } from '../__tests__/helpers.js';
import { exitOf } from './__tests__/sandbox-helpers.js';
import { BubblewrapSandbox } from './bubblewrap-sandbox.js';
import { LocalSandbox } from './local-sandbox.js';
import type { Sandbox } from './sandbox.js';
import type { SandboxLimits } from './sandbox-limits.js';

jest.mock('./cgroup-parents.js', () => ({
  ...jest.requireActual<object>('./cgroup-parents.js'),
  cgroupParents: () => ({}),
}));

describe.each([
  ['local', (limits?: SandboxLimits) => new LocalSandbox(limits ? { limits } : {})],
  ['bubblewrap', (limits?: SandboxLimits) => new BubblewrapSandbox(limits ? { limits } : {})],
] as const)('%s sandbox without cgroups', (_kind, make: (limits?: SandboxLimits) => Sandbox) => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.cleanup());

  async function sh(command: string, limits?: SandboxLimits) {
    const session = await make(limits).acquire({ workspace: dir.path });
    try {
      return await exitOf(session.exec(command, { timeoutMs: 30_000 }));
    } finally {
      await session.release();
    }
  }

  it('bounds memory by the data limit, under which node still starts', async () => {
    const exit = await sh(`ulimit -d; node -e "console.log('node ok')"`);
    expect(exit.output).toBe(`${(4 * 2 ** 30) / 1024}\nnode ok\n`);
  });

  it('stops a memory hog (the program reports it: the sandbox cannot tell which limit)', async () => {
    const hog = `node -e "const a = []; for (let i = 0; i < 64; i++) a.push(Buffer.alloc(16 * 2 ** 20, 1)); console.log('ALLOCATED')"`;
    const exit = await sh(hog, { memoryBytes: 256 * 2 ** 20 });
    expect(exit.output).not.toContain('ALLOCATED');
    expect(exit.exitCode).not.toBe(0);
  });

  it('still applies the other limits and reports them', async () => {
    const exit = await sh('while :; do :; done', { cpuSeconds: 1 });
    expect(exit.exceededLimit?.limit).toBe('cpuSeconds');
  });
});
