import { readFile, stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lastValueFrom, tap } from 'rxjs';
import { compareRuns } from '../runner/compare.js';
import { formatComparison, formatSummary, parseEvalRun } from '../runner/format.js';
import { checkThresholds } from '../runner/gate.js';
import { type EvalRun, runEval } from '../runner/run-eval.js';
import { defineEvalSuite, type EvalSuite } from '../runner/suite.js';
import { EvalError } from '../eval-error.js';
import { parseArgs, USAGE } from './parse-args.js';

/** Where the CLI writes. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const bar = (done: number, total: number, width = 24) => {
  const full = total ? Math.round((done / total) * width) : width;
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${done}/${total}`;
};

/** A results file larger than this is refused before it is read. */
const MAX_RESULTS_BYTES = 256 * 1024 * 1024;

async function readRun(path: string): Promise<EvalRun> {
  let text: string;
  try {
    const { size } = await stat(path);
    if (size > MAX_RESULTS_BYTES) {
      throw new EvalError(
        'results_invalid',
        `${path}: ${size} bytes is more than a results file may have (${MAX_RESULTS_BYTES}).`,
      );
    }
    text = await readFile(path, 'utf8');
  } catch (e) {
    if (e instanceof EvalError) throw e;
    throw new EvalError('results_invalid', `${path}: cannot read (${e instanceof Error ? e.message : String(e)}).`);
  }
  try {
    return parseEvalRun(JSON.parse(text), path);
  } catch (e) {
    if (e instanceof EvalError) throw e;
    throw new EvalError('results_invalid', `${path}: not JSON (${e instanceof Error ? e.message : String(e)}).`);
  }
}

async function loadSuite(path: string): Promise<EvalSuite> {
  const mod = (await import(pathToFileURL(resolve(path)).href)) as { default?: unknown };
  if (!mod.default) throw new EvalError('suite_invalid', `${path}: export default defineEvalSuite({...}) is missing.`);
  return defineEvalSuite(mod.default as EvalSuite);
}

/**
 * The `rxscope-eval` command: runs a suite (a progress bar on stderr, the summary table on
 * stdout, the results as JSON with `--out`, a comparison with `--baseline`, the thresholds gate),
 * or compares two results files. Resolves with the exit code: 0, 1 when a threshold is missed,
 * 2 on a usage error or a file that cannot be used.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(process.argv.slice(2), { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo, tty = false): Promise<number> {
  const command = parseArgs(argv);
  if (typeof command === 'string') {
    io.stderr(`rxscope-eval: ${command}\n\n${USAGE}\n`);
    return 2;
  }
  try {
    if (command.kind === 'help') {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    if (command.kind === 'compare') {
      io.stdout(`${formatComparison(compareRuns(await readRun(command.a), await readRun(command.b)))}\n`);
      return 0;
    }
    const suite = await loadSuite(command.suite);
    const baseline = command.baseline ? await readRun(command.baseline) : undefined;
    const { thresholds: suiteThresholds, ...options } = suite;
    let run: EvalRun | undefined;
    await lastValueFrom(
      runEval({
        ...options,
        ...(command.concurrency ? { concurrency: command.concurrency } : {}),
        ...(command.repeat ? { repeat: command.repeat } : {}),
      }).pipe(
        tap((e) => {
          if (e.type === 'case') {
            // On a terminal the bar redraws in place; in a log, one line per case.
            io.stderr(`${tty ? '\r' : ''}${bar(e.done, e.total)} ${e.result.caseId}${tty ? '' : '\n'}`);
          } else run = e.run;
        }),
      ),
      { defaultValue: undefined },
    );
    if (tty) io.stderr('\n');
    io.stdout(`${formatSummary(run!)}\n`);
    if (command.out) {
      await writeFile(command.out, `${JSON.stringify(run, null, 2)}\n`);
      io.stdout(`results written to ${command.out}\n`);
    }
    if (baseline) io.stdout(`\n${formatComparison(compareRuns(baseline, run!))}\n`);
    const misses = checkThresholds(run!, { ...suiteThresholds, ...command.thresholds });
    if (misses.length) {
      io.stderr(`thresholds missed:\n${misses.map((m) => `  ${m}`).join('\n')}\n`);
      return 1;
    }
    return 0;
  } catch (e) {
    io.stderr(`rxscope-eval: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
}
