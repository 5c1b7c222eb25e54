// Answers to tool-call interrupts through @ag-ui/client's own runAgent: a call runs only when the
// answer approves it explicitly (AG-UI puts denials inside a resolved payload: {approved: false}).
import { EventType, type BaseEvent, type ResumeEntry } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';
import { Agent, defineTool } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { RxscopeAgUiAgent } from './index.js';

describe('answering an AG-UI tool-call interrupt', () => {
  let server: OpenAITestServer;
  // @ag-ui/client logs a refused run with console.error before it rejects runAgent().
  beforeEach(() => jest.spyOn(console, 'error').mockImplementation(() => undefined));
  afterEach(async () => {
    jest.restoreAllMocks();
    await server?.close();
  });

  /** A reply that asks to refund order B-2, interrupted for confirmation. */
  async function interrupted() {
    server = await startOpenAITestServer({
      script: [{ toolCalls: [{ id: 'r1', name: 'refund', input: { id: 'B-2' } }] }, { text: 'Done.' }],
    });
    const refunded: string[] = [];
    const refund = defineTool({
      name: 'refund',
      description: 'Refunds an order',
      input: z.object({ id: z.string().regex(/^[A-Z]-\d$/) }),
      needsApproval: true,
      execute: ({ id }) => (refunded.push(id), `Refunded ${id}`),
    });
    const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url });
    const agUi = new RxscopeAgUiAgent({
      agent: new Agent({ name: 'support', model, tools: [refund] }),
      threadId: 't-1',
    });
    const events: BaseEvent[] = [];
    agUi.subscribe({ onEvent: ({ event }) => void events.push(EventSchema.parse(event)) });
    agUi.addMessage({ id: 'u1', role: 'user', content: 'Refund B-2' });
    await agUi.runAgent();
    expect(agUi.pendingInterrupts.map((i) => i.id)).toEqual(['r1']);
    events.length = 0;
    const answer = (entry: Omit<ResumeEntry, 'interruptId'>) =>
      agUi.runAgent({ resume: [{ interruptId: 'r1', ...entry }] });
    const result = () =>
      events.find((e) => e.type === EventType.TOOL_CALL_RESULT) as { content: string; metadata?: unknown } | undefined;
    /** What the model was told about the call when the reply went on. */
    const toolMessage = () => server.requests[1]?.body.messages?.find((m) => m.role === 'tool');
    return { agUi, events, refunded, answer, result, toolMessage };
  }

  it('runs the call on {approved: true}', async () => {
    const { answer, refunded, result } = await interrupted();
    await answer({ status: 'resolved', payload: { approved: true } });
    expect(refunded).toEqual(['B-2']);
    expect(result()).toMatchObject({ content: 'Refunded B-2', metadata: { rxscope: { status: 'success' } } });
  });

  it('denies the call on {approved: false}, telling the model the reason', async () => {
    const { answer, refunded, result, toolMessage, events } = await interrupted();
    await answer({ status: 'resolved', payload: { approved: false, reason: 'Refunds are paused' } });
    expect(refunded).toEqual([]);
    expect(result()).toMatchObject({ metadata: { rxscope: { status: 'denied' } } });
    expect(JSON.stringify(toolMessage()?.content)).toContain('Refunds are paused');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('accepts `confirmed` as an alias of `approved`, both ways', async () => {
    const denied = await interrupted();
    await denied.answer({ status: 'resolved', payload: { confirmed: false } });
    expect(denied.refunded).toEqual([]);
    await server.close();
    const approved = await interrupted();
    await approved.answer({ status: 'resolved', payload: { confirmed: true } });
    expect(approved.refunded).toEqual(['B-2']);
  });

  it('denies the call when the interrupt is cancelled, even with a payload that says approved', async () => {
    const { answer, refunded, result } = await interrupted();
    await answer({ status: 'cancelled', payload: { approved: true } });
    expect(refunded).toEqual([]);
    expect(result()).toMatchObject({ metadata: { rxscope: { status: 'denied' } } });
  });

  it('runs the call with editedArgs in place of the proposed arguments', async () => {
    const { answer, refunded, toolMessage } = await interrupted();
    await answer({ status: 'resolved', payload: { approved: true, editedArgs: { id: 'C-3' } } });
    expect(refunded).toEqual(['C-3']);
    expect(toolMessage()).toMatchObject({ content: 'Refunded C-3' });
  });

  it('refuses editedArgs that fail the tool schema: nothing runs, the interrupt stays open', async () => {
    const { agUi, answer, refunded } = await interrupted();
    await expect(
      answer({ status: 'resolved', payload: { approved: true, editedArgs: { id: 'nope' } } }),
    ).rejects.toThrow(/edited input of r1 \(refund\) is invalid: id: /);
    expect(refunded).toEqual([]);
    expect(agUi.pendingInterrupts.map((i) => i.id)).toEqual(['r1']);
    await answer({ status: 'resolved', payload: { approved: true, editedArgs: { id: 'D-4' } } });
    expect(refunded).toEqual(['D-4']);
  });

  it('refuses a resolved answer that does not say approved true or false: nothing runs', async () => {
    const { agUi, answer, refunded } = await interrupted();
    await expect(answer({ status: 'resolved' })).rejects.toThrow(/needs a payload \{approved/);
    await expect(answer({ status: 'resolved', payload: {} })).rejects.toThrow(/needs "approved": true or false/);
    await expect(answer({ status: 'resolved', payload: { approved: 'yes' } })).rejects.toThrow(
      /needs "approved": true or false/,
    );
    await expect(answer({ status: 'resolved', payload: { approved: true, editedArgs: 'C-3' } })).rejects.toThrow(
      /not an object/,
    );
    expect(refunded).toEqual([]);
    expect(agUi.pendingInterrupts.map((i) => i.id)).toEqual(['r1']);
  });
});
