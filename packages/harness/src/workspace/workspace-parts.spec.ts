import { builtOne, partEnv } from '../__tests__/part-env.js';
import { AtPathExpansionMiddleware } from './at-path-expansion/index.js';
import { WorkspaceContextMiddleware } from './workspace-context/index.js';
import { WorkspaceSnapshotMiddleware } from './workspace-snapshot/index.js';
import { atPathExpansionPart, workspaceContextPart, workspaceSnapshotPart } from './workspace-parts.js';

describe('the workspace parts', () => {
  const env = partEnv();
  afterAll(() => env.cleanup());

  it('workspace snapshots are off unless asked for (they grow every saved state)', () => {
    expect(builtOne(workspaceSnapshotPart, {}, env).part).toEqual({
      name: 'WorkspaceSnapshotMiddleware',
      option: 'workspaceSnapshot',
      enabled: false,
      reason: 'workspaceSnapshot is not set (the workspace stays on this machine)',
    });
    expect(builtOne(workspaceSnapshotPart, { workspaceSnapshot: false }, env).part.enabled).toBe(false);
    for (const workspaceSnapshot of [true, { maxTotalBytes: 1024 }] as const) {
      const on = builtOne(workspaceSnapshotPart, { workspaceSnapshot }, env);
      expect(on.part.enabled).toBe(true);
      expect(on.middleware).toBeInstanceOf(WorkspaceSnapshotMiddleware);
    }
  });

  it('@path expansion is on by default and off with false', () => {
    const on = builtOne(atPathExpansionPart, {}, env);
    expect(on.part).toMatchObject({ enabled: true, reason: '@path in a user message attaches that workspace file' });
    expect(on.middleware).toBeInstanceOf(AtPathExpansionMiddleware);
    expect(builtOne(atPathExpansionPart, { atPathExpansion: {} }, env).middleware).toBeInstanceOf(
      AtPathExpansionMiddleware,
    );
    const off = builtOne(atPathExpansionPart, { atPathExpansion: false }, env);
    expect(off).toEqual({
      part: {
        name: 'AtPathExpansionMiddleware',
        option: 'atPathExpansion',
        enabled: false,
        reason: 'atPathExpansion: false',
      },
    });
  });

  it('the workspace context is on by default, off with false, and lent to subagents', () => {
    const on = builtOne(workspaceContextPart, { workspaceContext: true }, env);
    expect(on.middleware).toBeInstanceOf(WorkspaceContextMiddleware);
    expect(on.part.reason).toContain('AGENTS.md');
    expect(builtOne(workspaceContextPart, { workspaceContext: false }, env).middleware).toBeUndefined();
    expect(workspaceContextPart.lends).toBe(true);
    expect(atPathExpansionPart.lends).toBeUndefined();
    expect(workspaceSnapshotPart.lends).toBeUndefined();
  });
});
