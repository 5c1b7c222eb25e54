import { partEnv, builtOne } from '../__tests__/part-env.js';
import type { Sandbox } from './sandbox.js';
import type { SandboxLease } from './sandbox-lease.js';
import { sandboxPart } from './sandbox-part.js';
import { SandboxLifecycleMiddleware } from './sandbox-lifecycle/index.js';
import { acceptsInput } from '../__tests__/helpers.js';

describe('the sandbox part', () => {
  const env = partEnv();
  afterAll(() => env.cleanup());

  it("is off without a sandbox, or with 'none': the agent has no shell", () => {
    for (const options of [{}, { sandbox: 'none' as const }]) {
      const { part, middleware } = builtOne(sandboxPart, options, env);
      expect(part).toEqual({
        name: 'SandboxLifecycleMiddleware',
        option: 'sandbox',
        enabled: false,
        reason: "sandbox: 'none' — the agent has no shell",
      });
      expect(middleware).toBeUndefined();
    }
  });

  it('is on with a sandbox: the lifecycle middleware with execute, and the reason names the sandbox and the lease', () => {
    const local = builtOne(sandboxPart, { sandbox: 'local' }, env);
    expect(local.middleware).toBeInstanceOf(SandboxLifecycleMiddleware);
    expect(local.middleware!.tools!().map((t) => t.name)).toEqual(['execute']);
    expect(local.part.reason).toMatch(/^sandbox: local — /);
    expect(local.part.reason).not.toContain('lease');

    const lease: SandboxLease = {
      acquire: async (sessionId) => ({ sessionId, owner: 'o', onLost: () => undefined, release: async () => {} }),
    };
    const leased = builtOne(sandboxPart, { sandbox: 'bubblewrap', sandboxLease: lease }, env);
    expect(leased.part.reason).toMatch(/^sandbox: bubblewrap — .*; a reply first takes the session's sandbox lease/);
  });

  it('passes the execute options on: a timeout over maxTimeoutS is refused', () => {
    const { middleware } = builtOne(sandboxPart, { sandbox: 'local', execute: { maxTimeoutS: 7 } }, env);
    const tool = middleware!.tools!()[0]!;
    expect(acceptsInput(tool, { command: 'ls', timeout_s: 7 })).toBe(true);
    expect(acceptsInput(tool, { command: 'ls', timeout_s: 8 })).toBe(false);
  });

  it('takes a Sandbox object, and refuses anything else by name', () => {
    const own = { kind: 'mine', description: 'my sandbox', acquire: async () => ({}) } as unknown as Sandbox;
    expect(builtOne(sandboxPart, { sandbox: own }, env).part.reason).toBe('sandbox: mine — my sandbox');
    expect(() => builtOne(sandboxPart, { sandbox: 'docker' as never }, env)).toThrow(
      /sandbox must be 'none', 'local', 'bubblewrap' or a Sandbox object, got "docker"/,
    );
  });

  it('lends its middleware to subagents (they get a sandbox of their own)', () => {
    expect(sandboxPart.lends).toBe(true);
    expect(sandboxPart.borrows).toBeUndefined();
  });
});
