// The memory ledger and the memory tools at their edges: what a ledger file looks like after
// saves, duplicate facts, edits that fail half-way, oversized memory files, and memory_get on
// links and empty files.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool, ToolContext } from '@rxscope/core';
import { acceptsInput, tempDir, toolInput } from '../__tests__/helpers.js';
import { sparseFile } from '../__tests__/probes.js';
import { FileTooLargeError, LocalFileSystem } from '../workspace/index.js';
import {
  appendToLedger,
  bulletsOf,
  dayOf,
  editSerially,
  ledgerDayOf,
  ledgerPathOf,
  listLedgers,
  MAX_MEMORY_FILE_BYTES,
  readText,
} from './ledger.js';
import { isMemoryPath, memoryGetTool } from './tools/memory-get.js';
import { memorySaveTool } from './tools/memory-save.js';
import { memorySearchTool } from './tools/memory-search.js';

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

describe('memory ledger', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => dir.cleanup());
  const ledgerText = (day: string) => readFileSync(join(dir.path, ledgerPathOf(day)), 'utf8');

  it('names ledgers by UTC day and recognises only memory/YYYY-MM-DD.md as one', () => {
    expect(dayOf(new Date('2026-03-14T23:59:59-05:00'))).toBe('2026-03-15');
    expect(ledgerPathOf('2026-03-14')).toBe('memory/2026-03-14.md');
    expect(ledgerDayOf('memory/2026-03-14.md')).toBe('2026-03-14');
    expect(ledgerDayOf('memory/archive/2026-03-14.md')).toBeUndefined();
    expect(ledgerDayOf('memory/notes.md')).toBeUndefined();
    expect(ledgerDayOf('x/memory/2026-03-14.md')).toBeUndefined();
  });

  it('reads - and * bullets, trimmed, and nothing else', () => {
    expect(bulletsOf('# Title\n- one  \n  * two\n-three\nplain\n-   \n- four')).toEqual(['one', 'two', 'four']);
  });

  it('starts a ledger with its title, then adds each batch under its own heading', async () => {
    expect(await appendToLedger(fs, '2026-03-14', '09:00 UTC — flush', ['Uses pnpm.', 'Prefers tabs.'])).toEqual([
      'Uses pnpm.',
      'Prefers tabs.',
    ]);
    await appendToLedger(fs, '2026-03-14', '10:00 UTC — saved', ['Deploys on Fridays.']);
    expect(ledgerText('2026-03-14')).toBe(
      '# Memory ledger 2026-03-14\n\n## 09:00 UTC — flush\n- Uses pnpm.\n- Prefers tabs.\n\n' +
        '## 10:00 UTC — saved\n- Deploys on Fridays.\n',
    );
  });

  it('leaves out facts already there, whatever their case and spacing, and empty ones', async () => {
    await appendToLedger(fs, '2026-03-14', 'first', ['Uses   PNPM.']);
    const written = await appendToLedger(fs, '2026-03-14', 'second', ['uses pnpm.', '   ', 'New fact.', 'new  FACT.']);
    expect(written).toEqual(['New fact.']);
    expect(ledgerText('2026-03-14').match(/^- /gm)).toHaveLength(2);
  });

  it('writes nothing, not even a heading, when every fact is known', async () => {
    await appendToLedger(fs, '2026-03-14', 'first', ['A.']);
    const before = ledgerText('2026-03-14');
    expect(await appendToLedger(fs, '2026-03-14', 'again', ['a.'])).toEqual([]);
    expect(ledgerText('2026-03-14')).toBe(before);
  });

  it('keeps editing a file after an earlier edit of it failed', async () => {
    const order: string[] = [];
    const failing = editSerially(fs, 'memory/x.md', async () => {
      order.push('first');
      throw new Error('disk full');
    });
    const next = editSerially(fs, 'memory/x.md', async () => {
      order.push('second');
      return 'ok';
    });
    await expect(failing).rejects.toThrow('disk full');
    await expect(next).resolves.toBe('ok');
    expect(order).toEqual(['first', 'second']);
  });

  it('runs edits of one file one after another, but of different files independently', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const log: string[] = [];
    const slow = editSerially(fs, 'memory/a.md', async () => {
      await gate;
      log.push('a1');
    });
    const queued = editSerially(fs, 'memory/a.md', async () => void log.push('a2'));
    await editSerially(fs, 'memory/b.md', async () => void log.push('b'));
    expect(log).toEqual(['b']);
    release();
    await Promise.all([slow, queued]);
    expect(log).toEqual(['b', 'a1', 'a2']);
  });

  it('lists only dated ledgers, oldest first', async () => {
    mkdirSync(join(dir.path, 'memory', 'archive'), { recursive: true });
    for (const f of ['2026-03-14.md', '2025-12-31.md', 'notes.md', '2026-3-1.md', 'archive/2024-01-01.md'])
      writeFileSync(join(dir.path, 'memory', f), '- x\n');
    expect(await listLedgers(fs)).toEqual(['memory/2025-12-31.md', 'memory/2026-03-14.md']);
  });

  it('refuses to read a memory file over 4 MiB, saying how to shrink it, and reads a missing one as undefined', async () => {
    sparseFile(join(dir.path, 'MEMORY.md'), MAX_MEMORY_FILE_BYTES + 1, '- huge\n');
    const error = await readText(fs, 'MEMORY.md').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileTooLargeError);
    expect((error as Error).message).toContain('Move older notes out of it');
    expect(await readText(fs, 'memory/none.md')).toBeUndefined();
    expect(await readText(fs, 'memory')).toBeUndefined();
  });

  describe('the memory tools', () => {
    const now = () => new Date('2026-03-14T18:05:00Z');

    it('memory_save counts the facts it saved and says when there was nothing new', async () => {
      const save = memorySaveTool(fs, { now });
      expect(await call(save, { content: '- One.\n- Two.' })).toBe('Saved 2 facts to memory/2026-03-14.md.');
      expect(await call(save, { content: 'one.' })).toBe(
        'Already in memory (memory/2026-03-14.md); nothing new saved.',
      );
      expect(ledgerText('2026-03-14')).toContain('## 18:05 UTC — saved by the agent');
    });

    it('memory_save collapses a multi-line sentence into one fact', async () => {
      await call(memorySaveTool(fs, { now }), { content: 'The build\n   needs Node 20.' });
      expect(ledgerText('2026-03-14')).toContain('- The build needs Node 20.\n');
    });

    it('memory_save refuses empty content and content over 4,000 characters', () => {
      const save = memorySaveTool(fs, { now });
      expect(acceptsInput(save, { content: '' })).toBe(false);
      expect(acceptsInput(save, { content: 'x'.repeat(4_001) })).toBe(false);
      expect(acceptsInput(save, { content: 'x'.repeat(4_000) })).toBe(true);
    });

    it('memory_search points a paragraph hit at its first line and skips headings', async () => {
      writeFileSync(
        join(dir.path, 'MEMORY.md'),
        '# Deployment\n\nReleases go out\non Fridays after review.\n\n- Unrelated.\n',
      );
      const out = await call(memorySearchTool(fs), { query: 'Fridays' });
      expect(out).toBe('MEMORY.md:3: Releases go out on Fridays after review.');
      expect(await call(memorySearchTool(fs), { query: 'Deployment' })).toMatch(/^Nothing in memory matches/);
    });

    it('memory_search searches the other files and names one too large to search', async () => {
      sparseFile(join(dir.path, 'MEMORY.md'), MAX_MEMORY_FILE_BYTES + 1);
      writeFileSync(join(dir.path, 'memory', '2026-03-14.md'), '- The staging host is blue.\n');
      const out = await call(memorySearchTool(fs), { query: 'staging' });
      expect(out).toBe('memory/2026-03-14.md:1: The staging host is blue.\n[not searched, too large: MEMORY.md]');
    });

    it('memory_search returns at most maxResults hits', async () => {
      writeFileSync(join(dir.path, 'MEMORY.md'), ['- cat one', '- cat two', '- cat three', '- cat four'].join('\n'));
      const out = await call(memorySearchTool(fs, { maxResults: 2 }), { query: 'cat' });
      expect(out.split('\n')).toHaveLength(2);
    });

    it('memory_get says a file is empty, and accepts ./MEMORY.md', async () => {
      expect(await call(memoryGetTool(fs), { path: 'MEMORY.md' })).toBe('(MEMORY.md is empty)');
      writeFileSync(join(dir.path, 'MEMORY.md'), 'line\n');
      expect(await call(memoryGetTool(fs), { path: './MEMORY.md' })).toBe('    1\tline');
      expect(isMemoryPath('./memory/2026-03-14.md')).toBe(true);
      expect(isMemoryPath('memoryx/a.md')).toBe(false);
      expect(isMemoryPath('MEMORY.md.bak')).toBe(false);
    });

    it('memory_get refuses a link under memory/ that leads to another workspace file', async () => {
      writeFileSync(join(dir.path, 'secret.txt'), 'TOKEN=1');
      symlinkSync(join(dir.path, 'secret.txt'), join(dir.path, 'memory', 'alias.md'));
      await expect(call(memoryGetTool(fs), { path: 'memory/alias.md' })).rejects.toThrow(
        'memory_get reads MEMORY.md and files under memory/ only, not "memory/alias.md".',
      );
    });

    it('memory_get refuses a path leaving the workspace', async () => {
      await expect(call(memoryGetTool(fs), { path: '../../etc/passwd' })).rejects.toMatchObject({
        code: 'outside_workspace',
      });
    });
  });
});
