// What an AG-UI frontend sees beyond the basic stream: the run input taken whole (history,
// context, state), an open interrupt kept open, media tool results, subagent runs, usage per
// model, capabilities. Driven through @ag-ui/client's runAgent (its verifier and reducer) or its
// verifyEvents, every event validated with @ag-ui/core's EventSchema, the model being the real
// OpenAIChatModel over the OpenAI test server.
import { verifyEvents } from '@ag-ui/client';
import { EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, defineTool, type Tool } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { RxscopeAgUiAgent } from './index.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('AG-UI conformance of RxscopeAgUiAgent', () => {
  let server: OpenAITestServer;
  afterEach(async () => server?.close());

  async function setUp(script: Parameters<typeof startOpenAITestServer>[0], made: Tool[] = []) {
    server = await startOpenAITestServer(script);
    const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url });
    const agUi = new RxscopeAgUiAgent({
      agent: (threadId) => new Agent({ name: 'support', model, tools: made, sessionId: threadId }),
      threadId: 'thread-1',
    });
    const events: BaseEvent[] = [];
    agUi.subscribe({ onEvent: ({ event }) => void events.push(EventSchema.parse(event)) });
    return { agUi, events, model };
  }

  it('gives a fresh agent the whole history the client holds, and the context as grounding', async () => {
    const { agUi } = await setUp({ script: [{ text: 'It is 42.' }] });
    agUi.addMessages([
      { id: 'u1', role: 'user', content: 'Look up order A-1' },
      {
        id: 'a1',
        role: 'assistant',
        content: 'Looking.',
        toolCalls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"id":"A-1"}' } }],
      },
      { id: 't1', role: 'tool', toolCallId: 'c1', content: 'A-1 shipped' },
      { id: 'a2', role: 'assistant', content: 'A-1 has shipped.' },
      { id: 'u2', role: 'user', content: 'And the answer?' },
    ]);
    await agUi.runAgent({ context: [{ description: 'The user is on page', value: '/orders/A-1' }] });
    const sent = server.requests[0]!.body.messages!;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent[1]).toMatchObject({
      content: 'Looking.',
      tool_calls: [{ id: 'c1', function: { name: 'lookup', arguments: '{"id":"A-1"}' } }],
    });
    expect(sent[2]).toMatchObject({ tool_call_id: 'c1', content: 'A-1 shipped' });
    expect(JSON.stringify(sent[4]!.content)).toContain('And the answer?');
    expect(JSON.stringify(sent[4]!.content)).toContain('The user is on page: /orders/A-1');
  });

  it('refuses a shared state that is not a JSON object clearly instead of ignoring it', async () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const { agUi } = await setUp({ script: [{ text: 'x' }] });
    agUi.setState(['A-1'] as never);
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Hi' });
    await expect(agUi.runAgent()).rejects.toThrow(
      /RunAgentInput.state is the shared state, a JSON object; got an array/,
    );
    expect(server.requests).toHaveLength(0);
    jest.restoreAllMocks();
  });

  it('keeps an open interrupt open when a new message arrives without an answer: RUN_ERROR, nothing run', async () => {
    const refunded: string[] = [];
    const { agUi } = await setUp(
      { script: [{ toolCalls: [{ id: 'r1', name: 'refund', input: { id: 'B-2' } }] }, { text: 'Done.' }] },
      [
        defineTool({
          name: 'refund',
          description: 'Refunds',
          input: z.object({ id: z.string() }),
          needsApproval: true,
          execute: ({ id }) => (refunded.push(id), 'ok'),
        }),
      ],
    );
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Refund B-2' });
    await agUi.runAgent();
    // A client that skips the coverage check (the reference client refuses before sending).
    const input: RunAgentInput = {
      threadId: 'thread-1',
      runId: 'run-x',
      messages: [...agUi.messages, { id: 'u2', role: 'user', content: 'Never mind, something else' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    };
    const events = await lastValueFrom(agUi.run(input).pipe(verifyEvents(false), toArray()));
    expect(events).toEqual([
      expect.objectContaining({
        type: 'RUN_ERROR',
        code: 'interrupt_pending',
        message: expect.stringContaining('r1 (refund)') as string,
      }),
    ]);
    expect(refunded).toEqual([]);
    expect(agUi.agentFor('thread-1').pending?.confirm.map((c) => c.id)).toEqual(['r1']);
    // The interrupt can still be answered.
    await agUi.runAgent({ resume: [{ interruptId: 'r1', status: 'resolved', payload: { approved: true } }] });
    expect(refunded).toEqual(['B-2']);
  });

  it('sends media returned by a tool as content parts, not a placeholder', async () => {
    const { agUi, events } = await setUp(
      { script: [{ toolCalls: [{ id: 'p1', name: 'chart', input: {} }] }, { text: 'Here it is.' }] },
      [
        defineTool({
          name: 'chart',
          description: 'Draws',
          input: z.object({}),
          readOnly: true,
          execute: () => [
            { type: 'text' as const, text: 'Chart:' },
            { type: 'data' as const, mediaType: 'image/png', data: PNG },
          ],
        }),
      ],
    );
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Draw' });
    const { newMessages } = await agUi.runAgent();
    const result = events.find((e) => e.type === EventType.TOOL_CALL_RESULT) as unknown as { content: unknown };
    expect(result.content).toEqual([
      { type: 'text', text: 'Chart:' },
      { type: 'image', source: { type: 'data', value: PNG, mimeType: 'image/png' } },
    ]);
    expect(newMessages.find((m) => m.role === 'tool')).toMatchObject({
      content: [{ type: 'text' }, { type: 'image' }],
    });
  });

  it('streams a subagent as its own run inside the run (SUBAGENT_STARTED … FINISHED), usage per model including it', async () => {
    server = await startOpenAITestServer({
      script: [
        {
          toolCalls: [{ id: 'd1', name: 'researcher', input: { message: 'Find A-1' } }],
          usage: { inputTokens: 10, outputTokens: 2 },
        },
        { text: 'A-1 is in Lyon.', usage: { inputTokens: 5, outputTokens: 3 } },
        { text: 'The researcher says Lyon.', usage: { inputTokens: 30, outputTokens: 4 } },
      ],
    });
    const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url });
    const researcher = new Agent({ name: 'researcher', model });
    const agUi = new RxscopeAgUiAgent({
      agent: new Agent({ name: 'lead', model, tools: [researcher.asTool({ description: 'Researches.' })] }),
    });
    const events: BaseEvent[] = [];
    agUi.subscribe({ onEvent: ({ event }) => void events.push(EventSchema.parse(event)) });
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Where is A-1?' });
    const { newMessages } = await agUi.runAgent();

    const started = events.find((e) => e.type === EventType.SUBAGENT_STARTED) as unknown as {
      subagentRunId: string;
      name: string;
      parentToolCallId: string;
    };
    expect(started).toMatchObject({ name: 'researcher', parentToolCallId: 'd1' });
    const inner = events.filter((e) => (e as { subagentRunId?: string }).subagentRunId === started.subagentRunId);
    expect(inner.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'STEP_STARTED',
        'TEXT_MESSAGE_START',
        'TEXT_MESSAGE_CONTENT',
        'TEXT_MESSAGE_END',
        'SUBAGENT_FINISHED',
      ]),
    );
    // Not folded into CUSTOM events.
    expect(
      events
        .filter((e) => e.type === EventType.CUSTOM)
        .map((e) => (e as unknown as { value: { source?: string } }).value.source),
    ).not.toContain('researcher');
    expect(newMessages).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          role: 'assistant',
          content: 'A-1 is in Lyon.',
          subagentRunId: started.subagentRunId,
        }),
      ]),
    );
    expect(events.at(-1)).toMatchObject({
      usage: [{ provider: 'openai', model: 'm', inputTokens: 45, outputTokens: 9, totalTokens: 54 }],
    });
  });

  it('reports no usage on a RUN_ERROR whose only call failed (no invented zeros)', async () => {
    const { agUi, events } = await setUp({ script: [{ fault: 'unauthorized' }] });
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Hi' });
    await agUi.runAgent({}, { onRunErrorEvent: () => undefined });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_ERROR' });
    expect(events.at(-1)).not.toHaveProperty('usage');
  });

  it('describes itself with getCapabilities()', async () => {
    server = await startOpenAITestServer({ script: [] });
    const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url });
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks up',
      input: z.object({ id: z.string() }),
      execute: () => 'x',
    });
    const caps = await new RxscopeAgUiAgent({
      agent: new Agent({ name: 'support', model, tools: [lookup] }),
    }).getCapabilities();
    expect(caps).toMatchObject({
      identity: { name: 'support', type: 'rxscope', metadata: { protocolVersion: '1.0' } },
      transport: { streaming: true },
      tools: {
        supported: true,
        items: [
          {
            name: 'lookup',
            description: 'Looks up',
            parameters: { type: 'object', properties: { id: { type: 'string' } } },
          },
        ],
      },
      humanInTheLoop: { interrupts: true, approveWithEdits: true },
    });
  });
});
