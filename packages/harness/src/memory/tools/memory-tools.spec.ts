import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool, ToolContext } from '@rxscope/core';
import { toolInput, tempDir } from '../../__tests__/helpers.js';
import { LocalFileSystem } from '../../workspace/local-file-system.js';
import { memoryGetTool } from './memory-get.js';
import { memorySaveTool } from './memory-save.js';
import { memorySearchTool } from './memory-search.js';

const toolCtx: ToolContext = {
  signal: new AbortController().signal,
  callId: 'c1',
  idempotencyKey: 'c1',
  agentName: 'a',
  replyId: 'r',
  emit: () => undefined,
  forward: () => undefined,
};
const call = async (tool: Tool, input: unknown): Promise<string> =>
  (await tool.execute!(toolInput(tool, input), toolCtx)) as string;

describe('memory tools', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  const now = () => new Date('2026-03-14T18:05:00Z');
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => dir.cleanup());

  it("memory_save appends to today's ledger (bullets or one sentence) and never repeats a fact", async () => {
    const save = memorySaveTool(fs, { now });
    expect(await call(save, { content: 'The staging server is  stage-2.' })).toBe(
      'Saved 1 fact to memory/2026-03-14.md.',
    );
    expect(await call(save, { content: '- Tests run with pnpm test\n- the staging server is stage-2.' })).toBe(
      'Saved 1 fact to memory/2026-03-14.md.',
    );
    expect(await call(save, { content: 'Tests run with pnpm test' })).toBe(
      'Already in memory (memory/2026-03-14.md); nothing new saved.',
    );
    expect(readFileSync(join(dir.path, 'memory', '2026-03-14.md'), 'utf8')).toBe(
      '# Memory ledger 2026-03-14\n\n## 18:05 UTC — saved by the agent\n- The staging server is stage-2.\n\n## 18:05 UTC — saved by the agent\n- Tests run with pnpm test\n',
    );
  });

  it('concurrent saves to one ledger lose nothing', async () => {
    const save = memorySaveTool(fs, { now });
    await Promise.all(Array.from({ length: 10 }, (_, i) => call(save, { content: `Fact number ${i}.` })));
    const ledger = readFileSync(join(dir.path, 'memory', '2026-03-14.md'), 'utf8');
    for (let i = 0; i < 10; i++) expect(ledger).toContain(`- Fact number ${i}.`);
  });

  it('memory_search ranks bullets of MEMORY.md, the ledgers and the archive, and points at their lines', async () => {
    mkdirSync(join(dir.path, 'memory', 'archive'), { recursive: true });
    writeFileSync(
      join(dir.path, 'MEMORY.md'),
      '## Project\n- Deploys go through the blue pipeline.\n- The database is Postgres 16.\n',
    );
    writeFileSync(join(dir.path, 'memory', '2026-03-13.md'), '# Ledger\n\n- The user prefers short answers.\n');
    writeFileSync(join(dir.path, 'memory', 'archive', '2026-01-02.md'), '- Postgres backups run nightly at 02:00.\n');
    writeFileSync(join(dir.path, 'notes.md'), '- Postgres is mentioned here too, but this is not memory.\n');
    const search = memorySearchTool(fs);
    const out = await call(search, { query: 'postgres' });
    expect(out.split('\n').sort()).toEqual([
      'MEMORY.md:3: The database is Postgres 16.',
      'memory/archive/2026-01-02.md:1: Postgres backups run nightly at 02:00.',
    ]);
    expect(await call(search, { query: 'answers' })).toBe('memory/2026-03-13.md:3: The user prefers short answers.');
    expect(await call(search, { query: 'kubernetes' })).toMatch(
      /^Nothing in memory matches "kubernetes" \(searched 4 notes\)\.$/,
    );
  });

  it('memory_search on an empty memory says so', async () => {
    expect(await call(memorySearchTool(fs), { query: 'anything' })).toMatch(/memory is empty/);
  });

  it('memory_get reads numbered lines of memory files only, with clear errors', async () => {
    writeFileSync(join(dir.path, 'MEMORY.md'), 'one\ntwo\nthree\nfour\n');
    writeFileSync(join(dir.path, 'secret.txt'), 'not memory');
    const get = memoryGetTool(fs, { maxLines: 2 });
    expect(await call(get, { path: 'MEMORY.md', start_line: 2, end_line: 3 })).toBe('    2\ttwo\n    3\tthree');
    expect(await call(get, { path: 'MEMORY.md' })).toBe('    1\tone\n    2\ttwo\n[more from line 3]');
    await expect(call(get, { path: 'secret.txt' })).rejects.toThrow(
      'memory_get reads MEMORY.md and files under memory/ only, not "secret.txt".',
    );
    await expect(call(get, { path: 'memory/../secret.txt' })).rejects.toThrow(/outside|only/);
    await expect(call(get, { path: 'memory/2020-01-01.md' })).rejects.toThrow(/does not exist/);
    await expect(call(get, { path: 'MEMORY.md', start_line: 9 })).rejects.toThrow(
      /past the end of "MEMORY.md", which has 4 lines/,
    );
    await expect(call(get, { path: 'MEMORY.md', start_line: 3, end_line: 2 })).rejects.toThrow(
      /end_line \(2\) is before start_line \(3\)/,
    );
  });
});
