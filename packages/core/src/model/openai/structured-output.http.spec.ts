import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../../agent/agent.js';
import type { AgentEventOf } from '../../event/events.js';
import { assertConsistentConversation, assertReplyGrammar } from '../../testing/grammar.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';

const Invoice = z.object({
  customer: z.string(),
  total: z.number(),
  lines: z.array(z.object({ item: z.string(), qty: z.number().int() })),
});

/**
 * Structured output on the wire: the real `@langchain/openai` client against the OpenAI test
 * server, natively (`response_format: json_schema`) and through the `final_output` tool.
 */
describe('structured output over OpenAIChatModel', () => {
  let server: OpenAITestServer;
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const agentWith = (options: Partial<OpenAIChatModelOptions> = {}) =>
    new Agent({
      name: 'clerk',
      model: new OpenAIChatModel({
        model: 'gpt-test',
        apiKey: 'sk-test',
        baseURL: server.url,
        configuration: { logLevel: 'off' },
        ...options,
      }),
    });

  it.each([true, false])(
    'sends response_format json_schema and resolves with the parsed value (streaming: %s)',
    async (streaming) => {
      const value = { customer: 'ACME', total: 30, lines: [{ item: 'bolt', qty: 3 }] };
      server.enqueue({ json: value });
      const agent = agentWith({ streaming });
      const invoice = await agent.call('Invoice for 3 bolts to ACME', { output: Invoice });

      expect(invoice).toEqual(value);
      const body = server.requests[0]!.body;
      expect(body.response_format).toEqual({
        type: 'json_schema',
        json_schema: {
          name: 'final_output',
          strict: true,
          schema: expect.objectContaining({
            type: 'object',
            additionalProperties: false,
            required: ['customer', 'total', 'lines'],
          }),
        },
      });
      expect(body.tools).toBeUndefined();
      assertConsistentConversation(agent.context);
    },
  );

  it('a value failing the schema gets a repair turn on the wire naming the error, then output_invalid', async () => {
    server.enqueue(
      { json: { customer: 'ACME', total: 'thirty', lines: [] } },
      { json: { customer: 'ACME', total: 30, lines: [] } },
    );
    const agent = agentWith();
    const events = await lastValueFrom(agent.reply('Invoice', { output: Invoice }).pipe(toArray()));
    const end = assertReplyGrammar(events);

    expect(end).toMatchObject({ finishReason: 'completed', output: { customer: 'ACME', total: 30, lines: [] } });
    const repair = server.requests[1]!.body.messages!.at(-1)!;
    expect(repair.role).toBe('user');
    expect(JSON.stringify(repair.content)).toMatch(/total/);

    // Every answer wrong: the repairs run out and the reply ends with output_invalid.
    const bad = { json: { customer: 1 } };
    server.enqueue(bad, bad, bad);
    const failed = await lastValueFrom(agent.reply('Again', { output: Invoice }).pipe(toArray()));
    expect(assertReplyGrammar(failed)).toMatchObject({ finishReason: 'error', error: { code: 'output_invalid' } });
    expect(server.requests).toHaveLength(5);
  });

  it('a server without response_format gets the final_output tool instead', async () => {
    server.enqueue({
      toolCalls: [
        {
          name: 'final_output',
          input: { customer: 'ACME', total: 4, lines: [{ item: 'nut', qty: 4 }] },
          id: 'call_out',
        },
      ],
    });
    const agent = agentWith({ supportsResponseFormat: false });
    const events = await lastValueFrom(agent.reply('Invoice', { output: Invoice }).pipe(toArray()));

    expect(assertReplyGrammar(events).output).toEqual({ customer: 'ACME', total: 4, lines: [{ item: 'nut', qty: 4 }] });
    const body = server.requests[0]!.body;
    expect(body.response_format).toBeUndefined();
    expect(body.tools?.map((t) => t.function.name)).toEqual(['final_output']);
    expect(body.tools![0]!.function.parameters).toMatchObject({ required: ['customer', 'total', 'lines'] });
    const result = events.find((e): e is AgentEventOf<'TOOL_RESULT_END'> => e.type === 'TOOL_RESULT_END')!;
    expect(result).toMatchObject({ toolCallId: 'call_out', status: 'success' });
    expect(server.requests).toHaveLength(1);
  });

  it('the test server refuses a structured answer the request did not ask for', async () => {
    server.enqueue({ json: { customer: 'x', total: 1, lines: [] } });
    const events = await lastValueFrom(agentWith().reply('no output option').pipe(toArray()));
    const end = assertReplyGrammar(events);
    expect(end).toMatchObject({ finishReason: 'error', error: { status: 400 } });
    expect(end.error!.message).toContain('response_format');
  });
});
