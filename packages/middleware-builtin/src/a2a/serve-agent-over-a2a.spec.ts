import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { z } from 'zod';
import { type Message, Role, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { Agent, defineTool, OptionsError } from '@rxscope/core';
import { AgentSessions } from '@rxscope/core/node';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, testServerModel } from '../__tests__/helpers.js';
import { waitFor } from '../mcp/__tests__/servers.js';
import { serveAgentOverA2A, type ServedA2aAgent } from './index.js';

const userMessage = (text: string, ids: { contextId?: string; taskId?: string } = {}): Message => ({
  messageId: randomUUID(),
  contextId: ids.contextId ?? '',
  taskId: ids.taskId ?? '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const send = (message: Message) => ({ tenant: '', message, configuration: undefined, metadata: undefined });
const textOf = (parts: readonly { content?: { $case: string; value: unknown } }[] | undefined) =>
  (parts ?? []).map((p) => (p.content?.$case === 'text' ? (p.content.value as string) : '')).join('');
const asTask = (result: unknown): Task => {
  expect(result).toHaveProperty('status');
  return result as Task;
};

/** An agent served over A2A, driven by the official SDK's client over loopback HTTP. */
describe('serveAgentOverA2A with the @a2a-js/sdk client', () => {
  jest.setTimeout(30_000);
  let server: OpenAITestServer;
  let served: ServedA2aAgent | undefined;
  let refunds: number[];

  const refund = () =>
    defineTool({
      name: 'refund',
      description: 'Refunds an order',
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: ({ amount }) => {
        refunds.push(amount);
        return `refunded ${amount}`;
      },
    });
  const agentFor = (contextId: string) =>
    new Agent({ name: 'support', model: testServerModel(server), tools: [refund()], sessionId: contextId });
  const start = async (): Promise<{ served: ServedA2aAgent; client: Client }> => {
    served = await serveAgentOverA2A(agentFor, { card: { name: 'support', description: 'Answers about orders.' } });
    return { served, client: await new ClientFactory().createFromUrl(served.url) };
  };

  beforeEach(async () => {
    refunds = [];
    server = await startOpenAITestServer();
  });
  afterEach(async () => {
    await served?.close();
    served = undefined;
    await closeTestServer(server);
  });

  it('serves the Agent Card at /.well-known/agent-card.json', async () => {
    const { served } = await start();
    const response = await fetch(new URL('.well-known/agent-card.json', served.url));
    expect(response.status).toBe(200);
    const card = (await response.json()) as Record<string, unknown>;
    expect(card).toMatchObject({
      name: 'support',
      description: 'Answers about orders.',
      supportedInterfaces: [
        { url: served.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: served.url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
      capabilities: { streaming: true },
      skills: [{ id: 'support', name: 'support' }],
    });
  });

  it('SendMessage runs one reply as a task: its text as an artifact, completed with the usage, and GetTask reads it', async () => {
    const { client } = await start();
    server.enqueue({ text: ['Your order ', 'ships tomorrow.'], usage: { inputTokens: 12, outputTokens: 5 } });
    const task = asTask(await client.sendMessage(send(userMessage('Where is my order?'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((a) => textOf(a.parts)).join('')).toBe('Your order ships tomorrow.');
    expect(textOf(task.status?.message?.parts)).toBe('Your order ships tomorrow.');
    expect(task.status?.message?.metadata).toMatchObject({ usage: { inputTokens: 12, outputTokens: 5 } });
    expect(server.requests[0]!.body.messages!.at(-1)).toMatchObject({ role: 'user', content: 'Where is my order?' });
    const read = await client.getTask({ tenant: '', id: task.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.contextId).toBe(task.contextId);
  });

  it('SendStreamingMessage streams the task, its tool calls as working updates, text chunks, then the final status', async () => {
    const { client } = await start();
    server.enqueue(
      { toolCalls: [{ name: 'refund', input: { amount: 1 } }] }, // asks for a confirmation
    );
    const events: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(send(userMessage('Refund 1')))) events.push(e);
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    const statuses = events.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value] : []));
    expect(statuses.map((s) => s.status?.state)).toEqual([
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_WORKING, // calling refund
      TaskState.TASK_STATE_INPUT_REQUIRED,
    ]);
    expect(textOf(statuses[1]!.status?.message?.parts)).toBe('Calling refund');

    // The client's next message on the task answers the confirmation; the reply goes on.
    const taskId = statuses[0]!.taskId;
    const contextId = statuses[0]!.contextId;
    server.enqueue({ text: ['Refunded ', 'one.'], chunkDelayMs: 5 });
    const more: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(send(userMessage('yes', { taskId, contextId })))) more.push(e);
    expect(refunds).toEqual([1]);
    const artifacts = more.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
    expect(artifacts.map((a) => textOf(a.artifact?.parts))).toEqual(['Refunded ', 'one.']);
    expect(artifacts.map((a) => a.append)).toEqual([false, true]);
    const last = more.at(-1)!.payload;
    expect(last?.$case).toBe('statusUpdate');
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('input-required carries the calls; a "no" (or data {approve: false}) denies them and nothing runs', async () => {
    const { client } = await start();
    server.enqueue({ toolCalls: [{ name: 'refund', input: { amount: 500 } }] }, { text: 'I did not refund it.' });
    const waiting = asTask(await client.sendMessage(send(userMessage('Refund 500'))));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const data = waiting.status?.message?.parts.find((p) => p.content?.$case === 'data')?.content?.value as {
      toolCalls: { name: string; input: unknown }[];
    };
    expect(data.toolCalls).toMatchObject([{ name: 'refund', input: { amount: 500 } }]);
    const ids = { taskId: waiting.id, contextId: waiting.contextId };
    const done = asTask(await client.sendMessage(send(userMessage('No, too much.', ids))));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.id).toBe(waiting.id);
    expect(refunds).toEqual([]);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('No, too much.');
  });

  it("speaks A2A 0.3 too: message/send, message/stream, tasks/get and tasks/cancel from the SDK's 0.3 transport", async () => {
    const { served } = await start();
    const legacy = new LegacyJsonRpcTransport({ endpoint: served.url });
    server.enqueue({ text: 'Ships tomorrow.' }, { text: ['Still ', 'tomorrow.'] }, { text: ['Hm'], fault: 'stall' });
    const task = asTask(await legacy.sendMessage(send(userMessage('When?'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message?.parts)).toBe('Ships tomorrow.');
    expect((await legacy.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const streamed: StreamResponse[] = [];
    for await (const e of legacy.sendMessageStream(send(userMessage('Sure?', { contextId: task.contextId }))))
      streamed.push(e);
    const chunks = streamed.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
    expect(chunks.map((a) => textOf(a.artifact?.parts)).join('')).toBe('Still tomorrow.');
    let taskId = '';
    const reading = (async () => {
      for await (const e of legacy.sendMessageStream(send(userMessage('And?')))) {
        if (e.payload?.$case === 'task') taskId = e.payload.value.id;
      }
    })();
    await waitFor(() => server.requests.length === 3 && taskId !== '', 'the third model request');
    const cancelled = await legacy.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await waitFor(() => server.requests[2]!.clientClosed, 'the model request to be aborted');
    await reading;
  });

  it('CancelTask cancels the reply and its model request', async () => {
    const { client } = await start();
    server.enqueue({ text: ['Looking it up'], fault: 'stall' });
    const stream = client.sendMessageStream(send(userMessage('Where?')));
    let taskId = '';
    let final: TaskState | undefined;
    const reading = (async () => {
      for await (const e of stream) {
        if (e.payload?.$case === 'task') taskId = e.payload.value.id;
        if (e.payload?.$case === 'statusUpdate') final = e.payload.value.status?.state;
      }
    })();
    await waitFor(() => server.requests.length > 0 && taskId !== '', 'the model request');
    const cancelled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await waitFor(() => server.requests[0]!.clientClosed, 'the model request to be aborted');
    await reading;
    expect(final).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('an input-required task can be cancelled; the context goes on with a new message', async () => {
    const { client } = await start();
    server.enqueue({ toolCalls: [{ name: 'refund', input: { amount: 9 } }] }, { text: 'Something else then.' });
    const waiting = asTask(await client.sendMessage(send(userMessage('Refund 9'))));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const cancelled = await client.cancelTask({ tenant: '', id: waiting.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const next = asTask(await client.sendMessage(send(userMessage('Never mind.', { contextId: waiting.contextId }))));
    expect(next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(refunds).toEqual([]);
  });

  it('one conversation per A2A context: the same context goes on, another starts afresh', async () => {
    const { client } = await start();
    server.enqueue({ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' });
    const first = asTask(await client.sendMessage(send(userMessage('Order 1?'))));
    await client.sendMessage(send(userMessage('And then?', { contextId: first.contextId })));
    await client.sendMessage(send(userMessage('Order 2?', { contextId: randomUUID() })));
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('Order 1?');
    expect(JSON.stringify(server.requests[2]!.body.messages)).not.toContain('Order 1?');
  });

  it('a context idle for idleTimeoutMs has its agent dropped; a running reply keeps it', async () => {
    const made: string[] = [];
    served = await serveAgentOverA2A(
      (contextId: string) => {
        made.push(contextId);
        return agentFor(contextId);
      },
      { card: { name: 'support', description: 'Answers about orders.' }, idleTimeoutMs: 250 },
    );
    const client = await new ClientFactory().createFromUrl(served.url);
    // A reply longer than the idle time (started while the first one's idle timer ran), then a
    // message right after it: still the same agent.
    server.enqueue({ text: 'One.' }, { text: ['a', 'b', 'c', 'd'], chunkDelayMs: 120 }, { text: 'Three.' });
    const first = asTask(await client.sendMessage(send(userMessage('First?'))));
    const contextId = first.contextId;
    await client.sendMessage(send(userMessage('Second?', { contextId })));
    await client.sendMessage(send(userMessage('Third?', { contextId })));
    expect(made).toEqual([contextId]);
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain('First?');
    // Idle past the limit: the next message of the context gets a new agent (a new conversation here, no store).
    await new Promise((r) => setTimeout(r, 500));
    server.enqueue({ text: 'Four.' });
    await client.sendMessage(send(userMessage('Fourth?', { contextId })));
    expect(made).toEqual([contextId, contextId]);
    expect(JSON.stringify(server.requests[3]!.body.messages)).not.toContain('First?');
  });

  it('serves the sessions of an AgentSessions: an A2A context is the session of its id', async () => {
    const sessions = new AgentSessions({ agent: agentFor });
    served = await serveAgentOverA2A(sessions, { card: { name: 'support', description: 'Answers about orders.' } });
    const client = await new ClientFactory().createFromUrl(served.url);
    server.enqueue({ text: 'Noted.' });
    const task = asTask(await client.sendMessage(send(userMessage('Remember order 42.'))));
    const agent = await sessions.agent(task.contextId);
    expect(agent.sessionId).toBe(task.contextId);
    expect(JSON.stringify(agent.context)).toContain('Remember order 42.');
    await sessions.close();
  });

  it('mounts on an Express app of yours, which listens; the card names the url given', async () => {
    const app = express();
    app.get('/health', (_, res) => void res.send('ok'));
    const http = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => http.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
      served = await serveAgentOverA2A(agentFor('ctx'), { card: { description: 'Support.' }, app, url });
      expect(served.card.supportedInterfaces[0]!.url).toBe(url);
      const client = await new ClientFactory().createFromUrl(url);
      server.enqueue({ text: 'Mounted.' });
      const task = asTask(await client.sendMessage(send(userMessage('Hi'))));
      expect(textOf(task.status?.message?.parts)).toBe('Mounted.');
      expect(await (await fetch(`${url}health`)).text()).toBe('ok');
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it('refuses bad options at once, with "did you mean"', async () => {
    const agent = agentFor('x');
    const refusal = (options: object) =>
      serveAgentOverA2A(agent, options as never).then(
        () => undefined,
        (e: unknown) => e,
      );
    const typo = await refusal({ card: { description: 'd' }, prot: 1 });
    expect(typo).toBeInstanceOf(OptionsError);
    expect((typo as Error).message).toMatch(/did you mean "port"/);
    await expect(refusal({ card: { descripton: 'd' } })).resolves.toMatchObject({ code: 'unknown_option' });
    await expect(refusal({ card: { description: 'd' }, idleTimeoutMs: 0 })).resolves.toMatchObject({
      code: 'invalid_option',
    });
    await expect(refusal({ card: {} })).resolves.toMatchObject({ message: expect.stringMatching(/`description`/) });
    await expect(refusal({ card: { description: 'd' }, app: {} })).resolves.toMatchObject({
      message: expect.stringMatching(/give `url`/),
    });
  });
});
