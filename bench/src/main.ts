/**
 * rxscope benchmarks.
 *
 *   npm run bench                         every scenario; rewrites their sections of docs/BENCHMARKS.md
 *   npm run bench -- --quick              smoke run: tiny sizes, writes nothing (add --write to force)
 *   npm run bench -- --scenario model-overhead --only rxscope    one contender (e.g. under --cpu-prof)
 *   npm run bench -- --json               results as JSON on stdout
 *   npm run bench -- --strict             exit 1 when a target is missed
 *   npm run bench -- --rounds 10 --warmup 20 --batch 5     other sizes (writes nothing unless --write)
 *   npm run bench -- --scenario agent-loop --compare HEAD~1   this tree's rxscope beside another commit's, in one run
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describeMachine } from './harness/machine.js';
import { formatConsole, formatSection, writeSections } from './harness/report.js';
import { runAny, runConfig, type ScenarioResult } from './harness/runner.js';
import { prepareComparedBuild } from './harness/compare-build.js';
import { setComparedBuild } from './scenarios/rxscope-build.js';
import { scenarios } from './scenarios/index.js';

const DOC = fileURLToPath(new URL('../../docs/BENCHMARKS.md', import.meta.url));

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      scenario: { type: 'string', multiple: true },
      only: { type: 'string', multiple: true },
      write: { type: 'boolean' },
      'no-write': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      batch: { type: 'string' },
      compare: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      `usage: npm run bench -- [--quick] [--scenario ID]... [--only CONTENDER]... [--rounds N] [--warmup N] [--batch N] [--compare COMMIT] [--write|--no-write] [--json] [--strict]\nscenarios: ${scenarios.map((s) => s.id).join(', ')}\n`,
    );
    return 0;
  }
  const selected = values.scenario?.length ? scenarios.filter((s) => values.scenario!.includes(s.id)) : scenarios;
  const unknown = (values.scenario ?? []).filter((id) => !scenarios.some((s) => s.id === id));
  if (unknown.length)
    throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${scenarios.map((s) => s.id).join(', ')}`);
  // A quick or partial run is not a result worth keeping.
  const resized = values.rounds !== undefined || values.warmup !== undefined || values.batch !== undefined;
  const write =
    !values['no-write'] &&
    (values.write ?? (!values.quick && !values.only?.length && !resized && values.compare === undefined));
  const log = (s: string) => (values.json ? process.stderr : process.stdout).write(s);
  const tty = process.stderr.isTTY === true;
  if (!(globalThis as { gc?: unknown }).gc) log('note: run with node --expose-gc for a GC between batches\n');

  if (values.compare !== undefined) setComparedBuild(prepareComparedBuild(values.compare, (l) => log(`${l}\n`)));
  const machine = describeMachine();
  const revision = sourceRevision();
  const command = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
  const nodeCommand = ['node', ...process.execArgv, 'bench/dist/main.js', ...argv].join(' ');
  log(`${machine}\n\n`);

  const results: ScenarioResult[] = [];
  for (const scenario of selected) {
    const config = {
      ...runConfig(scenario, values.quick),
      ...(values.rounds ? { rounds: Number(values.rounds) } : {}),
      ...(values.warmup ? { warmup: Number(values.warmup) } : {}),
      ...(values.batch ? { batch: Number(values.batch) } : {}),
    };
    const result = await runAny(
      scenario,
      config,
      (done, total) => {
        if (tty) process.stderr.write(`\r  ${scenario.id}: round ${done}/${total}${done === total ? '\n' : ''}`);
      },
      (line) => process.stderr.write(`  ${scenario.id}: ${line}\n`),
      values.only,
    );
    results.push(result);
    log(`${formatConsole(result)}\n\n`);
  }

  if (write) {
    writeSections(
      DOC,
      new Map(results.map((r) => [r.id, formatSection(r, { machine, command, nodeCommand, revision })])),
    );
    log(`wrote ${DOC}\n`);
  }
  if (values.json)
    process.stdout.write(`${JSON.stringify({ machine, command: nodeCommand, revision, results }, null, 2)}\n`);
  const missed = [
    ...results.flatMap((r) => (r.kind === 'timed' ? r.requirements : [])),
    ...results.flatMap((r) => r.checks),
  ].filter((r) => !r.met);
  return values.strict && missed.length ? 1 : 0;
}

/** The commit measured, and whether packages/ or bench/ had uncommitted changes. */
function sourceRevision(): string {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--', 'packages', 'bench') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes in packages/ or bench/' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
