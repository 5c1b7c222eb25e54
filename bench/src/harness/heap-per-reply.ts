/**
 * What N in-flight replies hold, from two heap snapshots of the concurrency-at-scale scenario
 * (`BENCH_SCALE_SNAPSHOT_DIR=/tmp/snap … --scenario concurrency-scale --only rxscope` writes
 * `rxscope-before.heapsnapshot` and `rxscope.heapsnapshot`): the self sizes of every object in
 * the second minus the first, divided by N, grouped by constructor.
 *
 *   node bench/dist/harness/heap-per-reply.js /tmp/snap/rxscope 1000 [rows]
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  readonly snapshot: { readonly meta: { readonly node_fields: string[]; readonly node_types: [string[]] } };
  readonly nodes: number[];
  readonly strings: string[];
}

/** Objects of a snapshot grouped as `type:name` (strings, numbers and code each as one group): count and bytes. */
function groups(file: string): Map<string, { count: number; bytes: number }> {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const out = new Map<string, { count: number; bytes: number }>();
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const t = types[s.nodes[i + type]!]!;
    const n = s.strings[s.nodes[i + name]!]!;
    const key = t.includes('string') || t === 'number' || t === 'code' ? `${t}s` : `${t}:${n.slice(0, 60)}`;
    const g = out.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += s.nodes[i + size]!;
    out.set(key, g);
  }
  return out;
}

function main(prefix: string, replies: number, rows: number): void {
  const before = groups(`${prefix}-before.heapsnapshot`);
  const during = groups(`${prefix}.heapsnapshot`);
  const diff = [...new Set([...before.keys(), ...during.keys()])].map((key) => {
    const b = before.get(key) ?? { count: 0, bytes: 0 };
    const d = during.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: (d.count - b.count) / replies, bytes: (d.bytes - b.bytes) / replies };
  });
  diff.sort((a, b) => b.bytes - a.bytes);
  const total = diff.reduce((sum, g) => sum + g.bytes, 0);
  process.stdout.write(`${prefix}: ${(total / 1024).toFixed(1)} KB of live objects per reply (N = ${replies})\n`);
  process.stdout.write('   bytes  objects  type:name\n');
  for (const g of diff.slice(0, rows))
    process.stdout.write(`${g.bytes.toFixed(0).padStart(8)} ${g.count.toFixed(2).padStart(8)}  ${g.key}\n`);
}

const [prefix, replies, rows] = process.argv.slice(2);
if (!prefix || !Number(replies)) {
  process.stderr.write('usage: node bench/dist/harness/heap-per-reply.js <snapshot prefix> <N> [rows]\n');
  process.exitCode = 2;
} else {
  main(prefix, Number(replies), Number(rows ?? 40));
}
