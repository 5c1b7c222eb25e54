// The Node support policy (docs/getting-started.md, "Node versions"): every package.json declares
// the same `engines.node`, the one the suite runs on, and the docs say the same range. A new
// package without it, or a range the suite's own Node does not satisfy, fails here.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const RANGE = '>=20.19.0';

function manifests(): string[] {
  const out = ['package.json', 'bench/package.json'];
  for (const dir of ['packages', 'examples']) {
    for (const name of readdirSync(join(ROOT, dir))) {
      const file = join(dir, name, 'package.json');
      if (existsSync(join(ROOT, file))) out.push(file);
    }
  }
  return out;
}

describe('the Node versions rxscope supports', () => {
  it(`every package.json declares engines.node "${RANGE}"`, () => {
    const ranges = Object.fromEntries(
      manifests().map((file) => {
        const pkg = JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as { engines?: { node?: string } };
        return [file, pkg.engines?.node];
      }),
    );
    expect(Object.keys(ranges).length).toBeGreaterThanOrEqual(5);
    for (const [file, range] of Object.entries(ranges)) expect([file, range]).toEqual([file, RANGE]);
  });

  it('the Node running the suite is in that range', () => {
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    expect(major > 20 || (major === 20 && minor >= 19)).toBe(true);
  });

  it('the guide and the README state the policy', () => {
    const guide = readFileSync(join(ROOT, 'docs', 'getting-started.md'), 'utf8');
    expect(guide).toContain('## Node versions');
    expect(guide).toContain(`"node": "${RANGE}"`);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('docs/getting-started.md#node-versions');
  });
});
