// One user cannot read, drive or recall another's session or memories, through the Node HTTP
// handlers on a real loopback server: the user comes from identify(req), the session store
// records each session's owner, and memories live in per-user views of one backend.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, InMemorySessionStore, SessionForbiddenError, type AgentEvent } from '@rxscope/core';
import { AgentSessions, createAgentSseHandler, HttpError } from '@rxscope/core/node';
import { ScriptedChatModel, type ScriptedTurn } from '@rxscope/core/testing';
import { firstValueFrom, takeWhile } from 'rxjs';
import { AgenticMemoryMiddleware } from './agentic-memory.js';
import { KnowledgeMemoryBackend } from './knowledge-memory-backend.js';

const scripts: Record<string, ScriptedTurn[]> = {
  // alice saves a memory
  a1: [
    {
      toolCalls: [
        {
          name: 'memory_add',
          input: { name: 'alice-pin', description: 'Alice bank PIN', type: 'user', content: 'The PIN is 4242.' },
        },
      ],
    },
    { text: 'Noted.' },
  ],
  // mallory, in her own session, searches for it
  m1: [{ toolCalls: [{ name: 'memory_search', input: { query: 'bank PIN' } }] }, { text: 'Nothing found.' }],
  // alice, in a new session, finds it
  a2: [{ toolCalls: [{ name: 'memory_search', input: { query: 'bank PIN' } }] }, { text: 'Your PIN is 4242.' }],
};

describe('user isolation through the HTTP handlers', () => {
  let server: Server;
  let url: string;
  let sessions: AgentSessions;
  const models = new Map<string, ScriptedChatModel>();
  const store = new InMemorySessionStore();
  const memory = new AgenticMemoryMiddleware({ backend: new KnowledgeMemoryBackend(), maxRecall: 0 });

  beforeAll(async () => {
    sessions = new AgentSessions({
      agent: (id) => {
        const model = new ScriptedChatModel(scripts[id] ?? [{ text: 'hello' }]);
        models.set(id, model);
        return new Agent({ model, sessionId: id, store, middlewares: [memory] });
      },
      store,
    });
    const identify = (req: IncomingMessage) => {
      const user = req.headers['x-user'];
      if (typeof user !== 'string') throw new HttpError(401, 'Sign in first (x-user).', 'unauthenticated');
      return user;
    };
    const untilEnd = takeWhile((e: AgentEvent) => e.type !== 'REPLY_END', true);
    const handler = createAgentSseHandler({
      identify,
      events: async (req, { url: u, body, userId, lastEventId }) => {
        const id = u.pathname.split('/')[2]!;
        if (req.method === 'POST') {
          const { message } = (await body()) as { message: string };
          await sessions.start(id, message, { userId });
          return sessions.events(id, { userId }).pipe(untilEnd);
        }
        return sessions.events(id, { userId, ...(lastEventId ? { lastEventId } : {}) }).pipe(untilEnd);
      },
    });
    server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await sessions.close();
  });

  const post = (user: string | undefined, id: string, message: string) =>
    fetch(`${url}/sessions/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(user ? { 'x-user': user } : {}) },
      body: JSON.stringify({ message }),
    });
  const eventsOf = (text: string): AgentEvent[] =>
    text
      .split('\n\n')
      .flatMap((frame) => frame.split('\n').filter((l) => l.startsWith('data: ')))
      .map((l) => JSON.parse(l.slice(6)) as AgentEvent);
  const toolOutput = (events: AgentEvent[]) =>
    JSON.stringify(events.filter((e) => e.type === 'TOOL_RESULT_END').map((e) => (e as { output: unknown }).output));

  it('alice drives her session; mallory can neither drive nor read it (403), and an anonymous request is a 401', async () => {
    const own = await post('alice', 'a1', 'Remember my PIN 4242');
    expect(own.status).toBe(200);
    const aliceEvents = eventsOf(await own.text());
    expect(aliceEvents.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(toolOutput(aliceEvents)).toContain('Saved memory \\"alice-pin\\"');

    const drive = await post('mallory', 'a1', 'What did alice say?');
    expect(drive.status).toBe(403);
    expect(await drive.json()).toMatchObject({ error: { name: 'SessionForbiddenError', code: 'session_forbidden' } });
    const read = await fetch(`${url}/sessions/a1/events?lastEventId=${aliceEvents[0]!.id}`, {
      headers: { 'x-user': 'mallory' },
    });
    expect(read.status).toBe(403);
    expect(await read.text()).not.toContain('4242');
    // Nothing of mallory's reached alice's session or its model.
    expect(models.get('a1')!.requests).toHaveLength(2);
    expect((await store.load('a1'))!.state.context).toHaveLength(2);

    // The owner herself reads her session's log (replayed from its first event).
    const replay = await fetch(`${url}/sessions/a1/events?lastEventId=${aliceEvents[0]!.id}`, {
      headers: { 'x-user': 'alice' },
    });
    expect(replay.status).toBe(200);
    expect(eventsOf(await replay.text())).toEqual(aliceEvents.slice(1));

    // Another process (its own sessions, the same store) knows the owner from the store.
    const elsewhere = new AgentSessions({
      agent: (id) => new Agent({ model: new ScriptedChatModel([]), sessionId: id, store }),
      store,
    });
    await expect(firstValueFrom(elsewhere.events('a1', { userId: 'mallory' }))).rejects.toThrow(SessionForbiddenError);
    await elsewhere.close();

    const anonymous = await post(undefined, 'a1', 'hi');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthenticated' } });
  });

  it("mallory's own session cannot recall alice's memories; alice's next session does", async () => {
    const mallory = eventsOf(await (await post('mallory', 'm1', 'What is the bank PIN?')).text());
    expect(mallory.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(toolOutput(mallory)).toContain('No memory matches');
    // Neither the memory index in the system prompt nor a tool result showed her anything of alice's.
    const seenByMallory = JSON.stringify(models.get('m1')!.requests.map((r) => r.messages));
    expect(seenByMallory).not.toContain('4242');
    expect(seenByMallory).not.toContain('alice-pin');

    const alice = eventsOf(await (await post('alice', 'a2', 'What is my bank PIN?')).text());
    expect(toolOutput(alice)).toContain('The PIN is 4242.');
    // Her memory index is in her system prompt.
    expect(JSON.stringify(models.get('a2')!.requests[0]!.messages[0])).toContain('alice-pin');
  });

  it('a bad id from identify(req) or sessions.start is refused with a clear error before anything runs', async () => {
    await expect(sessions.start('z1', 'hi', { userId: '' })).rejects.toMatchObject({ code: 'invalid_user_id' });
    expect(models.has('z1')).toBe(false);
    const bad = createAgentSseHandler({ identify: () => '', events: () => sessions.events('never') });
    const s = createServer((req, res) => void bad(req, res));
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: {
          name: 'InvalidUserIdError',
          code: 'invalid_user_id',
          message: expect.stringMatching(/identify\(req\)/),
        },
      });
    } finally {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });
});
