/**
 * Re-records the cassettes (see recording.ts):
 *
 *   node examples/evals-presets/dist/record.js                          the scripted model
 *   OPENAI_API_KEY=sk-... node examples/evals-presets/dist/record.js    a real model
 */
import { recordCassettes, recordingModel } from './recording.js';

recordCassettes(
  () => recordingModel(),
  (line) => void process.stdout.write(`${line}\n`),
).catch((e: unknown) => {
  process.stderr.write(`recording failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
