import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import {
  closeTestServer,
  customValues,
  resultOf,
  run,
  systemPromptOf,
  tempDir,
  testServerModel,
} from '../../__tests__/helpers.js';
import { createHarnessAgent } from '../../assembly/create-harness-agent.js';

describe('TodoListMiddleware', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer;
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    if (server) await closeTestServer(server);
    dir.cleanup();
  });

  it('keeps the task list in the agent state, shows it in the prompt of the next step, and emits todos_updated', async () => {
    const todos = [
      { content: 'Read the parser', status: 'completed' },
      { content: 'Fix the bug', status: 'in_progress' },
      { content: 'Run the tests', status: 'pending' },
    ];
    server = await startOpenAITestServer({
      script: [
        { toolCalls: [{ id: 't1', name: 'write_todos', input: { todos } }] },
        { text: 'Working on it.' },
        { toolCalls: [{ id: 'bad', name: 'write_todos', input: { todos: [{ content: 'x', status: 'started' }] } }] },
        { text: 'ok' },
      ],
    });
    const agent = createHarnessAgent({ model: testServerModel(server), workspace: dir.path });
    const { events } = await run(agent, 'Fix the parser');
    expect(customValues(events, 'todos_updated')).toEqual([{ todos }]);
    expect(systemPromptOf(server.requests[0]!)).not.toContain('Your task list');
    expect(systemPromptOf(server.requests[1]!)).toContain(
      '- [x] Read the parser\n- [~] Fix the bug\n- [ ] Run the tests',
    );
    expect(agent.saveState().middlewareState['TodoListMiddleware']).toEqual({ todos });

    // A restored agent shows the list; an invalid list is an error result and changes nothing.
    const restored = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      state: agent.saveState(),
    });
    const second = await run(restored, 'go on');
    expect(systemPromptOf(server.requests[2]!)).toContain('- [~] Fix the bug');
    expect(resultOf(second.events, 'bad').status).toBe('error');
    expect(customValues(second.events, 'todos_updated')).toEqual([]);
    expect(restored.saveState().middlewareState['TodoListMiddleware']).toEqual({ todos });
  });
});
