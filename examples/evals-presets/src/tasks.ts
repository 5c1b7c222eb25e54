/**
 * The dozen repository tasks the presets are compared on, with what a good reply does: the tool
 * calls it makes (in order; arguments matched on the keys given) and a text its answer contains.
 */
import type { EvalCase, ExpectedToolCall } from '@rxscope/evals';

interface RepoTask {
  readonly id: string;
  readonly prompt: string;
  readonly answer: string;
  readonly tools: readonly ExpectedToolCall[];
  readonly kind: 'read' | 'edit';
}

const read = (path: string): ExpectedToolCall => ({ name: 'read_file', input: { path } });

export const TASKS: readonly RepoTask[] = [
  {
    id: 't01-sum-export',
    kind: 'read',
    prompt: 'Which function does src/sum.js export? Answer with its name.',
    answer: 'sum',
    tools: [read('src/sum.js')],
  },
  {
    id: 't02-package-name',
    kind: 'read',
    prompt: "What is the project's name in package.json?",
    answer: 'tiny-repo',
    tools: [read('package.json')],
  },
  {
    id: 't03-count-src',
    kind: 'read',
    prompt: 'How many files are in the src folder?',
    answer: '4 files',
    tools: [{ name: 'list_files', input: { path: 'src' } }],
  },
  {
    id: 't04-find-greet',
    kind: 'read',
    prompt: 'Which file defines the function greet?',
    answer: 'src/greet.js',
    tools: [{ name: 'grep_files', input: { pattern: 'function greet' } }],
  },
  {
    id: 't05-port',
    kind: 'read',
    prompt: 'Which port does config.json set?',
    answer: '8080',
    tools: [read('config.json')],
  },
  {
    id: 't06-todo',
    kind: 'read',
    prompt: 'Quote the TODO comment of the project.',
    answer: 'reject lists that hold something other than numbers',
    tools: [{ name: 'grep_files', input: { pattern: 'TODO' } }],
  },
  {
    id: 't07-js-files',
    kind: 'read',
    prompt: 'List the JavaScript files under src.',
    answer: 'src/sum.js',
    tools: [{ name: 'glob_files', input: { pattern: 'src/**/*.js' } }],
  },
  {
    id: 't08-avg-empty',
    kind: 'read',
    prompt: 'What does avg() in src/avg.js return for an empty list?',
    answer: 'returns 0',
    tools: [read('src/avg.js')],
  },
  {
    id: 't09-fix-sum',
    kind: 'edit',
    prompt: 'Fix the bug in src/sum.js: sum must add its arguments.',
    answer: 'Fixed',
    tools: [read('src/sum.js'), { name: 'edit_file', input: { path: 'src/sum.js', new_string: 'a + b' } }],
  },
  {
    id: 't10-changelog',
    kind: 'edit',
    prompt: "Create CHANGELOG.md with a '# Changelog' heading.",
    answer: 'Created CHANGELOG.md',
    tools: [{ name: 'write_file', input: { path: 'CHANGELOG.md' } }],
  },
  {
    id: 't11-greeting',
    kind: 'edit',
    prompt: 'Change the greeting in src/greet.js from Hello to Hi.',
    answer: 'Changed',
    tools: [read('src/greet.js'), { name: 'edit_file', input: { path: 'src/greet.js', new_string: 'Hi' } }],
  },
  {
    id: 't12-port',
    kind: 'edit',
    prompt: 'Set the port in config.json to 9090.',
    answer: 'Changed',
    tools: [read('config.json'), { name: 'edit_file', input: { path: 'config.json', new_string: '9090' } }],
  },
];

/** The tasks as eval cases (without cassettes: main.ts adds each preset's). */
export function taskCases(): EvalCase[] {
  return TASKS.map((t) => ({
    id: t.id,
    input: t.prompt,
    expected: { answer: t.answer, tools: t.tools },
    metadata: { kind: t.kind },
  }));
}
