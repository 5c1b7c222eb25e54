// The AG-UI HTTP endpoint driven by @ag-ui/client's own HttpAgent over a real socket: runs,
// interrupts and resume, abort (the model request is cancelled), and input validation.
import { HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';
import { Agent, defineTool, InMemorySessionStore } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { createAgUiHandler } from '../ag-ui/index.js';
import type { StreamOutcome } from '../index.js';
import { listen, waitFor, type Listening } from './helpers.js';

const approvals: string[] = [];
const approve = defineTool({
  name: 'approve',
  description: 'Approves an expense',
  input: z.object({ id: z.string() }),
  needsApproval: true,
  execute: ({ id }) => (approvals.push(id), `Approved ${id}`),
});

describe('createAgUiHandler with HttpAgent', () => {
  let model: OpenAITestServer;
  let http: Listening;
  let outcomes: StreamOutcome[];
  afterEach(async () => {
    await http?.close();
    await model?.close();
  });

  async function setUp(script: Parameters<typeof startOpenAITestServer>[0]) {
    model = await startOpenAITestServer(script);
    const chat = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url });
    const handler = createAgUiHandler({
      agent: (threadId) => new Agent({ name: 'clerk', model: chat, tools: [approve], sessionId: threadId }),
    });
    outcomes = [];
    http = await listen(async (req, res) => outcomes.push(await handler(req, res)));
    const client = new HttpAgent({ url: `${http.url}/agui`, threadId: 'thread-7' });
    const events: BaseEvent[] = [];
    client.subscribe({ onEvent: ({ event }) => void events.push(EventSchema.parse(event)) });
    return { client, events };
  }

  it('runs a conversation over HTTP: streamed text, the messages built by the client, two runs on one thread', async () => {
    const { client, events } = await setUp({ script: [{ text: ['Hello ', 'there.'] }, { text: 'Second answer.' }] });
    client.addMessage({ id: 'u1', role: 'user', content: 'Hi' });
    const first = await client.runAgent();
    expect(first.newMessages).toEqual([expect.objectContaining({ role: 'assistant', content: 'Hello there.' })]);
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: 'thread-7' });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });

    client.addMessage({ id: 'u2', role: 'user', content: 'And?' });
    const second = await client.runAgent();
    expect(second.newMessages).toEqual([expect.objectContaining({ role: 'assistant', content: 'Second answer.' })]);
    // The server-side agent of the thread kept the conversation: the model saw both turns.
    expect(model.requests[1]!.body.messages!.filter((m) => m.role === 'user')).toHaveLength(2);
    expect(outcomes).toEqual(['completed', 'completed']);
  });

  it('interrupts for a confirmation and resumes it in the next run', async () => {
    const { client, events } = await setUp({
      script: [{ toolCalls: [{ id: 'x1', name: 'approve', input: { id: 'E-9' } }] }, { text: 'Approved.' }],
    });
    approvals.length = 0;
    client.addMessage({ id: 'u1', role: 'user', content: 'Approve E-9' });
    await client.runAgent();
    expect(client.pendingInterrupts).toEqual([
      expect.objectContaining({ id: 'x1', toolCallId: 'x1', reason: 'tool_call' }),
    ]);
    await client.runAgent({ resume: [{ interruptId: 'x1', status: 'resolved', payload: { approved: true } }] });
    expect(approvals).toEqual(['E-9']);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(client.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Approved.' });
  });

  it('answers confirmations over HTTP with approval, denial and edited arguments', async () => {
    const { client, events } = await setUp({
      script: [
        { toolCalls: [{ id: 'a1', name: 'approve', input: { id: 'E-1' } }] },
        { text: 'Approved E-1.' },
        { toolCalls: [{ id: 'a2', name: 'approve', input: { id: 'E-2' } }] },
        { text: 'Left E-2 alone.' },
        { toolCalls: [{ id: 'a3', name: 'approve', input: { id: 'E-3' } }] },
        { text: 'Approved E-4 instead.' },
      ],
    });
    approvals.length = 0;
    const results = () =>
      events.filter((e) => e.type === EventType.TOOL_CALL_RESULT) as unknown as {
        toolCallId: string;
        content: string;
        metadata: unknown;
      }[];
    const ask = async (id: string, text: string) => {
      client.addMessage({ id, role: 'user', content: text });
      await client.runAgent();
      expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
    };

    await ask('u1', 'Approve E-1');
    await client.runAgent({ resume: [{ interruptId: 'a1', status: 'resolved', payload: { approved: true } }] });
    await ask('u2', 'Approve E-2');
    await client.runAgent({
      resume: [{ interruptId: 'a2', status: 'resolved', payload: { approved: false, reason: 'Over budget' } }],
    });
    await ask('u3', 'Approve E-3');
    await client.runAgent({
      resume: [{ interruptId: 'a3', status: 'resolved', payload: { approved: true, editedArgs: { id: 'E-4' } } }],
    });

    expect(approvals).toEqual(['E-1', 'E-4']);
    expect(results()).toEqual([
      expect.objectContaining({
        toolCallId: 'a1',
        content: 'Approved E-1',
        metadata: { rxscope: { status: 'success' } },
      }),
      expect.objectContaining({ toolCallId: 'a2', metadata: { rxscope: { status: 'denied' } } }),
      expect.objectContaining({
        toolCallId: 'a3',
        content: 'Approved E-4',
        metadata: { rxscope: { status: 'success' } },
      }),
    ]);
    expect(results()[1]!.content).toContain('Over budget');
    expect(client.pendingInterrupts).toEqual([]);
    expect(client.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Approved E-4 instead.' });
  });

  it('abortRun() closes the request, which cancels the reply and its model request', async () => {
    const { client, events } = await setUp({ script: [{ text: ['Long ', 'story'], fault: 'stall' }] });
    client.addMessage({ id: 'u1', role: 'user', content: 'Story' });
    const run = client.runAgent().catch((e: unknown) => e);
    await waitFor(() => events.some((e) => e.type === EventType.TEXT_MESSAGE_CONTENT));
    client.abortRun();
    await run;
    await waitFor(() => outcomes.length === 1);
    expect(outcomes).toEqual(['client_closed']);
    await waitFor(() => model.requests[0]!.clientClosed, 3000, 'the model request to be aborted');
    await model.waitForConnections(0);
  });

  it('refuses what is not a RunAgentInput, and a run with nothing new, before streaming', async () => {
    await setUp({ script: [] });
    const bad = await fetch(`${http.url}/agui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: 't' }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: 'invalid_run_input', message: expect.stringContaining('Not a RunAgentInput') as string },
    });
    expect((await fetch(`${http.url}/agui`)).status).toBe(405);
    const empty = await fetch(`${http.url}/agui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        threadId: 't',
        runId: 'r',
        messages: [],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
    });
    expect(empty.status).toBe(409);
    expect(await empty.text()).toContain('needs a new user message');
  });

  it("maps a frontend's regenerate and edit-and-resend onto a rewind of the thread's session", async () => {
    model = await startOpenAITestServer({
      script: [
        { text: 'First answer.' },
        { text: 'Second answer.' },
        { text: 'Regenerated.' },
        { text: 'Edited answer.' },
      ],
    });
    const chat = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url });
    const store = new InMemorySessionStore();
    const handler = createAgUiHandler({
      agent: (threadId) => new Agent({ name: 'clerk', model: chat, store, sessionId: threadId }),
    });
    http = await listen(async (req, res) => void (await handler(req, res)));
    const client = new HttpAgent({ url: `${http.url}/agui`, threadId: 'thread-r' });
    const errors: BaseEvent[] = [];
    client.subscribe({ onRunErrorEvent: ({ event }) => void errors.push(event) });
    client.addMessage({ id: 'u1', role: 'user', content: 'Name a colour' });
    await client.runAgent();
    client.addMessage({ id: 'u2', role: 'user', content: 'Another one' });
    await client.runAgent();
    const userTurns = (i: number) => model.requests[i]!.body.messages!.map((m) => [m.role, m.content]);

    // Regenerate: the client drops the last answer and runs the thread again.
    client.setMessages(client.messages.slice(0, -1));
    const regenerated = await client.runAgent();
    expect(regenerated.newMessages).toEqual([expect.objectContaining({ role: 'assistant', content: 'Regenerated.' })]);
    expect(userTurns(2)).toEqual([
      ['user', 'Name a colour'],
      ['assistant', 'First answer.'],
      ['user', 'Another one'],
    ]);
    const stored = async () =>
      (await store.load('thread-r'))!.state.context.map((m) =>
        m.content.map((b) => ('text' in b ? b.text : '')).join(''),
      );
    expect(await stored()).toEqual(['Name a colour', 'First answer.', 'Another one', 'Regenerated.']);

    // Edit and resend: the client changes its first message and drops what came after it.
    client.setMessages([{ id: 'u1', role: 'user', content: 'Name a fruit' }]);
    const edited = await client.runAgent();
    expect(edited.newMessages).toEqual([expect.objectContaining({ role: 'assistant', content: 'Edited answer.' })]);
    expect(userTurns(3)).toEqual([['user', 'Name a fruit']]);
    expect(await stored()).toEqual(['Name a fruit', 'Edited answer.']);
    expect(errors).toEqual([]);
  });
});
