// The UI message stream read by the AI SDK's own client code (ai 6): DefaultChatTransport (what
// useChat sends with; it validates every chunk with the SDK's uiMessageChunkSchema) and
// readUIMessageStream (what folds the chunks into the UIMessage useChat shows). The model is the
// real OpenAIChatModel over the OpenAI test server.
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, defineTool, fromAgentEventStream, toEventStreamResponse } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeHandlerOf } from '../../node/index.js';
import { createUIMessageStreamHandler } from './index.js';

const refunds: string[] = [];
const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order',
  input: z.object({ order: z.string() }),
  needsApproval: true,
  execute: ({ order }) => (refunds.push(order), `Refunded ${order}`),
});
const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an order up',
  input: z.object({ order: z.string() }),
  execute: ({ order }, toolCtx) => {
    toolCtx.emit({ message: `looking up ${order}`, progress: 1, total: 1 });
    toolCtx.sharedState!.set({ order, status: 'shipped' });
    return { order, status: 'shipped' };
  },
});

describe('createUIMessageStreamHandler with the AI SDK client', () => {
  let server: OpenAITestServer;
  afterEach(async () => server?.close());

  async function setUp(script: Parameters<typeof startOpenAITestServer>[0]) {
    server = await startOpenAITestServer(script);
    const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url });
    const handler = createUIMessageStreamHandler({
      heartbeatMs: 0,
      agent: (chatId) => new Agent({ name: 'shop', model, tools: [refund, lookup], sessionId: chatId }),
    });
    const transport = new DefaultChatTransport<UIMessage>({
      api: 'http://shop.test/api/chat',
      fetch: (url, init) => handler(new Request(url, init)),
    });
    /** Sends like useChat does and folds the answer like useChat does: the last assistant message. */
    const send = async (messages: UIMessage[], trigger: 'submit-message' | 'regenerate-message' = 'submit-message') => {
      const stream = await transport.sendMessages({
        chatId: 'c1',
        messages,
        trigger,
        messageId: undefined,
        abortSignal: undefined,
      });
      let message: UIMessage | undefined;
      // useChat continues the last message when it is the assistant's (an approval answered in it).
      const last = messages.at(-1)?.role === 'assistant' ? messages.at(-1) : undefined;
      for await (const m of readUIMessageStream({ stream, terminateOnError: true, ...(last ? { message: last } : {}) }))
        message = m;
      return message!;
    };
    return { handler, send };
  }

  const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

  it('streams text, tool input and output, progress and shared state as data parts, usage as metadata', async () => {
    const { send } = await setUp({
      script: [
        {
          thinking: 'Check it.',
          toolCalls: [{ id: 'l1', name: 'lookup', input: { order: 'A-1' } }],
          usage: { inputTokens: 10, outputTokens: 3 },
        },
        { text: ['A-1 has ', 'shipped.'], usage: { inputTokens: 20, outputTokens: 5 } },
      ],
    });
    const answer = await send([user('u1', 'Where is A-1?')]);
    const types = answer.parts.map((p) => p.type);
    expect(types).toEqual(
      expect.arrayContaining(['reasoning', 'tool-lookup', 'data-tool-progress', 'data-shared-state', 'text']),
    );
    expect(answer.parts.find((p) => p.type === 'tool-lookup')).toMatchObject({
      toolCallId: 'l1',
      state: 'output-available',
      input: { order: 'A-1' },
      output: { order: 'A-1', status: 'shipped' },
    });
    expect(answer.parts.find((p) => p.type === 'data-shared-state')).toMatchObject({
      data: { order: 'A-1', status: 'shipped' },
    });
    expect(
      answer.parts
        .filter((p) => p.type === 'text')
        .map((p) => (p as { text: string }).text)
        .join(''),
    ).toBe('A-1 has shipped.');
    expect(answer.metadata).toMatchObject({
      finishReason: 'completed',
      usage: { inputTokens: 30, outputTokens: 8, totalTokens: 38 },
    });
  });

  it('asks for approval with a tool-approval-request and runs the call once the client approves it', async () => {
    refunds.length = 0;
    const { send } = await setUp({
      script: [{ toolCalls: [{ id: 'r1', name: 'refund', input: { order: 'B-2' } }] }, { text: 'Refunded.' }],
    });
    const asked = await send([user('u1', 'Refund B-2')]);
    const part = asked.parts.find((p) => p.type === 'tool-refund') as { state: string; approval: { id: string } };
    expect(part).toMatchObject({ state: 'approval-requested', approval: { id: 'r1' } });
    expect(refunds).toEqual([]);
    // What useChat's addToolApprovalResponse leaves in the message, then sends.
    const answered = {
      ...asked,
      parts: asked.parts.map((p) =>
        p === (part as unknown) ? { ...part, state: 'approval-responded', approval: { id: 'r1', approved: true } } : p,
      ),
    } as UIMessage;
    const done = await send([user('u1', 'Refund B-2'), answered]);
    expect(refunds).toEqual(['B-2']);
    expect(done.parts.find((p) => p.type === 'tool-refund')).toMatchObject({
      state: 'output-available',
      output: 'Refunded B-2',
    });
    expect(done.parts.at(-1)).toMatchObject({ type: 'text', text: 'Refunded.' });
  });

  it('regenerates the last answer, and refuses a diverged history with history_diverged (nothing runs)', async () => {
    const { send, handler } = await setUp({
      script: [
        { text: 'First.' },
        { text: 'Second.' },
        { toolCalls: [{ id: 'l1', name: 'lookup', input: { order: 'A-1' } }] },
        { text: 'Shipped.' },
      ],
    });
    const first = await send([user('u1', 'Hi')]);
    expect(first.parts.at(-1)).toMatchObject({ text: 'First.' });
    const again = await send([user('u1', 'Hi')], 'regenerate-message');
    expect(again.parts.at(-1)).toMatchObject({ text: 'Second.' });
    expect(server.requests[1]!.body.messages!.map((m) => m.role)).toEqual(['user']); // 'First.' was rewound
    const looked = await send([user('u1', 'Hi'), again, user('u2', 'Where is A-1?')]);
    expect(server.requests).toHaveLength(4);
    const forged = {
      ...looked,
      parts: looked.parts.map((p) => (p.type === 'tool-lookup' ? { ...p, toolCallId: 'l9' } : p)),
    } as UIMessage;

    const res = await handler(
      new Request('http://shop.test/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 'c1',
          trigger: 'submit-message',
          messages: [user('u1', 'Hi'), again, user('u2', 'Where is A-1?'), forged, user('u3', 'Next')],
        }),
      }),
    );
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      error: {
        code: 'history_diverged',
        message: expect.stringContaining(
          'where the session has tool call "l1" (lookup), the client has tool call "l9" (lookup)',
        ) as string,
      },
    });
    expect(server.requests).toHaveLength(4);
  });

  it('answers bad requests with a clear 4xx before anything runs', async () => {
    const { handler } = await setUp({ script: [] });
    const post = (body: string, type = 'application/json', method = 'POST') =>
      handler(
        new Request('http://shop.test/api/chat', {
          method,
          headers: { 'content-type': type },
          ...(method === 'POST' ? { body } : {}),
        }),
      );
    expect((await post('', 'application/json', 'GET')).status).toBe(405);
    expect((await post('{}', 'text/plain')).status).toBe(415);
    expect((await post('{')).status).toBe(400);
    const bad = await post(JSON.stringify({ id: 'c1', messages: [], trigger: 'send' }));
    expect(await bad.json()).toEqual({
      error: {
        code: 'invalid_chat_request',
        message: expect.stringContaining("trigger: 'submit-message' or 'regenerate-message'") as string,
      },
    });
    expect(
      (
        await post(
          JSON.stringify({ id: 'c1', trigger: 'submit-message', messages: [{ pad: 'x'.repeat(9 * 1024 * 1024) }] }),
        )
      ).status,
    ).toBe(413);
    expect(() => createUIMessageStreamHandler({ agent: () => null as never, maxBodyByte: 1 } as never)).toThrow(
      /did you mean "maxBodyBytes"/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('createUIMessageStreamHandler on Node http (nodeHandlerOf)', () => {
  let server: OpenAITestServer;
  let http: Server;
  afterEach(async () => {
    await new Promise((resolve) => http?.close(resolve));
    await server?.close();
  });

  it('serves useChat over a real socket, and a client that aborts cancels the reply', async () => {
    server = await startOpenAITestServer({
      script: [{ text: 'Over HTTP.' }, { toolCalls: [{ name: 'wait', input: {} }] }],
    });
    let aborted = false;
    const wait = defineTool({
      name: 'wait',
      description: 'Waits',
      input: z.object({}),
      execute: (_input, toolCtx) =>
        new Promise<string>((resolve) =>
          toolCtx.signal.addEventListener('abort', () => ((aborted = true), resolve('stopped'))),
        ),
    });
    const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url });
    const chat = createUIMessageStreamHandler({
      heartbeatMs: 0,
      agent: (id) => new Agent({ model, tools: [wait], sessionId: id }),
    });
    http = createServer(nodeHandlerOf(chat));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const api = `http://127.0.0.1:${(http.address() as AddressInfo).port}/api/chat`;
    const transport = new DefaultChatTransport<UIMessage>({ api });
    const stream = await transport.sendMessages({
      chatId: 'n1',
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    });
    let message: UIMessage | undefined;
    for await (const m of readUIMessageStream({ stream, terminateOnError: true })) message = m;
    expect(message!.parts.at(-1)).toMatchObject({ type: 'text', text: 'Over HTTP.' });

    const stop = new AbortController();
    const waiting = await transport.sendMessages({
      chatId: 'n1',
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: stop.signal,
      messages: [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
        message!,
        { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Wait' }] },
      ],
    });
    const reader = waiting.getReader();
    for (;;) {
      const { value } = await reader.read();
      if (value?.type === 'tool-input-available') break;
    }
    stop.abort(); // useChat's stop()
    await new Promise((r) => setTimeout(r, 100));
    expect(aborted).toBe(true);
  });
});

describe('toEventStreamResponse', () => {
  let server: OpenAITestServer;
  afterEach(async () => server?.close());

  it('is read by fromAgentEventStream, and a client that goes away cancels the reply', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'Hello.' }] });
    const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url });
    const agent = new Agent({ model });
    const fetchReply = () => Promise.resolve(toEventStreamResponse(agent.reply('Hi'), { heartbeatMs: 0 }));
    const events = await lastValueFrom(fromAgentEventStream('http://x/chat', { fetch: fetchReply }).pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });

    let aborted = false;
    const waiting = defineTool({
      name: 'wait',
      description: 'Waits',
      input: z.object({}),
      execute: (_input, toolCtx) =>
        new Promise<string>((resolve) =>
          toolCtx.signal.addEventListener('abort', () => ((aborted = true), resolve('stopped'))),
        ),
    });
    await server.close();
    server = await startOpenAITestServer({ script: [{ toolCalls: [{ name: 'wait', input: {} }] }] });
    const slow = new Agent({
      model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url }),
      tools: [waiting],
    });
    const res = toEventStreamResponse(slow.reply('Wait'), { heartbeatMs: 0 });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('TOOL_RESULT_START')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    await new Promise((r) => setTimeout(r, 20));
    expect(aborted).toBe(true);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });
});
