import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const APP = join(ROOT, 'examples', 'angular-chat');

/** Where `ng build` puts the browser bundle (what the node-service serves). */
export const APP_DIST = join(APP, 'dist', 'browser');

const NG_PACKAGE = join(ROOT, 'packages', 'angular');

/**
 * Builds `@rxscope/core` and `@rxscope/angular` (the app bundles their dist) and the app, unless
 * each build is newer than its sources — `npm test` builds them before the tests, so the test
 * itself usually only checks.
 */
export function ensureAppBuilt(): void {
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/core'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  const ngBuilt = join(NG_PACKAGE, 'dist', 'fesm2022', 'rxscope-angular.mjs');
  if (!existsSync(ngBuilt) || statSync(ngBuilt).mtimeMs < newest(join(NG_PACKAGE, 'src'))) {
    execFileSync(
      process.execPath,
      [
        join(NG_PACKAGE, 'node_modules', 'ng-packagr', 'src', 'cli', 'main.js'),
        '-p',
        'ng-package.json',
        '-c',
        'tsconfig.lib.json',
      ],
      { cwd: NG_PACKAGE, stdio: 'pipe' },
    );
  }
  const built = join(APP_DIST, 'index.html');
  const inputs = [
    join(APP, 'src'),
    join(APP, 'angular.json'),
    join(APP, 'tsconfig.app.json'),
    join(ROOT, 'packages', 'core', 'dist', '.tsbuildinfo'),
    ngBuilt,
  ];
  if (existsSync(built) && statSync(built).mtimeMs > Math.max(...inputs.map(newest))) return;
  execFileSync(process.execPath, [join(APP, 'node_modules', '@angular', 'cli', 'bin', 'ng.js'), 'build'], {
    cwd: APP,
    stdio: 'pipe',
    env: { ...process.env, NG_CLI_ANALYTICS: 'false' },
  });
}

/** The newest modification time of a file, or of the files under a directory (spec files left out). */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(
    stat.mtimeMs,
    ...readdirSync(path)
      .filter((name) => !name.endsWith('.spec.ts'))
      .map((name) => newest(join(path, name))),
  );
}
