import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ScenarioResult } from './runner.js';

/** Context of a run, printed with every section. */
export interface RunInfo {
  readonly machine: string;
  /** As a person types it (`npm run bench -- ...`). */
  readonly command: string;
  /** What it runs (`node --expose-gc bench/dist/main.js ...`). */
  readonly nodeCommand: string;
  /** Commit measured. */
  readonly revision: string;
}

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const x = (v: number) => `${v.toFixed(2)}×`;
const pad = (s: string, n: number) => s.padEnd(n);

/** A plain-text table for the terminal. */
export function formatConsole(r: ScenarioResult): string {
  const ratio = new Map(r.ratios.map((q) => [q.contender, q]));
  const lines = [
    `${r.id} — ${r.title}`,
    `  ${pad('contender', 14)} ${pad('median ms', 10)} ${pad('p10–p90 ms', 16)} ${pad('CPU ms/op', 10)} ${pad('ops/s', 7)} × ${r.baseline}`,
  ];
  for (const c of r.contenders) {
    const q = ratio.get(c.name);
    const vs = q
      ? `${x(q.ofMedians)} (paired rounds ${x(q.paired.median)}, p25–p75 ${x(q.paired.p25)}–${x(q.paired.p75)}; CPU ${x(q.cpu)})`
      : c.name === r.baseline
        ? '1.00× (baseline)'
        : '—';
    lines.push(
      `  ${pad(c.name, 14)} ${pad(ms(c.ms.median), 10)} ${pad(`${ms(c.ms.p10)}–${ms(c.ms.p90)}`, 16)} ${pad(ms(c.cpuMs.median), 10)} ${pad(String(Math.round(1000 / c.ms.median)), 7)} ${vs}`,
    );
  }
  for (const req of r.requirements) {
    lines.push(`  ${req.met ? '✓ met' : '✗ MISSED'}: ${req.text} (${req.contender} ${x(req.ratio)} ${req.baseline}, limit ${x(req.maxRatio)})`);
  }
  lines.push(`  ${r.contenders[0]?.ms.n ?? 0} measured operations per contender, ${(r.durationMs / 1000).toFixed(1)} s`);
  return lines.join('\n');
}

/** The Markdown section of one scenario result, between its markers. */
export function formatSection(r: ScenarioResult, info: RunInfo): string {
  const ratio = new Map(r.ratios.map((q) => [q.contender, q]));
  const c = r.config;
  const out = [
    `<!-- bench:${r.id} -->`,
    `## ${r.title}`,
    '',
    r.description,
    '',
    `- Date: ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC`,
    `- Command: \`${info.command}\` (runs \`${info.nodeCommand}\` after \`tsc -b\`), at commit ${info.revision}`,
    `- Machine: ${info.machine}`,
    `- Sizes: ${c.warmup} warm-up operations per contender, then ${c.rounds} rounds × ${c.batch} operations per contender (${c.rounds * c.batch} measured each), contenders alternating in a rotated order${c.quick ? ' — **quick run: not representative**' : ''}`,
    ...r.notes.map((n) => `- ${n}`),
    '',
    `| contender | what | median (ms) | p10 (ms) | p90 (ms) | ops/s | × ${r.baseline} (medians) | × ${r.baseline} (paired rounds: median, p25–p75) | CPU per op (ms) | × ${r.baseline} (CPU) |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const k of r.contenders) {
    const q = ratio.get(k.name);
    out.push(
      `| ${k.name} | ${k.label} | ${ms(k.ms.median)} | ${ms(k.ms.p10)} | ${ms(k.ms.p90)} | ${Math.round(1000 / k.ms.median)} | ${q ? x(q.ofMedians) : k.name === r.baseline ? '1.00× (baseline)' : '—'} | ${q ? `${x(q.paired.median)} (${x(q.paired.p25)}–${x(q.paired.p75)})` : '—'} | ${ms(k.cpuMs.median)} | ${q ? x(q.cpu) : k.name === r.baseline ? '1.00×' : '—'} |`,
    );
  }
  if (r.requirements.length) out.push('');
  for (const req of r.requirements) {
    out.push(
      `**Requirement** — ${req.text}: ${req.contender} takes **${x(req.ratio)}** the time of ${req.baseline} (limit ${x(req.maxRatio)}) — **${req.met ? 'met' : 'missed'}**.`,
    );
  }
  out.push(`<!-- /bench:${r.id} -->`);
  return out.join('\n');
}

const HEADER = `# Benchmarks

Written by \`bench/\` (the private workspace package \`@rxscope/bench\`); every section below is
one scenario's latest full run, with its date, command and machine. Do not edit the sections by
hand: run the benchmark again.

\`\`\`sh
npm run bench                          # every scenario, rewrites its section here (about a minute)
npm run bench -- --scenario model-overhead
npm run bench -- --quick               # smoke run: tiny sizes, prints, writes nothing
\`\`\`

How the harness measures (\`bench/src/harness/runner.ts\`): the scenario is set up once, each
contender's result is checked once (a contender that does the wrong thing fails the run), every
contender is warmed up, then the contenders run **alternately in one process**: each round runs a
batch of every contender, in an order rotated from round to round, with a full GC before each
batch (\`--expose-gc\`). The report gives the median and p10/p90 of every operation, the ratio of
medians against the baseline, and the median (p25–p75) of the per-round ratios — paired
measurements taken moments apart, which show whether a ratio is stable or noise — and the CPU
time (user + system) the measuring process spent per operation, which other load on the machine
disturbs less than wall time. Test servers run in a child process, so their work is not counted
on the measured process. The machine line gives the load average when the run started: on a busy
machine trust the paired and CPU ratios more than the medians.

Adding a scenario: write \`bench/src/scenarios/<id>.ts\` exporting a \`Scenario\`
(\`bench/src/harness/scenario.ts\`: contenders, baseline, requirements, setup/teardown) and list it
in \`bench/src/scenarios/index.ts\`; its section appears here on the next run.
`;

/** Replaces (or appends) the sections of these results in the Markdown file. */
export function writeSections(path: string, sections: ReadonlyMap<string, string>): void {
  let doc = existsSync(path) ? readFileSync(path, 'utf8') : HEADER;
  for (const [id, section] of sections) {
    const start = `<!-- bench:${id} -->`;
    const end = `<!-- /bench:${id} -->`;
    const i = doc.indexOf(start);
    const j = doc.indexOf(end);
    if (i >= 0 && j > i) doc = doc.slice(0, i) + section + doc.slice(j + end.length);
    else doc = `${doc.trimEnd()}\n\n${section}\n`;
  }
  writeFileSync(path, doc);
}
