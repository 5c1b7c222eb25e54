import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  type ElicitRequest,
  type ElicitResult,
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { Agent, defineTool } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, testServerModel } from '../__tests__/helpers.js';
import { serveAgentOverMcp, type ServedAgentOverHttp } from './index.js';

type CallResult = { content: { text: string }[]; isError?: boolean };

/** A served agent asks the MCP client about confirmations (elicitation) and logs to it (logging). */
describe('serveAgentOverMcp: elicitation and logging', () => {
  jest.setTimeout(30_000);
  let server: OpenAITestServer;
  let served: ServedAgentOverHttp;
  let refunds: { orderId: string; amount: number }[];
  let client: Client;

  const refund = () =>
    defineTool({
      name: 'refund',
      description: 'Refunds an order',
      input: z.object({ orderId: z.string(), amount: z.number() }),
      needsApproval: true,
      execute: (input) => {
        refunds.push(input);
        return `refunded ${input.amount} on ${input.orderId}`;
      },
    });
  const connect = async (elicitation: boolean, answer?: (req: ElicitRequest) => ElicitResult) => {
    client = new Client(
      { name: 'test-client', version: '1.0.0' },
      { capabilities: elicitation ? { elicitation: {} } : {} },
    );
    if (answer) client.setRequestHandler(ElicitRequestSchema, (req) => answer(req));
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  };
  const ask = (message: string) => client.callTool({ name: 'support', arguments: { message } }) as Promise<CallResult>;

  beforeEach(async () => {
    refunds = [];
    server = await startOpenAITestServer();
    served = await serveAgentOverMcp(
      (sessionId) => new Agent({ name: 'support', model: testServerModel(server), tools: [refund()], sessionId }),
      { name: 'support', transport: { port: 0 } },
    );
  });
  afterEach(async () => {
    await client.close();
    await served.close();
    await closeTestServer(server);
  });

  it('a confirmation is asked of the client; approving with edited arguments runs the edited call', async () => {
    const asked: ElicitRequest['params'][] = [];
    await connect(true, (req) => {
      asked.push(req.params);
      return { action: 'accept', content: { approve: true, arguments: '{"orderId":"42","amount":5}' } };
    });
    server.enqueue({ toolCalls: [{ name: 'refund', input: { orderId: '42', amount: 50 } }] }, { text: 'Refunded 5.' });
    const result = await ask('Refund order 42.');
    expect(result).toEqual({ content: [{ type: 'text', text: 'Refunded 5.' }] });
    expect(refunds).toEqual([{ orderId: '42', amount: 5 }]);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain('"refund"');
    expect(asked[0]).toMatchObject({
      requestedSchema: {
        properties: { approve: { type: 'boolean' }, arguments: { default: '{"orderId":"42","amount":50}' } },
        required: ['approve'],
      },
    });
    // The model saw the edited call's result.
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('refunded 5 on 42');
  });

  it('denying (or declining) runs nothing; the model is told why and the reply goes on', async () => {
    const answers: ElicitResult[] = [
      { action: 'accept', content: { approve: false, reason: 'Too much money.' } },
      { action: 'decline' },
    ];
    await connect(true, () => answers.shift()!);
    server.enqueue(
      { toolCalls: [{ name: 'refund', input: { orderId: '42', amount: 50 } }] },
      { text: 'I will not refund it.' },
      { toolCalls: [{ name: 'refund', input: { orderId: '43', amount: 9 } }] },
      { text: 'Not that one either.' },
    );
    expect((await ask('Refund order 42.')).content[0]!.text).toBe('I will not refund it.');
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('Too much money.');
    expect((await ask('Refund order 43.')).content[0]!.text).toBe('Not that one either.');
    expect(JSON.stringify(server.requests[3]!.body.messages)).toContain('The user declined the call.');
    expect(refunds).toEqual([]);
  });

  it('arguments that are not a JSON object are asked for again', async () => {
    const answers: ElicitResult[] = [
      { action: 'accept', content: { approve: true, arguments: '{orderId: 42' } },
      { action: 'accept', content: { approve: true, arguments: '{"orderId":"42","amount":7}' } },
    ];
    const messages: string[] = [];
    await connect(true, (req) => {
      messages.push(req.params.message);
      return answers.shift()!;
    });
    server.enqueue({ toolCalls: [{ name: 'refund', input: { orderId: '42', amount: 50 } }] }, { text: 'Done.' });
    expect((await ask('Refund.')).content[0]!.text).toBe('Done.');
    expect(messages[1]).toMatch(/not a JSON object: \{orderId: 42/);
    expect(refunds).toEqual([{ orderId: '42', amount: 7 }]);
  });

  it('a client without elicitation gets the isError result, as before', async () => {
    await connect(false);
    server.enqueue({ toolCalls: [{ name: 'refund', input: { orderId: '42', amount: 50 } }] });
    const result = await ask('Refund order 42.');
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/declares no elicitation/);
    expect(refunds).toEqual([]);
  });

  it('declares logging: the reply logs its tool calls and its end at the level the client set', async () => {
    const logs: LoggingMessageNotification['params'][] = [];
    await connect(true, () => ({ action: 'accept', content: { approve: true } }));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    expect(client.getServerCapabilities()?.logging).toEqual({});
    server.enqueue({ toolCalls: [{ name: 'refund', input: { orderId: '1', amount: 1 } }] }, { text: 'ok' });
    await ask('Refund order 1.');
    expect(logs).toEqual([
      { level: 'info', logger: 'support', data: expect.objectContaining({ event: 'tool_call', tool: 'refund' }) },
      {
        level: 'notice',
        logger: 'support',
        data: expect.objectContaining({ event: 'confirmation', tools: ['refund'] }),
      },
      {
        level: 'info',
        logger: 'support',
        data: expect.objectContaining({ event: 'reply_end', finishReason: 'awaiting_confirmation' }),
      },
      {
        level: 'info',
        logger: 'support',
        data: expect.objectContaining({ event: 'reply_end', finishReason: 'completed' }),
      },
    ]);
    logs.length = 0;
    await client.setLoggingLevel('error');
    server.enqueue({ fault: 'unauthorized' });
    await ask('Again.');
    expect(logs).toEqual([
      {
        level: 'error',
        logger: 'support',
        data: expect.objectContaining({ event: 'reply_end', finishReason: 'error' }),
      },
    ]);
  });
});
