// What each entry point of @rxscope/core pulls in: the root entry must load in a browser without
// LangChain, the OpenAI SDK or any Node built-in; the adapters and Node parts live behind their own
// subpaths, whose extra packages are optional peers.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as ts from 'typescript';

const root = resolve(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { default: string }>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

function sourceOf(subpath: string): string {
  const target = pkg.exports[subpath]!;
  const file = typeof target === 'string' ? target : target.default;
  return join(root, 'src', file.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
}

/** Every bare module specifier (package or `node:` built-in) reachable from `entry`, type imports included. */
function externalImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      if (fileName.startsWith('.')) {
        const base = resolve(dirname(file), fileName.replace(/\.js$/, ''));
        const next = [`${base}.ts`, join(base, 'index.ts')].find((f) => existsSync(f));
        if (!next) throw new Error(`${file} imports ${fileName}, which does not resolve`);
        visit(next);
      } else {
        const parts = fileName.split('/');
        external.add(fileName.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
      }
    }
  };
  visit(entry);
  return external;
}

const subpaths = Object.keys(pkg.exports).filter((s) => s !== './package.json');

describe('@rxscope/core entry points', () => {
  it('the root entry needs only rxjs and the hard dependencies: no Node built-in, no LangChain, no OpenAI SDK', () => {
    const allowed = new Set(['rxjs', ...Object.keys(pkg.dependencies)]);
    const imports = [...externalImports(sourceOf('.'))];
    expect(imports.filter((m) => !allowed.has(m))).toEqual([]);
    expect(imports.filter((m) => m.startsWith('node:') || m.startsWith('@langchain/') || m === 'openai')).toEqual([]);
  });

  it('the LangChain packages are optional peers, not dependencies', () => {
    for (const name of ['@langchain/core', '@langchain/openai']) {
      expect(pkg.dependencies[name]).toBeUndefined();
      expect(pkg.peerDependencies[name]).toBeDefined();
      expect(pkg.peerDependenciesMeta[name]?.optional).toBe(true);
    }
  });

  it('/openai and /langchain are where the adapters pull in LangChain', () => {
    expect([...externalImports(sourceOf('./openai'))]).toEqual(expect.arrayContaining(['@langchain/openai']));
    expect([...externalImports(sourceOf('./langchain'))]).toEqual(expect.arrayContaining(['@langchain/core']));
  });

  it.each(subpaths)('%s imports only declared dependencies, peers and Node built-ins', (subpath) => {
    const declared = new Set(['rxjs', ...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)]);
    const undeclared = [...externalImports(sourceOf(subpath))].filter(
      (m) => !m.startsWith('node:') && !declared.has(m),
    );
    expect(undeclared).toEqual([]);
  });

  it('/node names no optional peer, in code or types: without ioredis or bullmq it compiles with skipLibCheck: false', () => {
    // The Redis parts take a structural RedisClient (any ioredis Redis is one); BullMQ lives behind /node/bullmq.
    const imports = [...externalImports(sourceOf('./node'))];
    const optionalPeers = Object.keys(pkg.peerDependenciesMeta).filter((m) => pkg.peerDependenciesMeta[m]?.optional);
    expect(imports.filter((m) => optionalPeers.includes(m))).toEqual([]);
  });

  it('every entry point is browser-safe except the Node ones (no node: import outside /node and /testing/node)', () => {
    const browser = subpaths.filter((s) => !s.startsWith('./node') && s !== './testing/node');
    const offenders = browser.filter((s) => [...externalImports(sourceOf(s))].some((m) => m.startsWith('node:')));
    expect(offenders).toEqual([]);
  });
});
