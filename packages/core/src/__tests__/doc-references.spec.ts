/**
 * Docs and JSDoc point readers only at documents that ship with the repository: a reference to a
 * page that does not exist (or to a design document users never get) leaves a reader stranded.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');

function files(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, keep, out);
    else if (keep(path)) out.push(path);
  }
  return out;
}

const sources = [
  ...files(join(root, 'packages'), (p) => p.endsWith('.ts') && p.includes('/src/') && !p.endsWith('.spec.ts')),
  ...files(join(root, 'examples'), (p) => /\.(ts|md)$/.test(p)),
];
const docs = [join(root, 'README.md'), ...files(join(root, 'docs'), (p) => p.endsWith('.md'))];

describe('references in docs and JSDoc', () => {
  it('name no design document that does not ship', () => {
    const offenders = [...sources, ...docs].filter((p) => /\bDESIGN\b(\.md| §)/.test(readFileSync(p, 'utf8')));
    expect(offenders.map((p) => relative(root, p))).toEqual([]);
  });

  it('point at docs/ pages that exist', () => {
    const missing: string[] = [];
    for (const p of [...sources, ...docs]) {
      for (const m of readFileSync(p, 'utf8').matchAll(/\bdocs\/([\w./-]+\.md)/g)) {
        if (!existsSync(join(root, 'docs', m[1]!))) missing.push(`${relative(root, p)} -> docs/${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('link from one docs page to another that exists', () => {
    const missing: string[] = [];
    for (const p of docs) {
      for (const m of readFileSync(p, 'utf8').matchAll(/\]\(([^)#\s]+\.md)(#[^)]*)?\)/g)) {
        if (/^https?:/.test(m[1]!)) continue;
        if (!existsSync(resolve(dirname(p), m[1]!))) missing.push(`${relative(root, p)} -> ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
