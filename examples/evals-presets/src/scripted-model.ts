/**
 * The scripted model the committed cassettes were recorded with (no API key was at hand): a
 * stand-in for an LLM that works through each task with the tools the preset offers it. It reads
 * the real tool results (its answers are computed from them, not written in), falls back to
 * another tool when the best one is missing, and says so when it cannot do a task at all. With
 * OPENAI_API_KEY, record.ts records a real model instead.
 */
import type { ModelRequest } from '@rxscope/core';
import type { ScriptedTurn } from '@rxscope/core/testing';
import { TASKS } from './tasks.js';

type Call = { readonly name: string; readonly input: Record<string, unknown> };
/** The calls for a task given the tools offered, or the reason it cannot be done. */
type Plan = (has: (tool: string) => boolean) => readonly Call[] | string;

const call = (name: string, input: Record<string, unknown>): Call => ({ name, input });
const read = (path: string) => call('read_file', { path });
const CANNOT_EDIT = 'I cannot change files with the tools I have';

const PLANS: Readonly<Record<string, { plan: Plan; answer: (outputs: readonly string[]) => string }>> = {
  't01-sum-export': {
    plan: () => [read('src/sum.js')],
    answer: (o) => `It exports \`${/module\.exports = \{ (\w+)/.exec(o[0] ?? '')?.[1] ?? '?'}\`.`,
  },
  't02-package-name': {
    plan: () => [read('package.json')],
    answer: (o) => `The project is called ${/"name": "([^"]+)"/.exec(o[0] ?? '')?.[1] ?? '?'}.`,
  },
  't03-count-src': {
    plan: (has) =>
      has('list_files')
        ? [call('list_files', { path: 'src' })]
        : has('glob_files')
          ? [call('glob_files', { pattern: 'src/*' })]
          : 'I cannot list a folder with the tools I have.',
    answer: (o) => `There are ${(o[0] ?? '').split('\n').filter((l) => /\.js\b/.test(l)).length} files in src.`,
  },
  't04-find-greet': {
    // Without a search tool, a guess from the name, checked by reading it.
    plan: (has) => (has('grep_files') ? [call('grep_files', { pattern: 'function greet' })] : [read('src/greet.js')]),
    answer: (o) =>
      /greet/.test(o[0] ?? '')
        ? `greet is defined in ${/(src\/\w+\.js)/.exec(o[0] ?? '')?.[1] ?? 'src/greet.js'}.`
        : 'I could not find it.',
  },
  't05-port': {
    plan: () => [read('config.json')],
    answer: (o) => `config.json sets port ${/"port": (\d+)/.exec(o[0] ?? '')?.[1] ?? '?'}.`,
  },
  't06-todo': {
    plan: (has) =>
      has('grep_files')
        ? [call('grep_files', { pattern: 'TODO' })]
        : 'I cannot search the project with the tools I have.',
    answer: (o) => `The TODO says: "${/TODO: (.*)/.exec(o[0] ?? '')?.[1]?.trim() ?? '?'}".`,
  },
  't07-js-files': {
    plan: (has) =>
      has('glob_files')
        ? [call('glob_files', { pattern: 'src/**/*.js' })]
        : has('list_files')
          ? [call('list_files', { path: 'src' })]
          : 'I cannot list files with the tools I have.',
    answer: (o) =>
      `The JavaScript files: ${
        (o[0] ?? '')
          .match(/[\w/]*\w+\.js/g)
          ?.map((f) => (f.startsWith('src/') ? f : `src/${f}`))
          .join(', ') ?? 'none'
      }.`,
  },
  't08-avg-empty': {
    plan: () => [read('src/avg.js')],
    answer: (o) => `For an empty list avg() returns ${/length === 0\) return (\S+);/.exec(o[0] ?? '')?.[1] ?? '?'}.`,
  },
  't09-fix-sum': {
    plan: (has) =>
      has('edit_file')
        ? [read('src/sum.js'), call('edit_file', { path: 'src/sum.js', old_string: 'a - b', new_string: 'a + b' })]
        : `${CANNOT_EDIT}; the fix is to return a + b in src/sum.js.`,
    answer: (o) => (/error/i.test(o[1] ?? '') ? `The edit failed: ${o[1]}` : 'Fixed: src/sum.js now returns a + b.'),
  },
  't10-changelog': {
    plan: (has) =>
      has('write_file')
        ? [call('write_file', { path: 'CHANGELOG.md', content: '# Changelog\n' })]
        : `${CANNOT_EDIT}; CHANGELOG.md is not created.`,
    answer: (o) => (/error/i.test(o[0] ?? '') ? `Writing failed: ${o[0]}` : 'Created CHANGELOG.md.'),
  },
  't11-greeting': {
    plan: (has) =>
      has('edit_file')
        ? [read('src/greet.js'), call('edit_file', { path: 'src/greet.js', old_string: 'Hello', new_string: 'Hi' })]
        : `${CANNOT_EDIT}.`,
    answer: (o) => (/error/i.test(o[1] ?? '') ? `The edit failed: ${o[1]}` : 'Changed the greeting to Hi.'),
  },
  't12-port': {
    plan: (has) =>
      has('edit_file')
        ? [read('config.json'), call('edit_file', { path: 'config.json', old_string: '8080', new_string: '9090' })]
        : `${CANNOT_EDIT}.`,
    answer: (o) => (/error/i.test(o[1] ?? '') ? `The edit failed: ${o[1]}` : 'Changed the port to 9090.'),
  },
};

const textOf = (content: readonly unknown[]) =>
  content.map((p) => ((p as { type?: string }).type === 'text' ? (p as { text: string }).text : '')).join('');

/** The next turn for a request: the next planned call, or the answer from the results so far. */
export function scriptedTurn(request: ModelRequest): ScriptedTurn {
  const user = request.messages.find((m) => m.role === 'user');
  const prompt = user ? textOf(user.content) : '';
  const task = TASKS.find((t) => prompt.includes(t.prompt));
  if (!task) return { text: 'I do not know this task.' };
  const offered = new Set(request.tools.map((t) => t.name));
  const { plan, answer } = PLANS[task.id]!;
  const steps = plan((tool) => offered.has(tool));
  if (typeof steps === 'string') return { text: steps, usage: { inputTokens: 300, outputTokens: 20 } };
  const outputs = request.messages.flatMap((m) =>
    m.content.flatMap((b) =>
      b.type === 'tool_result' ? [b.output.map((p) => (p.type === 'text' ? p.text : '')).join('')] : [],
    ),
  );
  const next = steps[outputs.length];
  if (next) return { toolCalls: [next], usage: { inputTokens: 300 + 100 * outputs.length, outputTokens: 15 } };
  return { text: answer(outputs), usage: { inputTokens: 300 + 100 * outputs.length, outputTokens: 20 } };
}
