// Finding 3 of issue #28, the other readers: every file the harness reads on its own (an @path
// mention, AGENTS.md and MEMORY.md in the prompt, a skill, a subagent, the memory files, a
// workspace snapshot, a .gitignore) has a bound on the read itself, and a file over it is cut or
// refused with a message naming it — never read whole.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMsg, type Tool, type ToolContext } from '@rxscope/core';
import { AtPathExpansionMiddleware } from '../workspace/at-path-expansion/index.js';
import { WorkspaceContextMiddleware } from '../workspace/workspace-context/index.js';
import { loadSkill } from '../skills/skill-definition.js';
import { loadSubagent } from '../subagents/subagent-definition.js';
import { memoryGetTool } from '../memory/tools/memory-get.js';
import { memorySearchTool } from '../memory/tools/memory-search.js';
import { FileTooLargeError } from '../workspace/file-too-large-error.js';
import { LocalFileSystem } from '../workspace/local-file-system.js';
import type { WorkspaceFileSystem } from '../workspace/workspace-file-system.js';
import { restoreWorkspace, snapshotWorkspace } from '../workspace/snapshot-workspace.js';
import { toolInput, tempDir } from './helpers.js';
import { peakMemoryGrowth, sparseFile } from './probes.js';

const GB = 1024 * 1024 * 1024;
const MB = 1024 * 1024;

const ctx: ToolContext = {
  signal: new AbortController().signal,
  callId: 'c1',
  idempotencyKey: 'c1',
  agentName: 'a',
  replyId: 'r',
  emit: () => undefined,
  forward: () => undefined,
};
const call = async (tool: Tool, input: unknown): Promise<string> =>
  (await tool.execute!(toolInput(tool, input), ctx)) as string;
const tooLarge = async (p: Promise<unknown>): Promise<FileTooLargeError> => {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileTooLargeError);
  return error as FileTooLargeError;
};

describe('the harness reads no oversized file whole', () => {
  let dir: ReturnType<typeof tempDir>;
  let fs: LocalFileSystem;
  beforeEach(() => {
    dir = tempDir();
    fs = new LocalFileSystem(dir.path);
  });
  afterEach(() => dir.cleanup());

  it('@path attaches the first characters of a 1 GB file with a note, reading only them', async () => {
    sparseFile(join(dir.path, 'huge.log'), GB, 'log line\n'.repeat(1000));
    const expansion = new AtPathExpansionMiddleware({ fileSystem: fs, maxFileChars: 100 });
    const { result, growth } = await peakMemoryGrowth(() => expansion.expand([createMsg('user', 'Look at @huge.log')]));
    expect(growth).toBeLessThan(100 * MB);
    const attached = result[0]!.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
    expect(attached).toContain('[cut at 100 characters of 1,073,741,824 bytes; read the rest with read_file]');
  });

  it('the workspace context cuts a 1 GB MEMORY.md, reading only its first characters', async () => {
    writeFileSync(join(dir.path, 'AGENTS.md'), 'Be brief.');
    sparseFile(join(dir.path, 'MEMORY.md'), GB, 'The user likes tabs.\n'.repeat(1000));
    const context = new WorkspaceContextMiddleware({ workspace: dir.path, memoryTokens: 10 });
    const { result, growth } = await peakMemoryGrowth(async () => context.onSystemPrompt({} as never, {} as never, ''));
    expect(growth).toBeLessThan(100 * MB);
    expect(result).toContain('Be brief.');
    expect(result).toMatch(/MEMORY\.md is cut here \([\d,]+\+ characters\); read the rest with read_file/);
  });

  it('a skill or a subagent over 1 MiB is refused with a message naming the file and the limit', async () => {
    mkdirSync(join(dir.path, 'skills', 'big'), { recursive: true });
    writeFileSync(join(dir.path, 'skills', 'big', 'SKILL.md'), `---\ndescription: big\n---\n${'x'.repeat(2 * MB)}`);
    const skill = await tooLarge(loadSkill(fs, 'big'));
    expect(skill.message).toBe(
      '"skills/big/SKILL.md" is 2,097,177 bytes, over the limit of a skill (1,048,576 bytes). ' +
        'Keep the instructions short and put longer material in files beside SKILL.md.',
    );
    mkdirSync(join(dir.path, 'subagents'), { recursive: true });
    sparseFile(join(dir.path, 'subagents', 'huge.md'), GB);
    const subagent = await tooLarge(loadSubagent(fs, 'huge'));
    expect(subagent.message).toMatch(
      /^"subagents\/huge\.md" is 1,073,741,824 bytes, over the limit of a subagent definition/,
    );
  });

  it('memory_get refuses an oversized memory file, and memory_search searches the rest and names it', async () => {
    sparseFile(join(dir.path, 'MEMORY.md'), GB);
    writeFileSync(
      join(dir.path, 'memory', '2026-01-02.md'),
      '# Memory ledger 2026-01-02\n\n- The user prefers tabs.\n',
    );
    const { result, growth } = await peakMemoryGrowth(() => tooLarge(call(memoryGetTool(fs), { path: 'MEMORY.md' })));
    expect(growth).toBeLessThan(100 * MB);
    expect(result.message).toBe(
      '"MEMORY.md" is 1,073,741,824 bytes, over the limit of a memory file (4,194,304 bytes). ' +
        'Move older notes out of it (into another file under memory/) or shorten it.',
    );
    expect(await call(memorySearchTool(fs), { query: 'tabs' })).toBe(
      'memory/2026-01-02.md:3: The user prefers tabs.\n[not searched, too large: MEMORY.md]',
    );
  });

  it('a snapshot leaves out a file that grew past its limit after its size was taken', async () => {
    writeFileSync(join(dir.path, 'small.txt'), 'ok');
    sparseFile(join(dir.path, 'grown.bin'), GB);
    // stat reports the size the file had when the snapshot listed it.
    const stale: WorkspaceFileSystem = Object.assign(Object.create(fs) as LocalFileSystem, {
      stat: async (p: string) => {
        const st = await fs.stat(p);
        return st?.path === 'grown.bin' ? { ...st, size: 10 } : st;
      },
    });
    const { result, growth } = await peakMemoryGrowth(() => snapshotWorkspace(stale));
    expect(growth).toBeLessThan(100 * MB);
    expect(result.files.map((f) => f.path)).toEqual(['AGENTS.md', 'MEMORY.md', 'small.txt']);
    expect(result.omitted).toEqual([{ path: 'grown.bin', bytes: GB, reason: 'too_large' }]);
  });

  it('a restore compares a 1 GB file in the target without reading it whole, and replaces it', async () => {
    await fs.writeFile('data.txt', 'from the snapshot');
    const snapshot = await snapshotWorkspace(fs);
    const target = tempDir();
    try {
      const other = new LocalFileSystem(target.path);
      sparseFile(join(target.path, 'data.txt'), GB);
      const { result, growth } = await peakMemoryGrowth(() => restoreWorkspace(other, snapshot));
      expect(growth).toBeLessThan(100 * MB);
      expect(result).toContain('data.txt');
      expect(Buffer.from(await other.readFile('data.txt')).toString()).toBe('from the snapshot');
    } finally {
      target.cleanup();
    }
  });

  it('a .gitignore that is a named pipe never hangs a glob', async () => {
    await fs.writeFile('src/a.ts', '');
    execFileSync('mkfifo', [join(dir.path, '.gitignore')]);
    const hang = new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 3 s'), 3000).unref());
    expect(await Promise.race([fs.glob('**/*.ts'), hang])).toEqual(['src/a.ts']);
  });
});
