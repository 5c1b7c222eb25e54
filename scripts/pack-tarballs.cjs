// Packs every public package of packages/ into installable tarballs, as a release would: builds
// them first (`tsc -b`, incremental; ng-packagr for an Angular package, one with ng-package.json),
// then `pnpm pack`, which rewrites the `catalog:` and
// `workspace:` ranges of package.json into real version ranges (npm cannot install those
// protocols). Checks each tarball before handing it out: no protocol range left, and every file
// its `exports` map names is inside. Use it to install rxscope before it is published:
//
//   node scripts/pack-tarballs.cjs ~/rxscope-tarballs
//   cd my-app && npm install ~/rxscope-tarballs/rxscope-core-0.1.0.tgz rxjs zod
//
// Plain CommonJS (run with only Node); the consumer test (consumer-install.spec.ts) uses it too.
'use strict';

const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const ROOT = join(__dirname, '..');
const PNPM = ['-y', 'pnpm@12.4.2'];

/** @returns {{ dir: string; name: string }[]} the packages of packages/ that are not private */
function publicPackages() {
  return readdirSync(join(ROOT, 'packages'))
    .filter((d) => existsSync(join(ROOT, 'packages', d, 'package.json')))
    .map((d) => ({
      dir: join(ROOT, 'packages', d),
      manifest: JSON.parse(readFileSync(join(ROOT, 'packages', d, 'package.json'), 'utf8')),
    }))
    .filter((p) => !p.manifest.private)
    .map((p) => ({ dir: p.dir, name: p.manifest.name }));
}

/**
 * What is wrong with a packed manifest and file list (empty when it is installable).
 * @param {Record<string, any>} manifest package.json as packed
 * @param {readonly string[]} files paths inside the tarball, relative to `package/`
 * @returns {string[]}
 */
function tarballProblems(manifest, files) {
  const problems = [];
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (/^(catalog|workspace|link|file):/.test(String(range))) problems.push(`${field}.${dep} is "${range}"`);
    }
  }
  const have = new Set(files);
  const targets = [];
  const collect = (t) =>
    typeof t === 'string' ? targets.push(t) : t && typeof t === 'object' && Object.values(t).forEach(collect);
  collect(manifest.exports ?? {});
  for (const t of targets)
    if (!have.has(t.replace(/^\.\//, '')))
      problems.push(`exports names ${t}, which is not in the tarball (build first)`);
  for (const f of files)
    if (/(^|\/)(__tests__|__type-tests__)\/|\.spec\.ts$/.test(f)) problems.push(`ships a test file: ${f}`);
  return problems;
}

/**
 * Builds and packs every public package into `dest`; throws naming every problem found.
 * @param {string} dest folder for the tarballs (created when missing)
 * @returns {{ name: string; version: string; tarball: string }[]}
 */
function packTarballs(dest) {
  const out = resolve(dest);
  mkdirSync(out, { recursive: true });
  const packages = publicPackages();
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', ...packages.map((p) => p.dir)],
    { cwd: ROOT, stdio: 'pipe' },
  );
  for (const p of packages.filter((p) => existsSync(join(p.dir, 'ng-package.json'))))
    execFileSync('npx', [...PNPM, '--filter', p.name, 'run', 'build'], { cwd: ROOT, stdio: 'pipe' });
  const filters = packages.flatMap((p) => ['--filter', p.name]);
  const json = execFileSync('npx', [...PNPM, '-r', ...filters, 'pack', '--pack-destination', out, '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  /** @type {{ name: string; version: string; filename: string }[]} */
  const packed = [JSON.parse(json)].flat();
  const problems = [];
  for (const p of packed) {
    const scratch = mkdtempSync(join(tmpdir(), 'rxscope-tarball-'));
    try {
      execFileSync('tar', ['-xzf', p.filename, '-C', scratch]);
      const files = execFileSync('tar', ['-tzf', p.filename], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map((f) => f.replace(/^package\//, ''));
      const manifest = JSON.parse(readFileSync(join(scratch, 'package', 'package.json'), 'utf8'));
      problems.push(...tarballProblems(manifest, files).map((m) => `${p.name}: ${m}`));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  if (problems.length)
    throw new Error(`The packed tarballs are not installable:\n${problems.map((m) => `  - ${m}`).join('\n')}`);
  return packed.map((p) => ({ name: p.name, version: p.version, tarball: p.filename }));
}

module.exports = { packTarballs, publicPackages, tarballProblems };

if (require.main === module) {
  const dest = process.argv[2] ?? join(ROOT, 'tarballs');
  for (const p of packTarballs(dest)) console.log(p.tarball);
}
