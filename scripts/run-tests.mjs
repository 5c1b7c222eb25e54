// Runs the whole jest suite and ends with one line "N passed, N failed" read from jest's JSON
// report, so a run that executed no test is visible to whoever reads the log.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const out = join(process.cwd(), 'test-results', 'jest.json');
mkdirSync(join(process.cwd(), 'test-results'), { recursive: true });
const jestBin = join(process.cwd(), 'node_modules', 'jest', 'bin', 'jest.js');
const res = spawnSync(process.execPath, [jestBin, '--json', `--outputFile=${out}`, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
let passed = 0;
let failed = 0;
if (existsSync(out)) {
  const report = JSON.parse(readFileSync(out, 'utf8'));
  passed = report.numPassedTests;
  failed = report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0);
} else {
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(res.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
