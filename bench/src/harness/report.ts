import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ScenarioResult, TimedScenarioResult } from './runner.js';
import type { Check, Table } from './scenario.js';

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

const ms = (v: number) => {
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toFixed(3);
};
const signedMs = (v: number) => `${v >= 0 ? '+' : '−'}${ms(Math.abs(v))}`;
const x = (v: number) => `${v.toFixed(2)}×`;
const pad = (s: string, n: number) => s.padEnd(n);
const load = (r: ScenarioResult) => `load average ${r.load.start.toFixed(2)} at start, ${r.load.end.toFixed(2)} at end`;

/** A table as aligned plain text. */
function consoleTable(t: Table): string[] {
  const cells = [t.columns, ...t.rows].map((row) => row.map((c) => c.replace(/\*\*|`/g, '')));
  const widths = t.columns.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return [`  ${t.title}`, ...cells.map((row) => `    ${row.map((c, i) => pad(c, widths[i]!)).join('  ')}`.trimEnd())];
}

/** A table as Markdown. */
function markdownTable(t: Table): string[] {
  const align = t.align ?? t.columns.map((_, i) => (i === 0 ? 'left' : 'right'));
  return [
    `**${t.title}**`,
    '',
    `| ${t.columns.join(' | ')} |`,
    `|${t.columns.map((_, i) => (align[i] === 'right' ? '---:' : '---')).join('|')}|`,
    ...t.rows.map((row) => `| ${row.join(' | ')} |`),
  ];
}

const checkLine = (c: Check) => `${c.met ? '✓ met' : '✗ MISSED'}: ${c.text} — ${c.value} (target ${c.limit})`;

/** A plain-text report for the terminal. */
export function formatConsole(r: ScenarioResult): string {
  const lines = [`${r.id} — ${r.title} (${load(r)})`];
  if (r.kind === 'timed') {
    const ratio = new Map(r.ratios.map((q) => [q.contender, q]));
    const unit = r.selfTimed ? 'ms (self-timed)' : 'median ms';
    lines.push(
      `  ${pad('contender', 18)} ${pad(unit, 10)} ${pad('p10–p90 ms', 16)} ${pad('CPU ms/op', 10)} × ${r.baseline}`,
    );
    for (const c of r.contenders) {
      const q = ratio.get(c.name);
      const vs = q
        ? `${x(q.ofMedians)} (paired ${x(q.paired.median)}, p25–p75 ${x(q.paired.p25)}–${x(q.paired.p75)}; CPU ${x(q.cpu)})` +
          (r.overhead ? `; ${signedMs(q.pairedOverMs.median)} ms paired, ${signedMs(q.cpuOverMs)} ms CPU` : '')
        : c.name === r.baseline
          ? '1.00× (baseline)'
          : '—';
      lines.push(
        `  ${pad(c.name, 18)} ${pad(ms(c.ms.median), 10)} ${pad(`${ms(c.ms.p10)}–${ms(c.ms.p90)}`, 16)} ${pad(ms(c.cpuMs.median), 10)} ${vs}`,
      );
    }
    for (const req of r.requirements) {
      lines.push(
        `  ${req.met ? '✓ met' : '✗ MISSED'}: ${req.text} (${req.contender} ${x(req.ratio)} ${req.baseline}, limit ${x(req.maxRatio)})`,
      );
    }
  }
  for (const t of r.tables) lines.push(...consoleTable(t));
  for (const c of r.checks) lines.push(`  ${checkLine(c)}`);
  if (r.kind === 'timed')
    lines.push(
      `  ${r.contenders[0]?.ms.n ?? 0} measured operations of the first contender, ${(r.durationMs / 1000).toFixed(1)} s`,
    );
  else lines.push(`  ${(r.durationMs / 1000).toFixed(1)} s`);
  return lines.join('\n');
}

/** The Markdown section of one scenario result, between its markers. */
export function formatSection(r: ScenarioResult, info: RunInfo): string {
  const c = r.config;
  const out = [
    `<!-- bench:${r.id} -->`,
    `## ${r.title}`,
    '',
    r.description,
    '',
    `- Date: ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC (${(r.durationMs / 1000).toFixed(0)} s)`,
    `- Command: \`${info.command}\` (runs \`${info.nodeCommand}\` after \`tsc -b\`), at commit ${info.revision}`,
    `- Machine: ${info.machine}; ${load(r)} of this scenario`,
  ];
  if (r.kind === 'timed') {
    const batches = [...new Set(r.contenders.map((k) => k.ms.n / c.rounds))];
    out.push(
      `- Sizes: ${c.warmup} warm-up operations per contender, then ${c.rounds} rounds × ${batches.length === 1 ? c.batch : `${batches.join(' or ')} (per contender)`} operations per contender, contenders alternating in a rotated order${c.quick ? ' — **quick run: not representative**' : ''}`,
    );
  } else if (c.quick) {
    out.push('- **Quick run: not representative**');
  }
  out.push(...r.notes.map((n) => `- ${n}`), '');
  if (r.kind === 'timed') out.push(...timedTable(r), '');
  for (const t of r.tables) out.push(...markdownTable(t), '');
  if (r.kind === 'timed') {
    for (const req of r.requirements) {
      out.push(
        `**Requirement** — ${req.text}: ${req.contender} takes **${x(req.ratio)}** the time of ${req.baseline} (limit ${x(req.maxRatio)}) — **${req.met ? 'met' : 'missed'}**.`,
        '',
      );
    }
  }
  if (r.checks.length) {
    out.push('**Targets**', '');
    for (const k of r.checks)
      out.push(`- ${k.met ? '✓ **met**' : '✗ **missed**'} — ${k.text}: **${k.value}** (target ${k.limit})`);
    out.push('');
  }
  while (out[out.length - 1] === '') out.pop();
  out.push(`<!-- /bench:${r.id} -->`);
  return out.join('\n');
}

function timedTable(r: TimedScenarioResult): string[] {
  const ratio = new Map(r.ratios.map((q) => [q.contender, q]));
  const b = r.baseline;
  const what = r.selfTimed ? 'time (ms)' : '(ms)';
  if (r.overhead) {
    const out = [
      `| contender | what | median ${what} | p10 | p90 | overhead above ${b} (medians, ms) | overhead, paired rounds (median, p25–p75, ms) | × ${b} (paired) | CPU per op (ms) | CPU overhead (ms) |`,
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const k of r.contenders) {
      const q = ratio.get(k.name);
      const base = k.name === b;
      out.push(
        `| ${k.name} | ${k.label} | ${ms(k.ms.median)} | ${ms(k.ms.p10)} | ${ms(k.ms.p90)} | ${q ? signedMs(q.overMs) : base ? '(floor)' : '—'} | ${q ? `${signedMs(q.pairedOverMs.median)} (${signedMs(q.pairedOverMs.p25)} – ${signedMs(q.pairedOverMs.p75)})` : '—'} | ${q ? x(q.paired.median) : base ? '1.00×' : '—'} | ${ms(k.cpuMs.median)} | ${q ? signedMs(q.cpuOverMs) : base ? '(floor)' : '—'} |`,
      );
    }
    return out;
  }
  const out = [
    `| contender | what | median ${what} | p10 | p90 | ops/s | × ${b} (medians) | × ${b} (paired rounds: median, p25–p75) | CPU per op (ms) | × ${b} (CPU) |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const k of r.contenders) {
    const q = ratio.get(k.name);
    out.push(
      `| ${k.name} | ${k.label} | ${ms(k.ms.median)} | ${ms(k.ms.p10)} | ${ms(k.ms.p90)} | ${Math.round(1000 / k.ms.median)} | ${q ? x(q.ofMedians) : k.name === b ? '1.00× (baseline)' : '—'} | ${q ? `${x(q.paired.median)} (${x(q.paired.p25)}–${x(q.paired.p75)})` : '—'} | ${ms(k.cpuMs.median)} | ${q ? x(q.cpu) : k.name === b ? '1.00×' : '—'} |`,
    );
  }
  return out;
}

const HEADER = `# Benchmarks

Written by \`bench/\` (the private workspace package \`@rxscope/bench\`); every section between
\`<!-- bench:ID -->\` markers is one scenario's latest full run, with its date, command, commit,
machine and load average. Do not edit those sections by hand: run the benchmark again.
Hand-written notes (targets, profiles, fixes, before/after) follow the sections.

\`\`\`sh
npm run bench                          # every scenario, rewrites their sections here (several minutes)
npm run bench -- --scenario agent-loop # one scenario
npm run bench -- --quick               # smoke run: tiny sizes, prints, writes nothing (CI runs it)
npm run bench -- --only openai --only rxscope+10mw --rounds 10   # some contenders, other sizes, writes nothing
\`\`\`

How the harness measures (\`bench/src/harness/runner.ts\`): a timed scenario is set up once, each
contender's result is checked once (a contender that does the wrong thing fails the run), every
contender is warmed up, then the contenders run **alternately in one process**: each round runs a
batch of every contender, in an order rotated from round to round, with a full GC before each
batch (\`--expose-gc\`; a major GC, not the memory-reducing \`gc()\`, which flushes compiled code
and made the next operations several times slower before 2026-11-30). The report gives the median and p10/p90 of every operation, ratios and
differences against the baseline (of the medians, and the median with p25–p75 of the per-round
values: paired measurements taken moments apart, which show whether a figure is stable or noise),
and the CPU time (user + system) the measuring process spent per operation, which other load on
the machine disturbs less than wall time. Test servers run in a child process, so their work is
not counted on the measured process. Custom scenarios (memory under concurrency, leaks) run each
contender in a fresh child process. Each section gives the load average at the start and the end
of its scenario: the machine is shared, so on a busy machine trust the paired and CPU figures more
than the medians.

Adding a scenario: write \`bench/src/scenarios/<id>.ts\` exporting a \`Scenario\` or a
\`CustomScenario\` (\`bench/src/harness/scenario.ts\`) and list it in
\`bench/src/scenarios/index.ts\`; its section appears here on the next run.
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
