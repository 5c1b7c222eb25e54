// The harness's memory, per user: AgentSessions hands its agent factory the session's owner, and a
// workspace per user (the documented way: the shell reaches the whole workspace, so users who must
// not see each other's notes need workspaces of their own) makes each user's memory their own.
import { join } from 'node:path';
import { InMemorySessionStore, textOfToolResult, type ToolResultBlock } from '@rxscope/core';
import { AgentSessions } from '@rxscope/core/node';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { createHarnessAgent } from '../index.js';
import { tempDir } from './helpers.js';

describe('harness memory per user, through the agent factory of AgentSessions', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.cleanup());

  it("one user never recalls another's memories", async () => {
    const store = new InMemorySessionStore();
    const scripts: Record<string, ConstructorParameters<typeof ScriptedChatModel>[0]> = {
      'ann-1': [
        { toolCalls: [{ id: 'save', name: 'memory_save', input: { content: '- Ann drinks green tea' } }] },
        { text: 'Noted.' },
      ],
      'bob-1': [
        { toolCalls: [{ id: 'look', name: 'memory_search', input: { query: 'green tea' } }] },
        { text: 'Nothing.' },
      ],
      'ann-2': [
        { toolCalls: [{ id: 'look', name: 'memory_search', input: { query: 'green tea' } }] },
        { text: 'Tea.' },
      ],
    };
    const built: [string, string | undefined][] = [];
    const sessions = new AgentSessions({
      store,
      agent: (sessionId, { userId }) => {
        built.push([sessionId, userId]);
        return createHarnessAgent({
          model: new ScriptedChatModel(scripts[sessionId] ?? []),
          workspace: join(dir.path, encodeURIComponent(userId ?? 'shared')),
          memory: { tools: true, flush: false, maintenance: false },
          store,
          sessionId,
        });
      },
    });
    const reply = async (sessionId: string, userId: string, text: string) => {
      await sessions.start(sessionId, text, { userId });
      while (sessions.running(sessionId)) await new Promise((r) => setTimeout(r, 5));
      const context = (await sessions.agent(sessionId)).context;
      return context
        .flatMap((m) => m.content)
        .filter((b): b is ToolResultBlock => b.type === 'tool_result')
        .map((b) => textOfToolResult(b));
    };

    await reply('ann-1', 'ann', 'Remember that I drink green tea.');
    const bob = await reply('bob-1', 'bob', 'What do I drink?');
    expect(bob).toHaveLength(1); // the search ran, and found nothing of Ann's
    expect(bob.join('\n')).not.toContain('Ann drinks');
    expect((await reply('ann-2', 'ann', 'What do I drink?')).join('\n')).toContain('Ann drinks green tea');

    // A session's agent made again (after forget) gets its owner from the store, not from the call.
    await sessions.forget('ann-1');
    await sessions.agent('ann-1');
    expect(built).toEqual([
      ['ann-1', 'ann'],
      ['bob-1', 'bob'],
      ['ann-2', 'ann'],
      ['ann-1', 'ann'],
    ]);
    await sessions.close();
  });
});
