import type { Thresholds } from '../runner/gate.js';

/** What the command line asked for. */
export type CliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'compare'; readonly a: string; readonly b: string }
  | {
      readonly kind: 'run';
      readonly suite: string;
      readonly out?: string;
      readonly baseline?: string;
      readonly concurrency?: number;
      readonly repeat?: number;
      readonly thresholds: Thresholds;
    };

export const USAGE = `Usage:
  rxscope-eval <suite.mjs> [--out results.json] [--baseline earlier.json] [--concurrency N] [--repeat N]
               [--threshold <scorer>:mean=<0..1>] [--threshold <scorer>:passRate=<0..1>]
  rxscope-eval compare <a.json> <b.json>

A suite file exports default defineEvalSuite({dataset, agent, scorers, thresholds?}).
Exits 1 when a threshold is missed, 2 on a usage error.`;

/** The command of `argv`, or the usage error to print. */
export function parseArgs(argv: readonly string[]): CliCommand | string {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  if (argv[0] === 'compare') {
    if (argv.length !== 3) return 'compare takes two results files';
    return { kind: 'compare', a: argv[1]!, b: argv[2]! };
  }
  let suite: string | undefined;
  const flags: Record<string, string> = {};
  const thresholds: Record<string, { mean?: number; passRate?: number }> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      if (suite) return `one suite file at a time (got ${suite} and ${arg})`;
      suite = arg;
      continue;
    }
    const value = argv[++i];
    if (value === undefined) return `${arg} needs a value`;
    if (arg === '--threshold') {
      const m = /^(.+):(mean|passRate)=(0(?:\.\d+)?|1(?:\.0+)?)$/.exec(value);
      if (!m) return `--threshold ${value}: write <scorer>:mean=<0..1> or <scorer>:passRate=<0..1>`;
      thresholds[m[1]!] = { ...thresholds[m[1]!], [m[2]!]: Number(m[3]) };
    } else if (['--out', '--baseline', '--concurrency', '--repeat'].includes(arg)) flags[arg] = value;
    else return `unknown flag ${arg}`;
  }
  if (!suite) return 'give a suite file';
  const int = (flag: string) => {
    const v = flags[flag];
    return v === undefined ? undefined : /^\d{1,4}$/.test(v) && Number(v) >= 1 ? Number(v) : NaN;
  };
  const concurrency = int('--concurrency');
  const repeat = int('--repeat');
  if (Number.isNaN(concurrency) || Number.isNaN(repeat)) return '--concurrency and --repeat take a whole number from 1';
  return {
    kind: 'run',
    suite,
    ...(flags['--out'] ? { out: flags['--out'] } : {}),
    ...(flags['--baseline'] ? { baseline: flags['--baseline'] } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(repeat !== undefined ? { repeat } : {}),
    thresholds,
  };
}
