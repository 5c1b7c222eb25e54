import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InMemorySessionStore } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { customValues, resultOf, run, tempDir, textOfResult } from '../../__tests__/helpers.js';
import { createHarnessAgent, describeHarness } from '../../assembly/create-harness-agent.js';
import { LocalFileSystem } from '../local-file-system.js';
import { restoreWorkspace, snapshotWorkspace } from '../snapshot-workspace.js';

describe('workspace snapshots', () => {
  let here: ReturnType<typeof tempDir>;
  let there: ReturnType<typeof tempDir>;
  beforeEach(() => {
    here = tempDir();
    there = tempDir();
  });
  afterEach(() => {
    here.cleanup();
    there.cleanup();
  });

  it('a session resumed in another workspace folder (another machine) finds the files it wrote', async () => {
    const store = new InMemorySessionStore(); // stands for a shared store (Redis) between the machines
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'w1', name: 'write_file', input: { path: 'src/app.ts', content: 'export const answer = 42;\n' } },
        ],
      },
      { text: 'Written.' },
      { toolCalls: [{ id: 'r1', name: 'read_file', input: { path: 'src/app.ts' } }] },
      { text: 'It exports 42.' },
      { text: 'Still 42.' },
    ]);
    const first = createHarnessAgent({ model, workspace: here.path, store, sessionId: 's1', workspaceSnapshot: true });
    const wrote = await run(first, 'Write src/app.ts');
    expect(customValues(wrote.events, 'workspace_snapshot_saved')).toEqual([
      expect.objectContaining({ files: expect.any(Number), omitted: [] }),
    ]);

    const second = createHarnessAgent({
      model,
      workspace: there.path,
      store,
      sessionId: 's1',
      workspaceSnapshot: true,
    });
    const resumed = await run(second, 'What does src/app.ts export?');
    expect(customValues(resumed.events, 'workspace_restored')).toEqual([
      expect.objectContaining({ written: expect.arrayContaining(['src/app.ts']) }),
    ]);
    expect(textOfResult(resultOf(resumed.events, 'r1'))).toContain('export const answer = 42;');
    expect(readFileSync(join(there.path, 'src/app.ts'), 'utf8')).toBe('export const answer = 42;\n');

    // The folder already holds the latest snapshot: the next reply restores nothing over local work.
    writeFileSync(join(there.path, 'src/app.ts'), 'export const answer = 43;\n');
    const again = await run(second, 'And now?');
    expect(customValues(again.events, 'workspace_restored')).toEqual([]);
    expect(readFileSync(join(there.path, 'src/app.ts'), 'utf8')).toBe('export const answer = 43;\n');
  });

  it('leaves out evicted results, histories, git-ignored and oversized files, and names what did not fit', async () => {
    const fs = new LocalFileSystem(here.path);
    mkdirSync(join(here.path, 'large_tool_results'), { recursive: true });
    writeFileSync(join(here.path, 'large_tool_results', 'call-1.txt'), 'x'.repeat(1000));
    mkdirSync(join(here.path, 'conversation_history'), { recursive: true });
    writeFileSync(join(here.path, 'conversation_history', 's1.json'), '[]');
    writeFileSync(join(here.path, '.gitignore'), 'node_modules/\n');
    mkdirSync(join(here.path, 'node_modules', 'x'), { recursive: true });
    writeFileSync(join(here.path, 'node_modules', 'x', 'index.js'), 'module.exports = 1;');
    writeFileSync(join(here.path, 'big.bin'), Buffer.alloc(5000, 1));
    writeFileSync(join(here.path, 'a.txt'), 'a'.repeat(300));
    writeFileSync(join(here.path, 'b.txt'), 'b'.repeat(600));
    writeFileSync(join(here.path, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]));

    const snapshot = await snapshotWorkspace(fs, { maxFileBytes: 4000, maxTotalBytes: 400 });
    // AGENTS.md and MEMORY.md: the layout's (empty) files.
    expect(snapshot.files.map((f) => f.path)).toEqual(['.gitignore', 'a.txt', 'AGENTS.md', 'logo.png', 'MEMORY.md']);
    expect(snapshot.omitted).toEqual([
      { path: 'b.txt', bytes: 600, reason: 'over_total' },
      { path: 'big.bin', bytes: 5000, reason: 'too_large' },
    ]);

    await restoreWorkspace(new LocalFileSystem(there.path), snapshot);
    expect(readFileSync(join(there.path, 'logo.png'))).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255])); // bytes, not text
    expect(existsSync(join(there.path, 'large_tool_results', 'call-1.txt'))).toBe(false);
    expect(existsSync(join(there.path, 'node_modules'))).toBe(false);
  });

  it('is a harness part, off by default', () => {
    const model = new ScriptedChatModel([]);
    expect(describeHarness(createHarnessAgent({ model, workspace: here.path })).parts[1]).toMatchObject({
      name: 'WorkspaceSnapshotMiddleware',
      enabled: false,
    });
    expect(
      describeHarness(
        createHarnessAgent({ model, workspace: here.path, workspaceSnapshot: { maxTotalBytes: 1 << 20 } }),
      ).parts[1],
    ).toMatchObject({
      name: 'WorkspaceSnapshotMiddleware',
      enabled: true,
      hooks: ['onAgent', 'onActing'],
    });
  });
});
