// A client whose history differs from the conversation the server holds for the thread: the
// server's session is authoritative — what the client holds beyond it is given to the agent, a
// contradiction is a RUN_ERROR that says where, and nothing runs. Driven through @ag-ui/client's
// runAgent (in process) and HttpAgent (over HTTP), the model being the real OpenAIChatModel over
// the OpenAI test server.
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, Message } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';
import { Agent, defineTool } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { createAgUiHandler } from '../../node/ag-ui/index.js';
import { listen, type Listening } from '../../node/__tests__/helpers.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { RxscopeAgUiAgent } from './index.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an order up',
  input: z.object({ id: z.string() }),
  readOnly: true,
  execute: ({ id }) => `Order ${id}: shipped`,
});

describe('AG-UI history reconciliation', () => {
  let server: OpenAITestServer;
  let http: Listening | undefined;
  afterEach(async () => {
    await http?.close();
    http = undefined;
    await server?.close();
  });

  async function firstRun(script: NonNullable<NonNullable<Parameters<typeof startOpenAITestServer>[0]>['script']>) {
    server = await startOpenAITestServer({
      script: [
        { toolCalls: [{ id: 'c1', name: 'lookup', input: { id: 'A-1' } }] },
        { text: 'A-1 has shipped.' },
        ...script,
      ],
    });
    const agent = new Agent({
      name: 'support',
      model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url }),
      tools: [lookup],
    });
    const agUi = new RxscopeAgUiAgent({ agent, threadId: 'thread-1' });
    const errors: BaseEvent[] = [];
    agUi.subscribe({
      onEvent: ({ event }) => void EventSchema.parse(event),
      onRunErrorEvent: ({ event }) => void errors.push(event),
    });
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Where is A-1?' });
    await agUi.runAgent();
    return { agent, agUi, errors };
  }

  /** Runs the client with its messages replaced, as a client that edited its history would. */
  async function runWith(agUi: RxscopeAgUiAgent, messages: Message[]) {
    agUi.setMessages(messages);
    await agUi.runAgent().catch(() => undefined);
  }

  it('gives the agent only what is new when the client holds the same history', async () => {
    const { agUi, errors } = await firstRun([{ text: 'Anything else?' }]);
    agUi.addMessage({ id: 'u2', role: 'user', content: 'Thanks' });
    await agUi.runAgent();
    expect(errors).toEqual([]);
    const sent = server.requests[2]!.body.messages!;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content))).toEqual([
      JSON.stringify('Where is A-1?'),
      JSON.stringify('Thanks'),
    ]);
  });

  it("appends messages only the client holds (after the server's conversation) before the new one", async () => {
    const { agent, agUi, errors } = await firstRun([{ text: 'Berlin it is.' }]);
    agUi.addMessages([
      { id: 'u-note', role: 'user', content: 'I moved to Berlin.' },
      { id: 'a-note', role: 'assistant', content: 'Noted: Berlin.' },
      { id: 'u2', role: 'user', content: 'Ship the next one there.' },
    ]);
    await agUi.runAgent();
    expect(errors).toEqual([]);
    const sent = server.requests[2]!.body.messages!;
    expect(sent.slice(4)).toEqual([
      expect.objectContaining({ role: 'user', content: 'I moved to Berlin.' }),
      expect.objectContaining({ role: 'assistant', content: 'Noted: Berlin.' }),
      expect.objectContaining({ role: 'user', content: 'Ship the next one there.' }),
    ]);
    // The agent's conversation holds them now: the next run sees no difference.
    expect(agent.context.filter((m) => m.role === 'user').map((m) => m.id)).toEqual(['u1', 'u-note', 'u2']);
  });

  it('refuses an edited user message with a RUN_ERROR that names it; nothing runs', async () => {
    const { agent, agUi, errors } = await firstRun([]);
    const before = agent.context.length;
    const edited = agUi.messages.map((m) => (m.id === 'u1' ? { ...m, content: 'Where is B-2?' } : m)) as Message[];
    await runWith(agUi, [...edited, { id: 'u2', role: 'user', content: 'And?' }]);
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'history_diverged',
        message: expect.stringMatching(
          /user message "u1" was changed: the client has "Where is B-2\?", the session "Where is A-1\?"/,
        ) as string,
      }),
    ]);
    expect(server.requests).toHaveLength(2);
    expect(agent.context).toHaveLength(before);
  });

  it('refuses a history cut short (an answer to regenerate) instead of letting the model see what the user removed', async () => {
    const { agUi, errors } = await firstRun([]);
    await runWith(agUi, [
      { id: 'u1', role: 'user', content: 'Where is A-1?' },
      { id: 'u2', role: 'user', content: 'Try again' },
    ]);
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'history_diverged',
        message: expect.stringContaining(
          'where the session has tool call "c1" (lookup), the client has user message "u2" ("Try again")',
        ) as string,
      }),
    ]);
    expect(server.requests).toHaveLength(2);
  });

  it('refuses a history with another tool call where the session has its own', async () => {
    const { agUi, errors } = await firstRun([]);
    const swapped = agUi.messages.map((m) =>
      m.role === 'assistant' && m.toolCalls?.length
        ? { ...m, toolCalls: [{ ...m.toolCalls[0]!, id: 'c-other' }] }
        : m.role === 'tool'
          ? { ...m, toolCallId: 'c-other' }
          : m,
    ) as Message[];
    await runWith(agUi, [...swapped, { id: 'u2', role: 'user', content: 'And?' }]);
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'history_diverged',
        message: expect.stringContaining(
          'where the session has tool call "c1" (lookup), the client has tool call "c-other" (lookup)',
        ) as string,
      }),
    ]);
  });

  it('over HTTP: HttpAgent gets the RUN_ERROR for a divergence, and the next consistent run works', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'First.' }, { text: 'Second.' }] });
    const chat = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url });
    const handler = createAgUiHandler({ agent: (threadId) => new Agent({ model: chat, sessionId: threadId }) });
    http = await listen(async (req, res) => void (await handler(req, res)));
    const client = new HttpAgent({ url: `${http.url}/agui`, threadId: 'thread-9' });
    const errors: BaseEvent[] = [];
    client.subscribe({ onRunErrorEvent: ({ event }) => void errors.push(event) });
    client.addMessage({ id: 'u1', role: 'user', content: 'Hi' });
    await client.runAgent();
    const kept = client.messages;

    client.setMessages([
      { id: 'u1', role: 'user', content: 'Hello (edited)' },
      { id: 'u2', role: 'user', content: 'More' },
    ]);
    await client.runAgent().catch(() => undefined);
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'history_diverged',
        message: expect.stringContaining('"u1" was changed') as string,
      }),
    ]);
    expect(server.requests).toHaveLength(1);

    client.setMessages([...kept, { id: 'u2', role: 'user', content: 'More' }]);
    const { newMessages } = await client.runAgent();
    expect(newMessages).toEqual([expect.objectContaining({ role: 'assistant', content: 'Second.' })]);
  });
});
