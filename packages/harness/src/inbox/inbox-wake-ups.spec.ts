// InboxWakeUps in one process: a message pushed to an idle session's inbox, or a background
// result that arrives after its reply ended, starts a reply of that session (once, and not for a
// session that opted out). The model is the real OpenAIChatModel over the OpenAI test server.
import { z } from 'zod';
import { Agent, defineTool } from '@rxscope/core';
import { AgentSessions } from '@rxscope/core/node';
import { startOpenAITestServer, type OpenAITestServer, type RecordedRequest } from '@rxscope/core/testing/node';
import { testServerModel } from '../__tests__/helpers.js';
import { InMemoryMessageBus } from '../bus/in-memory-message-bus.js';
import { AsyncToolMiddleware, BackgroundTasks } from '../tasks/index.js';
import { InboxMiddleware } from './inbox-middleware/index.js';
import { InboxWakeUps } from './inbox-wake-ups.js';
import { pushToInbox, wakeQueueOf } from './inbox-message.js';

const until = async (check: () => boolean, what: string, ms = 5000) => {
  for (const end = Date.now() + ms; !check();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};
/** Everything the model was sent as text, joined. */
const sent = (req: RecordedRequest) => JSON.stringify(req.body.messages);

describe('InboxWakeUps', () => {
  let server: OpenAITestServer;
  let sessions: AgentSessions;
  let wakeUps: InboxWakeUps;
  afterEach(async () => {
    wakeUps?.close();
    await sessions?.close();
    await server?.close();
  });

  async function setUp(tools: Parameters<typeof defineTool>[0][] = [], optOut?: string) {
    server = await startOpenAITestServer({
      handler: (req) =>
        sent(req).includes('build') && req.body.messages!.at(-1)!.role === 'user' && !sent(req).includes('build done')
          ? { toolCalls: [{ id: 'b1', name: 'build', input: {} }] }
          : { text: `answer #${server.requests.length}` },
    });
    const bus = new InMemoryMessageBus();
    const tasks = new BackgroundTasks({ bus });
    sessions = new AgentSessions({
      agent: (id) =>
        new Agent({
          model: testServerModel(server),
          sessionId: id,
          tools: tools.map((t) => defineTool(t)),
          middlewares: [new InboxMiddleware({ bus }), new AsyncToolMiddleware({ tasks, timeoutMs: 30 })],
        }),
      ...(optOut ? { wakeUps: (id: string) => id !== optOut } : {}),
    });
    wakeUps = new InboxWakeUps({ bus, sessions }).start();
    return { bus };
  }

  it('a message pushed to an idle session starts one reply, which reads it', async () => {
    const { bus } = await setUp();
    await sessions.start('s1', 'Hello');
    await until(() => !sessions.running('s1'), 'the first reply');
    await pushToInbox(bus, 's1', { text: 'The deploy finished.', from: 'ci' });
    await until(() => server.requests.length === 2, 'a woken reply');
    await until(() => !sessions.running('s1'), 'the woken reply to end');
    expect(sent(server.requests[1]!)).toContain('[message from ci]\\nThe deploy finished.');
    const agent = await sessions.agent('s1');
    expect(agent.context.filter((m) => m.role === 'assistant')).toHaveLength(2);
    // Nothing more waits: no further reply, and the notices are gone.
    await new Promise((r) => setTimeout(r, 200));
    expect(server.requests).toHaveLength(2);
    expect(await bus.peek(wakeQueueOf('s1'))).toEqual([]);
  });

  it('a background result that arrives after its reply ended wakes the session with it', async () => {
    let finish!: (text: string) => void;
    await setUp([
      {
        name: 'build',
        description: 'builds',
        input: z.object({}),
        execute: () => new Promise<string>((resolve) => (finish = resolve)),
      },
    ]);
    await sessions.start('s1', 'Run the build');
    await until(() => !sessions.running('s1'), 'the reply that left the build in the background');
    const before = server.requests.length;
    finish('build done: 0 errors');
    await until(() => server.requests.length > before, 'a reply woken by the result');
    expect(sent(server.requests[before]!)).toContain('build done: 0 errors');
    await until(() => !sessions.running('s1'), 'the woken reply to end');
  });

  it('leaves a session that opted out alone: its message waits for its next reply', async () => {
    const { bus } = await setUp([], 'quiet');
    await pushToInbox(bus, 'quiet', 'For later.');
    await new Promise((r) => setTimeout(r, 300));
    expect(server.requests).toHaveLength(0);
    await sessions.start('quiet', 'Anything new?');
    await until(() => server.requests.length === 1, 'the reply');
    expect(sent(server.requests[0]!)).toContain('For later.');
  });
});
