import type { Dataset, DatasetLineError, EvalCase } from './eval-case.js';

/**
 * A line longer than this is refused (one case is a question and its expectations, not a corpus).
 *
 * @example
 * ```ts
 * if (line.length > MAX_LINE_CHARS) console.warn('this case will be refused');
 * ```
 */
export const MAX_LINE_CHARS = 1_000_000;

const CASE_KEYS = new Set(['id', 'input', 'expected', 'metadata']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The case of one parsed line, or why it is not one. */
function toCase(value: unknown, fallbackId: string): EvalCase | string {
  if (!isObject(value)) return 'a case must be a JSON object with "input"';
  const unknown = Object.keys(value).filter((k) => !CASE_KEYS.has(k));
  if (unknown.length) return `unknown field ${JSON.stringify(unknown[0])} (a case has id, input, expected, metadata)`;
  if (typeof value['input'] !== 'string' || value['input'] === '') return '"input" must be a non-empty string';
  if (value['id'] !== undefined && (typeof value['id'] !== 'string' || value['id'] === ''))
    return '"id" must be a non-empty string';
  if (value['metadata'] !== undefined && !isObject(value['metadata'])) return '"metadata" must be an object';
  const expected = value['expected'];
  if (expected !== undefined) {
    if (!isObject(expected)) return '"expected" must be an object';
    if (expected['answer'] !== undefined && typeof expected['answer'] !== 'string')
      return '"expected.answer" must be a string';
    const tools = expected['tools'];
    if (tools !== undefined) {
      if (!Array.isArray(tools)) return '"expected.tools" must be an array of {name, input?}';
      const bad = tools.findIndex(
        (t) => !isObject(t) || typeof t['name'] !== 'string' || (t['input'] !== undefined && !isObject(t['input'])),
      );
      if (bad >= 0) return `"expected.tools[${bad}]" must be {name: string, input?: object}`;
    }
  }
  return {
    id: value['id'] ?? fallbackId,
    input: value['input'],
    ...(expected !== undefined ? { expected } : {}),
    metadata: value['metadata'] ?? {},
  };
}

/**
 * Reads a dataset from JSON Lines: one case per line, `{"id"?, "input", "expected"?, "metadata"?}`
 * (`expected` may hold `answer` and `tools: [{name, input?}]`). Blank lines are skipped. A line that
 * does not parse or is not a case is reported in `errors` with its number and the reason, and the
 * other lines still make cases; a repeated id is reported too (the first one stays). A case without
 * an id is named `<name>:<line>`.
 *
 * @example
 * ```ts
 * const dataset = parseJsonlDataset('{"input":"What is 2 + 3?","expected":{"answer":"5"}}\n{oops', { name: 'math' });
 * dataset.cases.length; // 1
 * dataset.errors; // [{ line: 2, reason: 'not JSON: ...' }]
 * ```
 */
export function parseJsonlDataset(text: string, options: { readonly name: string }): Dataset {
  const cases: EvalCase[] = [];
  const errors: DatasetLineError[] = [];
  const ids = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    if (raw.length > MAX_LINE_CHARS) {
      errors.push({ line, reason: `line of ${raw.length} characters (at most ${MAX_LINE_CHARS})` });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      errors.push({ line, reason: `not JSON: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    const result = toCase(value, `${options.name}:${line}`);
    if (typeof result === 'string') errors.push({ line, reason: result });
    else if (ids.has(result.id))
      errors.push({ line, reason: `id ${JSON.stringify(result.id)} is used by an earlier line` });
    else {
      ids.add(result.id);
      cases.push(result);
    }
  });
  return { name: options.name, cases, errors };
}
