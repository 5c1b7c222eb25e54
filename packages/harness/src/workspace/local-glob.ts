import { lstat, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { glob as crawl } from 'tinyglobby';
import { type CompiledGlob, TimeSlice } from '../search/index.js';
import { GitIgnore } from './gitignore.js';
import { WorkspacePathError } from './workspace-path-error.js';

/** What {@link globLocal} needs of the confined file system. */
export interface LocalGlobScope {
  /** Real path of the workspace root. */
  readonly root: string;
  /** Real path of the folder globbed (checked to be a folder inside). */
  readonly cwd: string;
  /** The real path of a path inside the workspace; throws a `WorkspacePathError` for one outside. */
  readonly confine: (path: string) => Promise<string>;
  readonly inside: (absolute: string) => boolean;
  readonly relativeOf: (absolute: string) => string;
}

/**
 * The files under `scope.cwd` matching `glob`, as paths relative to the root, sorted, at most
 * `limit`. tinyglobby only crawls (from the glob's fixed folders, as deep as it can match, never
 * through symlinked folders); the matching is the glob's linear-time program, in time slices so a
 * crawl of many files leaves the event loop free. `.git/` is always left out, what `.gitignore`
 * files exclude unless `respectGitignore` is false, and a link unless it leads to a regular file
 * inside the workspace.
 *
 * @example
 * ```ts
 * const files = await globLocal(scope, compileGlob('src/**\/*.ts'), { limit: 1000, respectGitignore: true });
 * ```
 */
export async function globLocal(
  scope: LocalGlobScope,
  glob: CompiledGlob,
  options: { readonly limit: number; readonly respectGitignore: boolean },
): Promise<string[]> {
  let from = scope.cwd;
  if (glob.base) {
    try {
      from = await scope.confine(join(scope.cwd, glob.base));
    } catch (e) {
      if (e instanceof WorkspacePathError) return []; // a fixed folder leading out matches nothing
      throw e;
    }
    if (!(await lstat(from).catch(() => undefined))?.isDirectory()) return [];
  }
  const found = await crawl('**/*', {
    cwd: from,
    deep: glob.depth,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    ignore: ['**/.git/**'],
  });
  const gitignore = options.respectGitignore ? new GitIgnore(scope.root) : undefined;
  const slice = new TimeSlice();
  const out: string[] = [];
  for (const match of found.sort()) {
    if (out.length >= options.limit) break;
    if (slice.due) await slice.next();
    const candidate = glob.base ? `${glob.base}/${match}` : match;
    if (candidate.split('/').includes('.git') || !glob.test(candidate)) continue;
    const absolute = join(from, match);
    const st = await lstat(absolute).catch(() => undefined);
    if (!st) continue;
    // A link is listed only when it leads to a regular file inside the workspace.
    if (st.isSymbolicLink()) {
      const target = await realpath(absolute).catch(() => undefined);
      if (!target || !scope.inside(target) || !(await stat(target)).isFile()) continue;
    } else if (!st.isFile()) continue;
    const rel = scope.relativeOf(absolute);
    if (gitignore && (await gitignore.ignores(rel))) continue;
    out.push(rel);
  }
  return out;
}
