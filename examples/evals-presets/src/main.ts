/**
 * Compares the harness presets on a dozen small repository tasks: each preset's agent answers
 * every task in a fresh copy of fixture-repo, its model replayed from the committed cassettes
 * (offline, deterministic; the tools run for real), scored on its trajectory and its answer.
 * Prints each run's summary and the comparisons with coding().
 *
 *   node examples/evals-presets/dist/main.js [--out <folder>]   (--out writes each run's JSON)
 *   OPENAI_API_KEY=sk-... node examples/evals-presets/dist/main.js   records new cassettes with that
 *                                                                model first, then compares
 *   node examples/evals-presets/dist/record.js                   re-records with the scripted model
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastValueFrom } from 'rxjs';
import {
  compareRuns,
  type EvalRun,
  formatComparison,
  formatSummary,
  includesAnswer,
  replyGrammar,
  runEval,
  trajectory,
} from '@rxscope/evals';
import { loadCassetteCases } from '@rxscope/evals/node';
import { ReplayChatModel } from '@rxscope/middleware-builtin/recording';
import { normalizeRequest } from './normalize.js';
import { recordCassettes, recordingModel } from './recording.js';
import { CASSETTES, freshWorkspace, PRESETS, type PresetName, presetAgent } from './presets.js';
import { taskCases } from './tasks.js';

async function evaluate(preset: PresetName): Promise<EvalRun> {
  const dir = join(CASSETTES, preset);
  const recorded = await loadCassetteCases(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => join(dir, f)),
  );
  // The expectations are the tasks' (what a good reply does), not what was recorded.
  const cases = taskCases().map((c) => {
    const cassette = recorded.find((r) => r.id === c.id)?.cassette;
    if (!cassette) throw new Error(`no cassette for ${preset}/${c.id}: run record.js`);
    return { ...c, cassette };
  });
  const workspaces: string[] = [];
  try {
    const last = await lastValueFrom(
      runEval({
        name: preset,
        dataset: cases,
        agent: (c) => {
          const workspace = freshWorkspace();
          workspaces.push(workspace);
          return presetAgent(preset, new ReplayChatModel(c.cassette!, { normalize: normalizeRequest }), workspace);
        },
        scorers: [
          trajectory({ mode: 'in-order' }),
          includesAnswer({ ignoreCase: true }),
          replyGrammar({ finishReason: 'completed' }),
        ],
        concurrency: 4,
      }),
      { defaultValue: undefined },
    );
    if (last?.type !== 'done') throw new Error('the run did not finish');
    return last.run;
  } finally {
    for (const w of workspaces) rmSync(w, { recursive: true, force: true });
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const out = argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : undefined;
  if (process.env['OPENAI_API_KEY']) {
    process.stdout.write('OPENAI_API_KEY is set: recording new cassettes with that model first\n');
    await recordCassettes(
      () => recordingModel(),
      (line) => void process.stdout.write(`  ${line}\n`),
    );
  }
  const runs: EvalRun[] = [];
  for (const preset of PRESETS) {
    const run = await evaluate(preset);
    runs.push(run);
    process.stdout.write(`${formatSummary(run)}\n\n`);
    if (out) {
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, `${preset}.json`), `${JSON.stringify(run, null, 2)}\n`);
    }
  }
  const [coding, ...others] = runs;
  for (const other of others)
    process.stdout.write(`coding vs ${other.name}\n${formatComparison(compareRuns(coding!, other))}\n\n`);
  return runs.some((r) => r.summary.caseErrors > 0) ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`evals failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
