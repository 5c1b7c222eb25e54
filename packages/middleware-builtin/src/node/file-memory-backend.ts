/// <reference types="node" />
import { checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { InMemoryKnowledgeBase } from '../knowledge/in-memory-knowledge-base.js';
import {
  checkMemory,
  formatMemoryFile,
  type Memory,
  type MemoryBackend,
  type MemoryHeader,
  parseMemoryFile,
} from '../memory/memory-backend.js';

/**
 * Options of {@link FileMemoryBackend}.
 *
 * @example
 * ```ts
 * new FileMemoryBackend({ dir: './workspace/memory' });
 * ```
 */
export interface FileMemoryBackendOptions {
  /** The folder of memory files (`<name>.md`), created when missing. */
  readonly dir: string;
}

// Every option, typed against FileMemoryBackendOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<FileMemoryBackendOptions>({
  dir: true,
});

/**
 * Memories as Markdown files with YAML front matter (`name`, `description`, `type`), one file
 * per memory, in one folder — readable and editable by people. Writes are atomic; `search` is a
 * full-text search (BM25, stemmed) over the files. A file without valid front matter is reported
 * with its name.
 *
 * @example
 * ```ts
 * const memory = new AgenticMemoryMiddleware({ backend: new FileMemoryBackend({ dir: './workspace/memory' }) });
 * ```
 */
export class FileMemoryBackend implements MemoryBackend {
  private readonly dir: string;

  constructor(options: FileMemoryBackendOptions) {
    checkOptionKeys('FileMemoryBackend', options, OPTION_KEYS, {
      foreign: { directory: 'dir', path: 'dir', folder: 'dir' },
    });
    if (typeof options?.dir !== 'string' || !options.dir)
      throw new OptionsError(
        'invalid_option',
        'FileMemoryBackend.dir',
        'FileMemoryBackend: dir must be a non-empty path.',
      );
    this.dir = options.dir;
  }

  async list(): Promise<readonly MemoryHeader[]> {
    return (await this.all()).map(({ name, description, type }) => ({ name, description, type }));
  }

  async read(names: readonly string[]): Promise<readonly Memory[]> {
    const all = await this.all();
    return names.flatMap((n) => all.filter((m) => m.name === n));
  }

  async write(memory: Memory): Promise<void> {
    checkMemory(memory);
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, `${memory.name}.md`);
    await writeFile(`${path}.tmp`, formatMemoryFile(memory), 'utf8');
    await rename(`${path}.tmp`, path);
  }

  async search(query: string, topK: number): Promise<readonly Memory[]> {
    const all = await this.all();
    const kb = new InMemoryKnowledgeBase({ splitter: false });
    await kb.add(all.map((m) => ({ id: m.name, content: `${m.description}\n${m.content}` })));
    const hits = await firstValueFrom(kb.search(query, { topK }), { defaultValue: [] });
    return hits.flatMap((h) => all.filter((m) => m.name === h.documentId));
  }

  /**
   * The memories of one scope (a user), in a folder of their own under `dir`: `users/u_<id>` for
   * an id of letters, digits, `-` and `_` (at most 64), else `users/h_<sha-256 of the id>`, so
   * no id can name a path outside it.
   */
  scoped(scope: string): FileMemoryBackend {
    const folder = /^[A-Za-z0-9_-]{1,64}$/.test(scope)
      ? `u_${scope}`
      : `h_${createHash('sha256').update(scope).digest('hex')}`;
    return new FileMemoryBackend({ dir: join(this.dir, 'users', folder) });
  }

  private async all(): Promise<Memory[]> {
    let files: string[];
    try {
      files = (await readdir(this.dir)).filter((f) => f.endsWith('.md')).sort();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    return Promise.all(
      files.map(async (f) => parseMemoryFile(await readFile(join(this.dir, f), 'utf8'), f.slice(0, -3))),
    );
  }
}
