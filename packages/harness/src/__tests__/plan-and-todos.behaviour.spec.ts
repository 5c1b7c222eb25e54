// Plan mode and the task list as a user of createHarnessAgent sees them, beyond the middleware
// specs: which of the user's own tools and the shell run while planning, the task list's bound and
// its result text, and an emptied list leaving the prompt.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineTool, textOfMsg } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { z } from 'zod';
import { createHarnessAgent } from '../index.js';
import { customValues, resultOf, run, tempDir, textOfResult } from './helpers.js';

describe('plan mode and the task list in the assembled harness', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.cleanup());

  it("while planning, the user's read-only tools run and the others are denied without running", async () => {
    const ran: string[] = [];
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look something up.',
      input: z.object({ q: z.string() }),
      readOnly: true,
      execute: ({ q }) => {
        ran.push(`lookup ${q}`);
        return `found ${q}`;
      },
    });
    const deploy = defineTool({
      name: 'deploy',
      description: 'Deploy the service.',
      input: z.object({ env: z.string() }),
      execute: ({ env }) => {
        ran.push(`deploy ${env}`);
        return 'deployed';
      },
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'enter', name: 'plan_enter', input: {} }] },
      {
        toolCalls: [
          { id: 'look', name: 'lookup', input: { q: 'config' } },
          { id: 'dep', name: 'deploy', input: { env: 'prod' } },
          { id: 'edit', name: 'edit_file', input: { path: 'AGENTS.md', old_string: 'x', new_string: 'y' } },
        ],
      },
      { text: 'Planned.' },
    ]);
    const agent = createHarnessAgent({ model, workspace: dir.path, planMode: true, tools: [lookup, deploy] });
    const { events } = await run(agent, 'plan a deploy');
    expect(ran).toEqual(['lookup config']);
    expect(textOfResult(resultOf(events, 'look'))).toBe('found config');
    for (const [id, name] of [
      ['dep', 'deploy'],
      ['edit', 'edit_file'],
    ]) {
      const denied = resultOf(events, id!);
      expect(denied.status).toBe('denied');
      expect(textOfResult(denied)).toBe(
        `Plan mode: "${name}" may change things and is not allowed while planning. Finish the plan first.`,
      );
    }
    // The banner tells the model, from the step after plan_enter on.
    expect(textOfMsg(model.requests[0]!.messages[0]!)).not.toContain('## Plan mode is active');
    expect(textOfMsg(model.requests[1]!.messages[0]!)).toContain('## Plan mode is active');
  });

  it('while planning, execute is denied and the command never runs in the sandbox', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'enter', name: 'plan_enter', input: {} }] },
      { toolCalls: [{ id: 'sh', name: 'execute', input: { command: 'touch ran.txt' } }] },
      { text: 'ok' },
    ]);
    const agent = createHarnessAgent({
      model,
      workspace: dir.path,
      planMode: true,
      sandbox: 'local',
      execute: { askPermission: false },
    });
    const { events } = await run(agent, 'plan');
    expect(resultOf(events, 'sh').status).toBe('denied');
    expect(textOfResult(resultOf(events, 'sh'))).toMatch(/^Plan mode: "execute" may change things/);
    expect(existsSync(join(dir.path, 'ran.txt'))).toBe(false);
  });

  it('without plan mode the plan tools are unknown to the agent and write no plan', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'w', name: 'plan_write', input: { content: '# Plan' } }] },
      { text: 'ok' },
    ]);
    const { events } = await run(createHarnessAgent({ model, workspace: dir.path }), 'plan');
    expect(resultOf(events, 'w').status).toBe('error');
    expect(existsSync(join(dir.path, 'plans', 'PLAN.md'))).toBe(false);
  });

  it('plan_write replaces the plan, ending it with a newline, and says how many lines it saved', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'enter', name: 'plan_enter', input: {} }] },
      { toolCalls: [{ id: 'w1', name: 'plan_write', input: { content: '# Old plan\n1. a\n2. b' } }] },
      { toolCalls: [{ id: 'w2', name: 'plan_write', input: { content: '# New plan\n' } }] },
      { toolCalls: [{ id: 'empty', name: 'plan_write', input: { content: '' } }] },
      { text: 'ok' },
    ]);
    const { events } = await run(createHarnessAgent({ model, workspace: dir.path, planMode: true }), 'plan');
    expect(textOfResult(resultOf(events, 'w1'))).toBe(
      'The plan is saved in plans/PLAN.md (3 lines). Call plan_exit to ask the user to approve it.',
    );
    expect(readFileSync(join(dir.path, 'plans', 'PLAN.md'), 'utf8')).toBe('# New plan\n');
    // An empty plan is refused and the saved one stays.
    expect(resultOf(events, 'empty').status).toBe('error');
    expect(customValues(events, 'plan_mode_changed')).toEqual([{ active: true }]);
  });

  it('write_todos says how far the work is, and an emptied list leaves the prompt', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          {
            id: 't1',
            name: 'write_todos',
            input: {
              todos: [
                { content: 'Read', status: 'completed' },
                { content: 'Fix', status: 'in_progress' },
                { content: 'Test', status: 'pending' },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ id: 't2', name: 'write_todos', input: { todos: [] } }] },
      { text: 'done' },
    ]);
    const agent = createHarnessAgent({ model, workspace: dir.path });
    const { events } = await run(agent, 'work');
    expect(textOfResult(resultOf(events, 't1'))).toBe('Task list updated: 1/3 completed; in progress: Fix.');
    expect(textOfResult(resultOf(events, 't2'))).toBe('Task list updated: 0/0 completed.');
    expect(textOfMsg(model.requests[1]!.messages[0]!)).toContain('- [x] Read\n- [~] Fix\n- [ ] Test');
    expect(textOfMsg(model.requests[2]!.messages[0]!)).not.toContain('## Your task list');
    expect(customValues(events, 'todos_updated')).toEqual([
      {
        todos: [
          { content: 'Read', status: 'completed' },
          { content: 'Fix', status: 'in_progress' },
          { content: 'Test', status: 'pending' },
        ],
      },
      { todos: [] },
    ]);
  });

  it('todos.maxTodos bounds the list: a longer one is an error result and the list stays as it was', async () => {
    const todo = (content: string) => ({ content, status: 'pending' });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'ok', name: 'write_todos', input: { todos: [todo('a'), todo('b')] } }] },
      { toolCalls: [{ id: 'long', name: 'write_todos', input: { todos: [todo('a'), todo('b'), todo('c')] } }] },
      { toolCalls: [{ id: 'blank', name: 'write_todos', input: { todos: [todo('')] } }] },
      { text: 'done' },
    ]);
    const agent = createHarnessAgent({ model, workspace: dir.path, todos: { maxTodos: 2 } });
    const { events } = await run(agent, 'work');
    expect(resultOf(events, 'ok').status).toBe('success');
    expect(resultOf(events, 'long').status).toBe('error');
    expect(resultOf(events, 'blank').status).toBe('error');
    expect(customValues(events, 'todos_updated')).toHaveLength(1);
    expect(agent.saveState().middlewareState['TodoListMiddleware']).toEqual({ todos: [todo('a'), todo('b')] });
  });
});
