import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { readUpTo } from './bounded-read.js';

/** Bytes of one `.gitignore` read; rules past this are left out (a file of rules is never this large). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/**
 * The text of a `.gitignore`, or undefined when it is missing or not a regular file: opened
 * without following a link or blocking (a named pipe put there never hangs a glob), at most
 * {@link MAX_GITIGNORE_BYTES} read, and a line cut there dropped.
 */
async function readRules(file: string): Promise<string | undefined> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => undefined,
  );
  if (!handle) return undefined;
  try {
    const st = await handle.stat();
    if (!st.isFile()) return undefined;
    const { bytes, more } = await readUpTo(handle, MAX_GITIGNORE_BYTES, st.size);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    return more ? text.slice(0, text.lastIndexOf('\n') + 1) : text;
  } finally {
    await handle.close();
  }
}

/**
 * `.gitignore` rules of a workspace, nested files included (a rule applies to the folder of
 * its file and below), read with the `ignore` package (the matcher eslint and others use).
 * `.git/` is always ignored. Build one per search: files are read once per folder.
 */
export class GitIgnore {
  private readonly cache = new Map<string, Promise<Ignore | undefined>>();

  constructor(private readonly root: string) {}

  /** True when `relativePath` (a file, or a folder ending in `/`) is ignored. */
  async ignores(relativePath: string): Promise<boolean> {
    const parts = relativePath.split('/').filter(Boolean);
    if (parts[0] === '.git') return true;
    for (let depth = 0; depth < parts.length; depth++) {
      const dir = parts.slice(0, depth).join('/');
      const rules = await this.rulesOf(dir);
      if (!rules) continue;
      const rest = parts.slice(depth).join('/') + (relativePath.endsWith('/') ? '/' : '');
      if (rules.ignores(rest)) return true;
      // A file in an ignored folder is ignored too.
      for (let i = 1; i < parts.length - depth; i++) {
        if (rules.ignores(parts.slice(depth, depth + i).join('/') + '/')) return true;
      }
    }
    return false;
  }

  private rulesOf(dir: string): Promise<Ignore | undefined> {
    let rules = this.cache.get(dir);
    if (!rules) {
      rules = readRules(join(this.root, dir, '.gitignore')).then(
        (text) => (text === undefined ? undefined : ignore().add(text)),
        () => undefined,
      );
      this.cache.set(dir, rules);
    }
    return rules;
  }
}
