// API reports (api-extractor) for every entry point of every published package, read from the
// packages' `exports` maps: `api/<package>[-<subpath>].api.md` lists the public surface, so a
// change to it shows up in review. `npm run api:check` fails when a report is out of date;
// `npm run api:update` rewrites them. Both need the declaration files, so they build first.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { Extractor, ExtractorConfig } = require('@microsoft/api-extractor');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const update = process.argv.includes('--update');
const reportFolder = join(root, 'api');
mkdirSync(reportFolder, { recursive: true });

/** Every (package, subpath, declaration file) of the packages in packages/. */
function entryPoints() {
  const out = [];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const manifest = join(root, 'packages', dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    if (pkg.private) continue;
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const types = typeof target === 'string' ? undefined : target.types;
      if (!types) continue; // ./package.json
      const suffix = subpath === '.' ? '' : `-${subpath.slice(2).replaceAll('/', '-')}`;
      out.push({
        dir,
        name: pkg.name,
        subpath,
        types: join(root, 'packages', dir, types),
        report: `${dir}${suffix}.api.md`,
      });
    }
  }
  return out;
}

let failed = 0;
for (const entry of entryPoints()) {
  const packageFolder = join(root, 'packages', entry.dir);
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: packageFolder,
      mainEntryPointFilePath: entry.types,
      // Node's types are loaded for every entry (the Node-only ones refer to Buffer, http...).
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            lib: ['ES2022', 'DOM'],
            types: ['node'],
            strict: true,
            skipLibCheck: true,
          },
          files: [entry.types],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.report,
        reportFolder,
        reportTempFolder: join(root, 'node_modules', '.cache', 'api-extractor'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning', addToApiReportFile: true },
          // Release tags (@public, @beta) are not used: the entry point is the contract.
          'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
          // Members of a documented class or interface (hooks, fields) need no JSDoc of their own, and
          // these notes carry source line numbers: any edit above them made the report stale.
          'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    configObjectFullPath: join(packageFolder, 'api-extractor.json'), // virtual: paths resolve from the package
    packageJsonFullPath: join(packageFolder, 'package.json'),
  });
  const result = Extractor.invoke(config, {
    localBuild: update,
    showVerboseMessages: false,
    messageCallback: (m) => {
      if (m.logLevel === 'warning' || m.logLevel === 'error') m.handled = true; // recorded in the report instead
    },
  });
  const label = `${entry.name}${entry.subpath === '.' ? '' : entry.subpath.slice(1)}`;
  if (!result.succeeded || (!update && result.apiReportChanged)) {
    failed++;
    console.error(
      `${label}: the API report api/${entry.report} is out of date (run npm run api:update and commit it).`,
    );
  } else {
    console.log(`${label}: ${update && result.apiReportChanged ? 'report updated' : 'report up to date'}`);
  }
}
process.exit(failed ? 1 : 0);
