import { Agent } from '../../agent/agent.js';
import { InMemorySessionStore, SessionConflictError } from '../../state/session-store.js';
import { ScriptedChatModel } from '../../testing/scripted-model.js';
import { AgentSessions } from './agent-sessions.js';

const texts = (agent: Agent) =>
  agent.context.map((m) => m.content.map((b) => (b.type === 'text' ? b.text : '')).join(''));

describe('sessions.fork()', () => {
  it('makes a new session from a conversation up to a message, saved in the store, that replies on its own', async () => {
    const store = new InMemorySessionStore();
    const model = new ScriptedChatModel([{ text: 'A1' }, { text: 'A2' }, { text: 'B2' }]);
    const sessions = new AgentSessions({ agent: (id) => new Agent({ model, store, sessionId: id }) });
    // The session's reply ended (its REPLY_END is on the bus and the session is free).
    const ended = async (id: string) => {
      while (sessions.running(id)) await new Promise((r) => setTimeout(r, 5));
    };
    await sessions.start('s1', 'one');
    await ended('s1');
    await sessions.start('s1', 'two');
    await ended('s1');
    const original = await sessions.agent('s1');

    const forked = await sessions.fork('s1', { upTo: original.context[1]!.id, newSessionId: 's2' });
    expect(forked.sessionId).toBe('s2');
    expect((await store.load('s2'))?.state.context.map((m) => m.id)).toEqual(
      original.context.slice(0, 2).map((m) => m.id),
    );
    expect(await sessions.agent('s2')).toBe(forked);
    await sessions.start('s2', 'other two');
    await ended('s2');
    expect(texts(forked)).toEqual(['one', 'A1', 'other two', 'B2']);
    expect(texts(original)).toEqual(['one', 'A1', 'two', 'A2']);

    await expect(sessions.fork('s1', { upTo: original.context[1]!.id, newSessionId: 's2' })).rejects.toThrow(
      /session "s2" exists already/,
    );
    await expect(sessions.fork('s1', { upTo: 'msg_x', newSessionId: 's3' })).rejects.toThrow(/no message "msg_x"/);
    await expect(sessions.fork('s1', { upTo: original.context[1]!.id } as never)).rejects.toThrow(/newSessionId/);
    await expect(sessions.fork('s1', { upto: 'x', newSessionId: 's3' } as never)).rejects.toThrow(
      /did you mean "upTo"/,
    );
    // Known to the store only (another process made it): refused by the store, nothing overwritten.
    await store.save('s9', original.saveState(), 0);
    await expect(sessions.fork('s1', { before: original.context[0]!.id, newSessionId: 's9' })).rejects.toBeInstanceOf(
      SessionConflictError,
    );
    expect((await store.load('s9'))?.state.context).toHaveLength(4);
    await sessions.close();
  });
});
