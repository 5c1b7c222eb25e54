#!/usr/bin/env node
// Docs code that is also run by the tests. A code block in docs/*.md preceded by
//   <!-- snippet: packages/core/src/__tests__/docs/silence-guard.ts -->
// must be that file, with its imports of a package's own sources written as the package name
// ('../../index.js' in packages/core/src/... → '@rxscope/core'), so the page shows what a user
// writes and the tests run exactly that code. `node scripts/doc-snippets.cjs --write` rewrites the
// blocks from the files; without it the script reports every block that drifted.
'use strict';
const { existsSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, join, resolve } = require('node:path');

const ROOT = resolve(__dirname, '..');
// The block's info string may name the file after the language (```ts src/agent.ts): it is kept.
// The block may be empty (a new marker before an empty block: --write fills it).
const MARKER = /<!-- snippet: (\S+) -->\n+```(\w+[^\n]*)\n(?:([\s\S]*?)\n)??```/g;

/** Source file of each entry point of each workspace package → the specifier a user imports. */
function entrySpecifiers(root = ROOT) {
  const out = new Map();
  const packages = join(root, 'packages');
  for (const dir of readdirSync(packages)) {
    const manifest = join(packages, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const file = typeof target === 'string' ? target : target.default;
      if (!file || !file.startsWith('./dist/') || !file.endsWith('.js')) continue;
      const source = join(packages, dir, 'src', file.slice('./dist/'.length, -'.js'.length) + '.ts');
      out.set(source, pkg.name + subpath.slice(1));
    }
  }
  return out;
}

/** The file as the docs show it: relative imports of a package entry become the package's name. */
function asDocs(file, root = ROOT) {
  const entries = entrySpecifiers(root);
  const text = readFileSync(join(root, file), 'utf8').replace(/\n+$/, '');
  return text.replace(/from '(\.{1,2}\/[^']+)\.js'/g, (whole, rel) => {
    const target = resolve(dirname(join(root, file)), rel + '.ts');
    const name = entries.get(target);
    return name ? `from '${name}'` : whole;
  });
}

/** Every snippet of every page: where it is, which file, and whether the block matches it. */
function check(root = ROOT) {
  const results = [];
  const docs = join(root, 'docs');
  for (const page of readdirSync(docs)
    .filter((f) => f.endsWith('.md'))
    .sort()) {
    const text = readFileSync(join(docs, page), 'utf8');
    for (const m of text.matchAll(MARKER)) {
      const [, file, , body = ''] = m;
      if (!existsSync(join(root, file))) {
        results.push({ page, file, ok: false, why: 'the file does not exist' });
        continue;
      }
      const expected = asDocs(file, root);
      results.push({
        page,
        file,
        ok: body === expected,
        why: body === expected ? '' : 'the block differs from the file',
      });
    }
  }
  return results;
}

/** Rewrites every snippet block from its file; returns the pages changed. */
function write(root = ROOT) {
  const changed = [];
  const docs = join(root, 'docs');
  for (const page of readdirSync(docs).filter((f) => f.endsWith('.md'))) {
    const path = join(docs, page);
    const text = readFileSync(path, 'utf8');
    const next = text.replace(
      MARKER,
      (whole, file, info) => `<!-- snippet: ${file} -->\n\`\`\`${info}\n${asDocs(file, root)}\n\`\`\``,
    );
    if (next !== text) {
      writeFileSync(path, next);
      changed.push(page);
    }
  }
  return changed;
}

if (require.main === module) {
  if (process.argv.includes('--write')) {
    const changed = write();
    console.log(changed.length ? `updated: ${changed.join(', ')}` : 'every snippet is up to date');
  } else {
    const bad = check().filter((r) => !r.ok);
    for (const r of bad)
      console.error(`docs/${r.page}: snippet ${r.file}: ${r.why} (run: node scripts/doc-snippets.cjs --write)`);
    process.exitCode = bad.length ? 1 : 0;
  }
}

module.exports = { asDocs, check, write };
