import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

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
      rules = readFile(join(this.root, dir, '.gitignore'), 'utf8').then(
        (text) => ignore().add(text),
        () => undefined,
      );
      this.cache.set(dir, rules);
    }
    return rules;
  }
}
