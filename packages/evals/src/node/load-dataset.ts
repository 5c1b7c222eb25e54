import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { loadCassette } from '@rxscope/middleware-builtin/node';
import { casesFromCassette } from '../dataset/from-recording.js';
import type { Dataset, EvalCase } from '../dataset/eval-case.js';
import { parseJsonlDataset } from '../dataset/jsonl.js';
import { EvalError } from '../eval-error.js';

/**
 * A dataset file larger than this (64 MiB) is refused before it is read.
 *
 * @example
 * ```ts
 * if ((await stat(path)).size > MAX_DATASET_BYTES) splitTheDataset(path);
 * ```
 */
export const MAX_DATASET_BYTES = 64 * 1024 * 1024;

/**
 * Reads a JSONL dataset file (see `parseJsonlDataset`); named after the file unless `name` is
 * given. A file over 64 MiB, or one that cannot be read, is refused with an `EvalError`
 * `dataset_invalid`; unreadable lines are in `errors` and the rest still runs.
 *
 * @example
 * ```ts
 * const dataset = await loadJsonlDataset('evals/math.jsonl');
 * for (const e of dataset.errors) console.warn(`math.jsonl:${e.line}: ${e.reason}`);
 * ```
 */
export async function loadJsonlDataset(path: string, options: { readonly name?: string } = {}): Promise<Dataset> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (e) {
    throw new EvalError(
      'dataset_invalid',
      `${path}: cannot read the dataset (${e instanceof Error ? e.message : String(e)}).`,
    );
  }
  if (size > MAX_DATASET_BYTES) {
    throw new EvalError(
      'dataset_invalid',
      `${path}: ${size} bytes is more than a dataset may have (${MAX_DATASET_BYTES}).`,
    );
  }
  const text = await readFile(path, 'utf8');
  return parseJsonlDataset(text, { name: options.name ?? basename(path).replace(/\.jsonl?$/, '') });
}

/**
 * Reads cassette files (`RecordingMiddleware` + `cassetteFile`) into cases, one per recorded
 * reply, each named after its file and carrying its cassette for `ReplayChatModel`.
 *
 * @example
 * ```ts
 * const cases = await loadCassetteCases(['fixtures/refund.json', 'fixtures/weather.json']);
 * ```
 */
export async function loadCassetteCases(paths: readonly string[]): Promise<EvalCase[]> {
  const out: EvalCase[] = [];
  for (const path of paths) {
    out.push(...casesFromCassette(await loadCassette(path), { name: basename(path).replace(/\.json$/, '') }));
  }
  return out;
}
