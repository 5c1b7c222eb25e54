// Frontend tools (RunAgentInput.tools) through @ag-ui/client's own runAgent: the model is offered
// them beside the agent's tools, a call of one ends the run for the client to execute it, and the
// client's tool message continues the conversation — what CopilotKit's frontend actions rely on.
import { EventType, type BaseEvent, type Tool as AgUiTool } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';
import { Agent, defineTool } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { RxscopeAgUiAgent } from './index.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an order up',
  input: z.object({ id: z.string() }),
  readOnly: true,
  execute: () => 'shipped',
});
const pickDate: AgUiTool = {
  name: 'pick_date',
  description: 'Lets the user pick a date in the page',
  parameters: { type: 'object', properties: { purpose: { type: 'string' } }, required: ['purpose'] },
};

describe('AG-UI frontend tools', () => {
  let server: OpenAITestServer;
  afterEach(async () => server?.close());

  async function setUp(script: NonNullable<Parameters<typeof startOpenAITestServer>[0]>['script']) {
    server = await startOpenAITestServer({ script });
    const agent = new Agent({
      name: 'support',
      model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url }),
      tools: [lookup],
    });
    const agUi = new RxscopeAgUiAgent({ agent, threadId: 'thread-1' });
    const events: BaseEvent[] = [];
    agUi.subscribe({ onEvent: ({ event }) => void events.push(EventSchema.parse(event)) });
    return { agent, agUi, events };
  }

  it('offers them to the model; a call ends the run for the client, whose tool message continues it', async () => {
    const { agUi, events } = await setUp([
      { toolCalls: [{ id: 'p1', name: 'pick_date', input: { purpose: 'delivery' } }] },
      { text: 'Delivery is booked for 3 March.' },
    ]);
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Book my delivery' });
    await agUi.runAgent({ tools: [pickDate] });
    const offered = server.requests[0]!.body.tools?.map((t) => t.function);
    expect(offered).toEqual([
      expect.objectContaining({ name: 'lookup' }),
      { name: 'pick_date', description: pickDate.description, parameters: pickDate.parameters },
    ]);
    expect(events.find((e) => e.type === EventType.TOOL_CALL_START)).toMatchObject({
      toolCallId: 'p1',
      toolCallName: 'pick_date',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success', pendingToolCallIds: ['p1'] },
    });

    agUi.addMessage({ id: 't1', role: 'tool', toolCallId: 'p1', content: '2026-03-03' });
    const { newMessages } = await agUi.runAgent({ tools: [pickDate] });
    expect(server.requests[1]!.body.messages!.some((m) => m.role === 'tool' && m.content === '2026-03-03')).toBe(true);
    expect(server.requests[1]!.body.tools?.map((t) => t.function.name)).toEqual(['lookup', 'pick_date']);
    expect(newMessages.at(-1)).toMatchObject({ role: 'assistant', content: 'Delivery is booked for 3 March.' });
  });

  it('refuses a frontend tool named like one of the agent tools: RUN_ERROR tool_name_clash, nothing sent to the model', async () => {
    const { agUi, events } = await setUp([{ text: 'never' }]);
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Where is A-1?' });
    const errors: { code?: string; message: string }[] = [];
    jest.spyOn(console, 'error').mockImplementation(() => undefined); // @ag-ui/client logs the failed run
    await agUi
      .runAgent(
        { tools: [{ ...pickDate, name: 'lookup' }] },
        { onRunErrorEvent: ({ event }) => void errors.push(event) },
      )
      .catch(() => undefined);
    expect(errors).toEqual([
      expect.objectContaining({ code: 'tool_name_clash', message: expect.stringContaining('"lookup"') as string }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_ERROR' });
    expect(server.requests).toHaveLength(0);
  });
});
