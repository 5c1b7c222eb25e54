#!/usr/bin/env node
// The API reference site: `npm run docs:api` writes HTML generated from the JSDoc into
// api-reference/ (git-ignored; open api-reference/index.html). TypeDoc's "packages" strategy
// converts every public package of packages/ and takes its entry points from the package's
// `exports` map (dist/*.js mapped back to src/*.ts through its tsconfig.json), so a new entry point
// is documented without touching this script. Each entry is named as a user imports it
// (`@rxscope/core/node`), and the run fails when an entry of an exports map is missing from the
// site. It takes a minute or two (TypeDoc type-checks each package), so it is run by hand, not by
// `npm test`. Options: typedoc.json. @rxscope/core/internal is left out (not public).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Application, Converter, TSConfigReader, TypeDocReader } from 'typedoc';

const ROOT = resolve(import.meta.dirname, '..');
// Entry points that exist for rxscope's own packages and are not public (docs/public-api.md): left out.
const NOT_PUBLIC = new Set(['@rxscope/core/internal']);

/** Package name → the specifiers of its exports map (`@rxscope/core`, `@rxscope/core/node`, ...). */
function publicEntryPoints() {
  const out = new Map();
  for (const dir of readdirSync(join(ROOT, 'packages')).sort()) {
    const manifest = join(ROOT, 'packages', dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    if (pkg.private) continue;
    const subpaths = Object.keys(pkg.exports ?? { '.': pkg.main }).filter((s) => s !== './package.json');
    out.set(pkg.name, subpaths.map((s) => pkg.name + s.slice(1)).sort());
  }
  return out;
}

const expected = publicEntryPoints();
const app = await Application.bootstrapWithPlugins({}, [new TypeDocReader(), new TSConfigReader()]);
// TypeDoc names a package's modules by export subpath ('' for '.', 'node/ag-ui'): name them as imported.
app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
  const name = context.project.packageName ?? context.project.name;
  for (const module of context.project.children ?? []) module.name = module.name ? `${name}/${module.name}` : name;
});
const project = await app.convert();
if (!project) {
  console.error('docs:api: TypeDoc could not convert the packages (see the errors above).');
  process.exit(1);
}

const documented = new Map((project.children ?? []).map((p) => [p.name, p.children ?? []]));
const missing = [];
console.log('\nEntry points documented (exported symbols):');
for (const [pkg, entries] of expected) {
  const modules = documented.get(pkg) ?? [];
  for (const entry of entries) {
    const module = modules.find((m) => m.name === entry);
    if (module && NOT_PUBLIC.has(entry)) {
      project.removeReflection(module);
      console.log(`  - ${entry} (not public: left out)`);
      continue;
    }
    if (!module) missing.push(entry);
    console.log(`  ${module ? '✓' : '✗'} ${entry}${module ? ` (${module.children?.length ?? 0})` : ' — MISSING'}`);
  }
}
if (missing.length) {
  console.error(
    `docs:api: ${missing.length} entry point(s) of the exports maps are not in the site: ${missing.join(', ')}`,
  );
  process.exit(1);
}
const out = app.options.getValue('out');
await app.generateDocs(project, out);
if (app.logger.hasErrors()) process.exit(1);
console.log(`\nAPI reference written to ${out}/index.html`);
