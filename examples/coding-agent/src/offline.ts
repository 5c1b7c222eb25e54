/**
 * The offline scripted model: rxscope's OpenAI-compatible test server on 127.0.0.1 playing the
 * assistant. The agent talks to it through the real OpenAIChatModel over real HTTP/SSE; the
 * tools, the sandbox, compaction and plan mode are real.
 */
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';

const CHUNK_DELAY_MS = 8;

const words = (text: string): string[] => text.split(/(?<= )/);

export function startOfflineModel(): Promise<OpenAITestServer> {
  return startOpenAITestServer({ handler: scriptedTurn, chunkDelayMs: CHUNK_DELAY_MS });
}

function scriptedTurn(request: RecordedRequest): ServerTurn {
  const messages = request.body.messages ?? [];
  const system = typeof messages[0]?.content === 'string' ? messages[0].content : '';
  if (system.startsWith('You compact the history')) {
    return {
      text: words(
        '## Intent\nFix the failing tests of tiny-math, planning first; then document it.\n' +
          '## Summary\nsum.js subtracted instead of adding. The plan was approved, the fix applied, `node test.js` passed.\n' +
          '## Artifacts\n- sum.js (fixed: `return a + b;`)\n- plans/PLAN.md\n- test.js (unchanged)\n' +
          '## Next steps\nAdd README.md with a usage example.',
      ),
    };
  }
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const task = typeof lastUser?.content === 'string' ? lastUser.content : JSON.stringify(lastUser?.content ?? '');
  const done = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
  const call = (id: string, name: string, args: object, text?: string): ServerTurn => ({
    ...(text ? { text: words(text) } : {}),
    toolCalls: [{ id, name, input: args }],
  });
  if (task.includes('README')) {
    if (!done.has('c_readme')) {
      return call(
        'c_readme',
        'write_file',
        {
          path: 'README.md',
          content:
            "# tiny-math\n\n```js\nconst { sum } = require('./sum.js');\nsum(2, 3); // 5\n```\n\nTests: `node test.js`.\n",
        },
        'I will write the README.',
      );
    }
    return { text: words('README.md is written, with a usage example and how to run the tests.') };
  }
  if (!done.has('c_enter')) return call('c_enter', 'plan_enter', {}, 'Let me plan before changing anything.');
  if (!done.has('c_read_sum')) {
    return {
      toolCalls: [
        { id: 'c_read_sum', name: 'read_file', input: { path: 'sum.js' } },
        { id: 'c_read_test', name: 'read_file', input: { path: 'test.js' } },
      ],
    };
  }
  if (!done.has('c_plan')) {
    return call(
      'c_plan',
      'plan_write',
      {
        content: '# Fix sum\n1. sum.js returns `a - b`: change it to `a + b`.\n2. Run `node test.js`.\n',
      },
      'sum() subtracts. Here is the plan.',
    );
  }
  if (!done.has('c_exit'))
    return call('c_exit', 'plan_exit', { summary: 'Change `a - b` to `a + b` in sum.js, then run the tests.' });
  if (!done.has('c_todos1')) {
    return call('c_todos1', 'write_todos', {
      todos: [
        { content: 'Fix sum() in sum.js', status: 'in_progress' },
        { content: 'Run the tests', status: 'pending' },
      ],
    });
  }
  if (!done.has('c_edit'))
    return call('c_edit', 'edit_file', { path: 'sum.js', old_string: 'return a - b;', new_string: 'return a + b;' });
  if (!done.has('c_test'))
    return call('c_test', 'execute', { command: 'node test.js', timeout_s: 60 }, 'Now the tests.');
  if (!done.has('c_todos2')) {
    return call('c_todos2', 'write_todos', {
      todos: [
        { content: 'Fix sum() in sum.js', status: 'completed' },
        { content: 'Run the tests', status: 'completed' },
      ],
    });
  }
  return { text: words('Fixed: sum() subtracted its arguments; it adds them now, and `node test.js` passes.') };
}
