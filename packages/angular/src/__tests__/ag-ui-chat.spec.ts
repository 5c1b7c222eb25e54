// injectAgentChat with the 'ag-ui' transport against a real createAgUiHandler on loopback (an
// Agent per AG-UI thread, scripted model), in TestBed without zone.js.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestBed } from '@angular/core/testing';
import { Agent, defineTool, jsonSchemaInput, type Tool } from '@rxscope/core';
import { createAgUiHandler } from '@rxscope/core/node/ag-ui';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { injectAgentChat, type AgentChat } from '../agent-chat.js';
import { provideRxscope } from '../provide-rxscope.js';
import { until } from './chat-server.js';

interface AgUiServer {
  readonly url: string;
  readonly refunds: string[];
  close(): Promise<void>;
}

async function startAgUiServer(model: ScriptedChatModel): Promise<AgUiServer> {
  const refunds: string[] = [];
  const refund: Tool = defineTool({
    name: 'refund_order',
    description: 'Refunds an order.',
    input: jsonSchemaInput<{ orderId: string }>({
      type: 'object',
      properties: { orderId: { type: 'string' } },
      required: ['orderId'],
    }),
    needsApproval: true,
    execute: (input) => {
      refunds.push(input.orderId);
      return `Refunded order ${input.orderId}.`;
    },
  });
  const handler = createAgUiHandler({
    agent: (threadId) => new Agent({ name: 'assistant', model, tools: [refund], sessionId: threadId }),
  });
  const server: Server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`,
    refunds,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function chatAt(url: string): AgentChat {
  TestBed.configureTestingModule({ providers: [provideRxscope({ url, transport: 'ag-ui' })] });
  return TestBed.runInInjectionContext(() => injectAgentChat());
}

describe("injectAgentChat over AG-UI ('ag-ui' transport)", () => {
  let server: AgUiServer | undefined;
  afterEach(async () => {
    TestBed.resetTestingModule();
    await server?.close();
    server = undefined;
  });

  it('streams a run: text growing, then the message, usage and idle status', async () => {
    const model = new ScriptedChatModel(
      [{ text: ['Hello ', 'over ', 'AG-UI.'], usage: { inputTokens: 7, outputTokens: 3 } }],
      { delayMs: 40 },
    );
    server = await startAgUiServer(model);
    const chat = chatAt(server.url);
    chat.send('Hi');
    await until(() => chat.streamingText().length > 0, 'the first text');
    expect(chat.streamingText()).not.toBe('Hello over AG-UI.');
    await until(() => chat.status() !== 'streaming', 'the end of the run');
    expect(chat.error()).toBeUndefined();
    expect(chat.status()).toBe('idle');
    expect(chat.messages().map((m) => [m.role, m.text])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello over AG-UI.'],
    ]);
    expect(chat.usage()).toEqual({ inputTokens: 7, outputTokens: 3 });
  });

  it("answers the run's interrupt: confirm() resumes it and the tool runs; the next message carries the history", async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'refund_order', input: { orderId: '42' } }] },
      { text: ['Refunded.'] },
      { text: ['You are welcome.'] },
    ]);
    server = await startAgUiServer(model);
    const chat = chatAt(server.url);
    chat.send('Refund order 42');
    await until(() => chat.status() !== 'streaming', 'the interrupt');
    expect(chat.error()).toBeUndefined();
    expect(chat.status()).toBe('awaiting_confirmation');
    const [pending] = chat.pendingConfirmations();
    expect(pending).toMatchObject({ name: 'refund_order', input: { orderId: '42' } });
    expect(server.refunds).toEqual([]);

    chat.confirm(pending!.toolCallId);
    await until(() => chat.status() !== 'streaming', 'the resumed run');
    expect(chat.error()).toBeUndefined();
    expect(server.refunds).toEqual(['42']);
    expect(chat.toolCalls()).toEqual([
      expect.objectContaining({ name: 'refund_order', status: 'success', output: 'Refunded order 42.' }),
    ]);
    expect(chat.messages().map((m) => [m.role, m.text])).toEqual([
      ['user', 'Refund order 42'],
      ['assistant', 'Refunded.'],
    ]);

    // The server checks the thread's history against its session: it must agree.
    chat.send('Thanks');
    await until(() => chat.status() !== 'streaming', 'the third run');
    expect(chat.error()).toBeUndefined();
    expect(chat.messages().at(-1)!.text).toBe('You are welcome.');
  });

  it('stop() aborts the request: the model request of the run is aborted', async () => {
    const model = new ScriptedChatModel([{ text: Array.from({ length: 200 }, (_, i) => `w${i} `) }], { delayMs: 20 });
    server = await startAgUiServer(model);
    const chat = chatAt(server.url);
    chat.send('Tell me a long story');
    await until(() => chat.streamingText().length > 0, 'the first words');
    chat.stop();
    expect(chat.status()).toBe('idle');
    await until(() => model.requests[0]!.signal.aborted, 'the model request to be aborted');
  });

  it('regenerate() sends the thread cut after the last user message; the server answers it anew', async () => {
    const model = new ScriptedChatModel([{ text: ['First.'] }, { text: ['Second.'] }]);
    server = await startAgUiServer(model);
    const chat = chatAt(server.url);
    chat.send('Hi');
    await until(() => chat.status() !== 'streaming', 'the first run');
    chat.regenerate();
    await until(() => chat.status() !== 'streaming', 'the second run');
    expect(chat.error()).toBeUndefined();
    expect(chat.messages().map((m) => m.text)).toEqual(['Hi', 'Second.']);
    expect(model.requests[1]!.messages.filter((m) => m.role === 'user')).toHaveLength(1);
  });

  it('an endpoint that is not AG-UI: an error status, not a hang', async () => {
    const plain = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const chat = chatAt(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`);
      chat.send('Hi');
      await until(() => chat.status() !== 'streaming', 'the error');
      expect(chat.error()).toMatchObject({ code: 'not_event_stream' });
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
