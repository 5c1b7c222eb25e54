// What each entry point of @rxscope/harness pulls in, type imports included: the main entry must
// not name ioredis (a project without it and with skipLibCheck: false would get TS2307), nor
// @rxscope/core/node (the Node-only parts of core), nor bullmq; the Redis parts live behind
// /redis, the BullMQ ones behind /bullmq.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as ts from 'typescript';

const root = resolve(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { default: string }>;
  files: string[];
};

function sourceOf(subpath: string): string {
  const target = pkg.exports[subpath]!;
  const file = typeof target === 'string' ? target : target.default;
  return join(root, 'src', file.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
}

/** Every bare module specifier reachable from `entry` (subpaths kept), type imports included. */
function externalImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) {
        external.add(fileName);
        continue;
      }
      const base = resolve(dirname(file), fileName.replace(/\.js$/, ''));
      const next = [`${base}.ts`, join(base, 'index.ts')].find((f) => existsSync(f));
      if (!next) throw new Error(`${file} imports ${fileName}, which does not resolve`);
      visit(next);
    }
  };
  visit(entry);
  return external;
}

describe('@rxscope/harness entry points', () => {
  it('the main entry never names ioredis, bullmq or @rxscope/core/node, in code or types', () => {
    const imports = [...externalImports(sourceOf('.'))];
    expect(imports.filter((m) => m === 'ioredis' || m === 'bullmq' || m.startsWith('@rxscope/core/node'))).toEqual([]);
  });

  it('@rxscope/harness/bullmq holds the BullMQ parts, and /redis does not load bullmq', () => {
    expect(externalImports(sourceOf('./bullmq'))).toContain('bullmq');
    expect(externalImports(sourceOf('./redis'))).not.toContain('bullmq');
  });

  it('@rxscope/harness/redis holds the Redis parts', () => {
    expect(externalImports(sourceOf('./redis'))).toContain('ioredis');
  });

  it('the packed files leave out the build info and the specs', () => {
    expect(pkg.files).toEqual(
      expect.arrayContaining(['dist', '!dist/.tsbuildinfo', '!src/**/*.spec.ts', '!src/**/__tests__/**']),
    );
  });
});
