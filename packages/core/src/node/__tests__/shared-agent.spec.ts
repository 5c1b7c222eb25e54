// One Agent is one conversation: the HTTP handlers refuse to serve one agent instance to two
// sessions (or AG-UI threads) unless told it is shared, before the second user's message reaches
// the model or queues behind the first user's reply. Over real HTTP, against the OpenAI test server.
import { defer } from 'rxjs';
import { Agent, AgentSharedError, type ReplyInput } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { createAgUiHandler } from '../ag-ui/index.js';
import { createAgentSseHandler, streamAgentEvents } from '../index.js';
import { eventsOf, listen, type Listening } from './helpers.js';

const json = { 'content-type': 'application/json' };

describe('one agent served to two sessions', () => {
  let model: OpenAITestServer;
  let http: Listening | undefined;
  let errors: unknown[];
  beforeEach(async () => {
    errors = [];
    model = await startOpenAITestServer({ handler: () => ({ text: 'ok' }) });
  });
  afterEach(async () => {
    await http?.close();
    http = undefined;
    await model.close();
  });
  const newAgent = () =>
    new Agent({ name: 'assistant', model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url }) });
  const post = (path: string, body: unknown) =>
    fetch(`${http!.url}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) });
  const sentToModel = () => JSON.stringify(model.requests.map((r) => r.body.messages));

  it('createAgentSseHandler without sessionId: a second request to the same agent is a 500 AgentSharedError, and its message never reaches the model', async () => {
    const agent = newAgent();
    http = await listen(
      createAgentSseHandler({
        onError: (e) => errors.push(e),
        events: async (_req, { body }) => agent.reply((await body()) as ReplyInput),
      }),
    );
    const alice = await post('/chat', 'my card is 4111');
    expect(eventsOf(await alice.text()).at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });

    const bob = await post('/chat', 'hello from bob');
    expect(bob.status).toBe(500);
    expect(errors).toHaveLength(1);
    const error = errors[0] as AgentSharedError;
    expect(error).toBeInstanceOf(AgentSharedError);
    expect(error.code).toBe('agent_shared');
    expect(error.message).toContain('agent "assistant"');
    expect(error.message).toContain('AgentSessions');
    expect(error.message).toContain('sessionId');
    expect(error.message).toContain('shared: true');
    expect(model.requests).toHaveLength(1);
    expect(sentToModel()).not.toContain('hello from bob');
    expect(JSON.stringify(agent.context)).not.toContain('hello from bob');
  });

  it('createAgentSseHandler with sessionId: the same session continues its agent, another session is refused', async () => {
    const agent = newAgent();
    http = await listen(
      createAgentSseHandler({
        onError: (e) => errors.push(e),
        sessionId: (req) => req.headers['x-session'] as string | undefined,
        events: async (_req, { body, sessionId }) => {
          expect(sessionId).toMatch(/^(alice|bob)$/);
          return agent.reply((await body()) as ReplyInput);
        },
      }),
    );
    const as = (session: string, message: string) =>
      fetch(`${http!.url}/chat`, {
        method: 'POST',
        headers: { ...json, 'x-session': session },
        body: JSON.stringify(message),
      });
    expect((await as('alice', 'one')).status).toBe(200);
    const again = await as('alice', 'two');
    expect(eventsOf(await again.text()).at(-1)).toMatchObject({ finishReason: 'completed' });
    expect((await as('bob', 'three')).status).toBe(500);
    expect((errors[0] as AgentSharedError).code).toBe('agent_shared');
    expect(sentToModel()).toContain('two');
    expect(sentToModel()).not.toContain('three');
  });

  it('createAgentSseHandler with shared: true serves one agent to every request, one conversation for all', async () => {
    const agent = newAgent();
    http = await listen(
      createAgentSseHandler({
        shared: true,
        onError: (e) => errors.push(e),
        events: async (_req, { body }) => agent.reply((await body()) as ReplyInput),
      }),
    );
    await (await post('/chat', 'first')).text();
    const second = await post('/chat', 'second');
    expect(eventsOf(await second.text()).at(-1)).toMatchObject({ finishReason: 'completed' });
    expect(errors).toEqual([]);
    // Declared shared: the second request's model call holds the first one's message.
    expect(JSON.stringify(model.requests[1]!.body.messages)).toContain('first');
  });

  it('streamAgentEvents (frameworks that own the response) refuses the second stream of one agent unless shared', async () => {
    const agent = newAgent();
    const other = newAgent();
    http = await listen((req, res) => {
      const shared = req.url === '/shared';
      const target = shared ? other : agent;
      return streamAgentEvents(
        res,
        defer(() => target.reply(`to ${req.url}`)),
        { shared, onError: (e) => errors.push(e) },
      );
    });
    expect((await post('/one', null)).status).toBe(200);
    expect((await post('/one', null)).status).toBe(500);
    expect((errors[0] as AgentSharedError).message).toContain('streamAgentEvents');
    expect((await post('/shared', null)).status).toBe(200);
    expect((await post('/shared', null)).status).toBe(200);
    expect(errors).toHaveLength(1);
  });

  const runInput = (threadId: string, content: string) => ({
    threadId,
    runId: `run-${content}`,
    messages: [{ id: `m-${content}`, role: 'user', content }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });

  it('createAgUiHandler refuses one Agent for two threads (given directly or by a factory that returns it twice)', async () => {
    const agent = newAgent();
    for (const option of [agent, () => agent]) {
      errors = [];
      http = await listen(createAgUiHandler({ agent: option, onError: (e) => errors.push(e) }));
      const before = model.requests.length;
      const alice = await post('/agui', runInput(`alice-${before}`, 'card 4111'));
      // The agent served alice's thread on the first round; on the second it is already taken.
      if (option === agent) expect(await alice.text()).toContain('"RUN_FINISHED"');
      const bob = await post('/agui', runInput('bob', 'hello from bob'));
      expect(bob.status).toBe(500);
      expect(errors.map((e) => (e as AgentSharedError).code)).toContain('agent_shared');
      expect((errors.at(-1) as AgentSharedError).message).toContain('createAgUiHandler');
      await http.close();
    }
    http = undefined;
    expect(sentToModel()).toContain('card 4111');
    expect(sentToModel()).not.toContain('hello from bob');
  });

  it('createAgUiHandler serves a factory agent per thread, and one Agent to every thread with shared: true', async () => {
    http = await listen(createAgUiHandler({ agent: () => newAgent(), onError: (e) => errors.push(e) }));
    for (const thread of ['alice', 'bob']) {
      expect(await (await post('/agui', runInput(thread, `hi from ${thread}`))).text()).toContain('"RUN_FINISHED"');
    }
    expect(JSON.stringify(model.requests[1]!.body.messages)).not.toContain('hi from alice');
    await http.close();

    // One conversation for all threads: each run brings only its new message (history: 'agent').
    http = await listen(
      createAgUiHandler({ agent: newAgent(), shared: true, history: 'agent', onError: (e) => errors.push(e) }),
    );
    for (const thread of ['carol', 'dave']) {
      expect(await (await post('/agui', runInput(thread, `hi from ${thread}`))).text()).toContain('"RUN_FINISHED"');
    }
    expect(errors).toEqual([]);
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).toContain('hi from carol');
  });
});
