import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The small project the assistant works on: a sum function with a bug, and its tests. */
export const PROJECT: Readonly<Record<string, string>> = {
  'package.json':
    '{ "name": "tiny-math", "version": "1.0.0", "type": "commonjs", "scripts": { "test": "node test.js" } }\n',
  'sum.js': '/** Adds two numbers. */\nfunction sum(a, b) {\n  return a - b;\n}\n\nmodule.exports = { sum };\n',
  'test.js':
    "const assert = require('node:assert');\nconst { sum } = require('./sum.js');\n\n" +
    'assert.strictEqual(sum(2, 3), 5);\nassert.strictEqual(sum(-1, 1), 0);\nconsole.log("all tests passed");\n',
  'AGENTS.md':
    'This is tiny-math, a small CommonJS library. Run the tests with `node test.js`. Keep changes minimal.\n',
};

/** Writes the project into `workspace`. */
export function writeProject(workspace: string): void {
  mkdirSync(workspace, { recursive: true });
  for (const [path, content] of Object.entries(PROJECT)) writeFileSync(join(workspace, path), content);
}

/** The two requests of the demo: fix the bug (planning first), then add a README. */
export const TASKS = [
  'The tests of tiny-math fail. Plan the fix first (plan mode), then fix sum.js and run the tests.',
  'Now add a short README.md with a usage example.',
] as const;
