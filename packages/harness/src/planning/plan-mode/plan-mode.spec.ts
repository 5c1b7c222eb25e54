import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import {
  closeTestServer,
  customValues,
  ofType,
  resultOf,
  run,
  systemPromptOf,
  tempDir,
  testServerModel,
  textOfResult,
} from '../../__tests__/helpers.js';
import { createHarnessAgent } from '../../assembly/create-harness-agent.js';

describe('PlanModeMiddleware', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer;
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    if (server) await closeTestServer(server);
    dir.cleanup();
  });

  it('plans with read-only tools only, persists the flag, and leaves plan mode only through a confirmed plan_exit', async () => {
    server = await startOpenAITestServer({
      script: [
        { toolCalls: [{ id: 'enter', name: 'plan_enter', input: {} }] },
        {
          toolCalls: [
            { id: 'early_write', name: 'write_file', input: { path: 'a.txt', content: 'too early' } },
            { id: 'plan', name: 'plan_write', input: { content: '# Plan\n1. write a.txt' } },
            { id: 'look', name: 'list_files', input: {} },
          ],
        },
        { toolCalls: [{ id: 'exit1', name: 'plan_exit', input: { summary: 'write a.txt' } }] },
        { text: 'Understood, I keep planning.' },
        { toolCalls: [{ id: 'exit2', name: 'plan_exit', input: { summary: 'write a.txt' } }] },
        { toolCalls: [{ id: 'write', name: 'write_file', input: { path: 'a.txt', content: 'done' } }] },
        { text: 'Done.' },
      ],
    });
    const agent = createHarnessAgent({ model: testServerModel(server), workspace: dir.path, planMode: true });
    const first = await run(agent, 'Plan, then write a.txt');
    // Entering takes effect at the next reasoning step: its prompt has the banner, its write is denied.
    expect(systemPromptOf(server.requests[0]!)).not.toContain('Plan mode is active');
    expect(systemPromptOf(server.requests[1]!)).toContain('Plan mode is active');
    expect(customValues(first.events, 'plan_mode_changed')).toEqual([{ active: true }]);
    const denied = resultOf(first.events, 'early_write');
    expect(denied.status).toBe('denied');
    expect(textOfResult(denied)).toMatch(/^Plan mode: "write_file" may change things/);
    expect(resultOf(first.events, 'look').status).toBe('success');
    expect(readFileSync(join(dir.path, 'plans/PLAN.md'), 'utf8')).toBe('# Plan\n1. write a.txt\n');
    expect(existsSync(join(dir.path, 'a.txt'))).toBe(false);
    // plan_exit always asks; the flag and the permission mode are in the saved state.
    expect(first.end.finishReason).toBe('awaiting_confirmation');
    expect(ofType(first.events, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls.map((c) => c.name)).toEqual(['plan_exit']);
    const saved = agent.saveState();
    expect(saved.middlewareState['PlanModeMiddleware']).toEqual({ active: true, previousMode: 'default' });
    expect(saved.permissions.mode).toBe('plan');

    // A rejected exit stays in plan mode.
    const rejected = await run(agent, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: 'exit1', confirmed: false, reason: 'add tests' }],
    });
    expect(resultOf(rejected.events, 'exit1').status).toBe('denied');
    expect(customValues(rejected.events, 'plan_mode_changed')).toEqual([]);
    expect(systemPromptOf(server.requests[3]!)).toContain('Plan mode is active');
    expect(agent.saveState().middlewareState['PlanModeMiddleware']).toMatchObject({ active: true });

    // A confirmed exit leaves it: the next step has no banner and may write.
    const again = await run(agent, 'The plan is fine now.');
    expect(again.end.finishReason).toBe('awaiting_confirmation');
    const approved = await run(agent, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: 'exit2', confirmed: true }],
    });
    expect(customValues(approved.events, 'plan_mode_changed')).toEqual([{ active: false }]);
    expect(systemPromptOf(server.requests[5]!)).not.toContain('Plan mode is active');
    expect(resultOf(approved.events, 'write').status).toBe('success');
    expect(readFileSync(join(dir.path, 'a.txt'), 'utf8')).toBe('done');
    expect(agent.permissions.mode).toBe('default');
  });

  it('restores plan mode from a saved state (banner and denial), in a new agent', async () => {
    server = await startOpenAITestServer({
      script: [
        { toolCalls: [{ id: 'enter', name: 'plan_enter', input: {} }] },
        { text: 'Planning.' },
        { toolCalls: [{ id: 'w', name: 'write_file', input: { path: 'b.txt', content: 'x' } }] },
        { text: 'Denied, as expected.' },
      ],
    });
    const first = createHarnessAgent({ model: testServerModel(server), workspace: dir.path, planMode: true });
    await run(first, 'plan');
    const restored = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      planMode: true,
      state: first.saveState(),
    });
    const { events } = await run(restored, 'write b.txt');
    expect(systemPromptOf(server.requests[2]!)).toContain('Plan mode is active');
    expect(resultOf(events, 'w').status).toBe('denied');
    expect(existsSync(join(dir.path, 'b.txt'))).toBe(false);
  });
});
