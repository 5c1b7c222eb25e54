/**
 * `--compare <commit>`: a second build of rxscope, from another commit, measured in the same run
 * as the working tree's, so a change is judged against its parent moments apart rather than
 * against a figure taken on another day, under another load.
 *
 * The commit's tree is exported with `git archive` into `bench/.compare/<sha>` (not
 * a worktree: nothing is registered in the repository), its dependencies installed from pnpm's
 * store (offline when the store has them), and its core and built-in middlewares compiled. The
 * directory is kept: a second run against the same commit starts at once.
 */
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A built checkout of another commit. */
export interface ComparedBuild {
  /** The commit, abbreviated: contenders of this build are named `<contender>@<sha>`. */
  readonly sha: string;
  /** Root of the checkout (its `packages/core/dist` and `packages/middleware-builtin/dist` are built). */
  readonly dir: string;
}

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PNPM = ['-y', 'pnpm@12.4.2'];

/**
 * Exports, installs and builds `revision` (anything `git rev-parse` takes: a hash, `HEAD~1`, a
 * branch) unless that was done before; `log` reports each step.
 *
 * @example
 * ```ts
 * const parent = prepareComparedBuild('HEAD~1', console.log); // { sha: '2360288', dir: '…/bench/.compare/2360288' }
 * ```
 */
export function prepareComparedBuild(revision: string, log: (line: string) => void): ComparedBuild {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  let sha: string;
  try {
    sha = git('rev-parse', '--short', `${revision}^{commit}`);
  } catch {
    throw new Error(`--compare ${revision}: not a commit of this repository (git rev-parse failed)`);
  }
  const dir = join(ROOT, 'bench', '.compare', sha);
  const ready = join(dir, '.ready');
  if (existsSync(ready)) {
    log(`--compare: using the build of ${sha} in ${dir}`);
    return { sha, dir };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`--compare: exporting ${sha} to ${dir}`);
  execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C "${dir}"`], { cwd: ROOT, stdio: 'inherit' });
  const run = (cmd: string, args: string[], options: ExecFileSyncOptions = {}) =>
    execFileSync(cmd, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], ...options });
  log(`--compare: installing the dependencies of ${sha}`);
  // Only the two packages measured (and what they depend on); no build scripts are needed for them.
  const install = [
    ...PNPM,
    'install',
    '--frozen-lockfile',
    '--ignore-scripts',
    '--filter',
    '@rxscope/middleware-builtin...',
  ];
  try {
    run('npx', [...install, '--offline']);
  } catch {
    run('npx', install);
  }
  log(`--compare: compiling @rxscope/core and @rxscope/middleware-builtin of ${sha}`);
  run('npx', ['tsc', '-b', 'packages/middleware-builtin']);
  writeFileSync(ready, `${new Date().toISOString()}\n`);
  return { sha, dir };
}
