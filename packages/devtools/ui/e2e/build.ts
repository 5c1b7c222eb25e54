import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');
const PACKAGE = join(ROOT, 'packages', 'devtools');
const UI = join(PACKAGE, 'ui');

/** Where the UI is built (what the devtools handler serves by default). */
export const UI_DIST = join(PACKAGE, 'dist-ui');

/**
 * Builds `@rxscope/devtools` (the UI reads its record types from its declarations) and the UI,
 * unless the UI's build is newer than its sources — `npm test` builds it before the tests
 * (`build:devtools-ui`), so the test itself usually only checks.
 */
export function ensureUiBuilt(): void {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-b', 'packages/devtools'], { cwd: ROOT, stdio: 'pipe' });
  const built = join(UI_DIST, 'index.html');
  const inputs = [join(UI, 'src'), join(UI, 'angular.json'), join(UI, 'tsconfig.ui.json')];
  if (existsSync(built) && statSync(built).mtimeMs > Math.max(...inputs.map(newest))) return;
  execFileSync(process.execPath, [join(PACKAGE, 'node_modules', '@angular', 'cli', 'bin', 'ng.js'), 'build'], {
    cwd: UI,
    stdio: 'pipe',
    env: { ...process.env, NG_CLI_ANALYTICS: 'false' },
  });
}

/** The newest modification time of a file, or of the files under a directory (specs and test helpers left out). */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(
    stat.mtimeMs,
    ...readdirSync(path)
      .filter((name) => !name.endsWith('.spec.ts') && name !== 'testing')
      .map((name) => newest(join(path, name))),
  );
}
