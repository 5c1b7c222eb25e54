/// <reference types="node" />
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Cassette, checkCassette } from '../recording/cassette.js';

/**
 * A `save` for `RecordingMiddleware` that writes the replies of this run into one JSON file:
 * the first reply saved replaces the file, each later one is added to it (model calls and
 * replies in order). Each write is atomic (a temporary file renamed over the old one).
 *
 * @example
 * ```ts
 * const recorder = new RecordingMiddleware({ save: cassetteFile('fixtures/refund.json') });
 * ```
 */
export function cassetteFile(path: string): (cassette: Cassette) => Promise<void> {
  if (typeof path !== 'string' || !path) throw new TypeError('cassetteFile: path must be a non-empty string.');
  let recorded: Cassette | undefined;
  let writes: Promise<void> = Promise.resolve();
  return (cassette) => {
    const run = writes.then(async () => {
      recorded = recorded
        ? {
            version: cassette.version,
            modelCalls: [...recorded.modelCalls, ...cassette.modelCalls],
            replies: [...recorded.replies, ...cassette.replies],
          }
        : cassette;
      await mkdir(dirname(path), { recursive: true });
      const tmp = `${path}.${process.pid}.tmp`;
      await writeFile(tmp, `${JSON.stringify(recorded, null, 2)}\n`, 'utf8');
      await rename(tmp, path);
    });
    writes = run.catch(() => undefined);
    return run;
  };
}

/**
 * Reads a cassette written by {@link cassetteFile}, checking its format (a clear error names
 * the file and what is wrong).
 *
 * @example
 * ```ts
 * const model = new ReplayChatModel(await loadCassette('fixtures/refund.json'));
 * ```
 */
export async function loadCassette(path: string): Promise<Cassette> {
  const text = await readFile(path, 'utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new TypeError(`${path}: not a cassette (invalid JSON: ${(e as Error).message}).`, { cause: e });
  }
  return checkCassette(value, path);
}
