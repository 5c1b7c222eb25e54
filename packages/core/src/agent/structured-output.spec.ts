import { z } from 'zod';
import { textOfMsg, toolResultsOf } from '../message/msg.js';
import { ScriptedChatModel } from '../testing/scripted-model.js';
import { addTool, endOf, ofType, runReply } from '../__tests__/helpers.js';
import { Agent } from './agent.js';
import { AgentError } from './errors.js';

const Weather = z.object({ city: z.string(), tempC: z.number(), conditions: z.enum(['sunny', 'rain', 'snow']) });

describe('structured output through the final_output tool (models without native support)', () => {
  it('ends the reply with the validated value once the model calls final_output; call() resolves with it', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', input: { a: 20, b: 1 } }] },
      { toolCalls: [{ id: 'f1', name: 'final_output', input: { city: 'Paris', tempC: 21, conditions: 'sunny' } }] },
    ]);
    const agent = new Agent({ model, tools: [addTool] });
    const events = await runReply(agent, agent.reply('Weather in Paris?', { output: Weather }));

    expect(endOf(events)).toMatchObject({
      finishReason: 'completed',
      output: { city: 'Paris', tempC: 21, conditions: 'sunny' },
    });
    expect(model.requests).toHaveLength(2); // no model call after the answer
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['add', 'final_output']);
    expect(model.requests[0]!.tools[1]!.parameters).toMatchObject({
      properties: { conditions: { enum: ['sunny', 'rain', 'snow'] } },
    });
    expect(model.requests[0]!.responseFormat).toBeUndefined();
    // The call is answered in the conversation (no call without its result).
    expect(toolResultsOf(agent.context[1]!).at(-1)).toMatchObject({ toolCallId: 'f1', status: 'success' });

    const again = new Agent({
      model: new ScriptedChatModel([
        { toolCalls: [{ name: 'final_output', input: { city: 'Oslo', tempC: -3, conditions: 'snow' } }] },
      ]),
    });
    await expect(again.call('Oslo?', { output: Weather })).resolves.toEqual({
      city: 'Oslo',
      tempC: -3,
      conditions: 'snow',
    });
  });

  it('refuses arguments that fail the schema with an error result naming the field, then accepts the repair', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'final_output', input: { city: 'Paris', tempC: 'warm', conditions: 'sunny' } }] },
      { toolCalls: [{ name: 'final_output', input: { city: 'Paris', tempC: 25, conditions: 'sunny' } }] },
    ]);
    const agent = new Agent({ model });
    const events = await runReply(agent, agent.reply('Paris?', { output: Weather }));

    const refused = ofType(events, 'TOOL_RESULT_END')[0]!;
    expect(refused.status).toBe('error');
    expect(JSON.stringify(refused.output)).toContain('tempC');
    expect(endOf(events).output).toEqual({ city: 'Paris', tempC: 25, conditions: 'sunny' });
  });

  it('accepts a plain-text JSON answer, and asks again (a hint) for a prose one', async () => {
    const model = new ScriptedChatModel([
      { text: 'It is sunny in Paris, 21 degrees.' },
      { text: '{"city":"Paris","tempC":21,"conditions":"sunny"}' },
    ]);
    const agent = new Agent({ model });
    const events = await runReply(agent, agent.reply('Paris?', { output: Weather }));

    const hints = ofType(events, 'HINT_BLOCK');
    expect(hints).toHaveLength(1);
    expect(hints[0]!.text).toContain('final_output');
    // The hint is part of the next request (and of the stored reply).
    const last = model.requests[1]!.messages.at(-1)!;
    expect(last.content.at(-1)).toMatchObject({ type: 'hint', text: hints[0]!.text, source: 'output' });
    expect(hints[0]!.hintSource).toBe('output');
    expect(endOf(events)).toMatchObject({
      finishReason: 'completed',
      output: { city: 'Paris', tempC: 21, conditions: 'sunny' },
    });
  });

  it('ends with error output_invalid when the repairs are used up; call() rejects with that code', async () => {
    const bad = { toolCalls: [{ name: 'final_output', input: { city: 'Paris' } }] };
    const model = new ScriptedChatModel([bad, bad, bad, bad]);
    const agent = new Agent({ model });
    const events = await runReply(agent, agent.reply('Paris?', { output: Weather, outputRepairs: 1 }));

    expect(model.requests).toHaveLength(2);
    expect(endOf(events)).toMatchObject({ finishReason: 'error', error: { code: 'output_invalid' } });
    expect(endOf(events).output).toBeUndefined();

    const agent2 = new Agent({
      model: new ScriptedChatModel([{ text: 'no JSON here' }, { text: 'still none' }, { text: 'nope' }]),
    });
    const failure = await agent2.call('Paris?', { output: Weather }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AgentError);
    expect((failure as AgentError).info).toMatchObject({ code: 'output_invalid', name: 'OutputInvalidError' });
    expect((failure as AgentError).info.message).toContain('not valid JSON');
  });

  it('refuses what is not a schema (naming jsonSchemaInput), and an agent tool named final_output', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([]) });
    await expect(agent.call('x', { output: { type: 'object' } as never })).rejects.toMatchObject({
      code: 'schema_unsupported',
      message: expect.stringContaining('jsonSchemaInput({ type: "object", ... })'),
    });
    const clash = new Agent({
      model: new ScriptedChatModel([]),
      tools: [{ ...addTool, name: 'final_output', schema: { ...addTool.schema, name: 'final_output' } }],
    });
    await expect(clash.call('x', { output: Weather })).rejects.toThrow(/named "final_output"/);
  });
});

describe('structured output through response_format (models with native support)', () => {
  it('sends a strict json_schema and parses the JSON text of the answer', async () => {
    const model = new ScriptedChatModel([{ text: ['{"city":"Rome",', '"tempC":30,"conditions":"sunny"}'] }], {
      supportsResponseFormat: true,
    });
    const agent = new Agent({ model, tools: [addTool] });
    const value = await agent.call('Rome?', { output: Weather });

    expect(value).toEqual({ city: 'Rome', tempC: 30, conditions: 'sunny' });
    const request = model.requests[0]!;
    expect(request.tools.map((t) => t.name)).toEqual(['add']);
    expect(request.responseFormat).toEqual({
      type: 'json_schema',
      name: 'final_output',
      strict: true,
      schema: expect.objectContaining({
        type: 'object',
        additionalProperties: false,
        required: ['city', 'tempC', 'conditions'],
      }),
    });
  });

  it('a value failing the schema gets a repair turn naming the error', async () => {
    const model = new ScriptedChatModel(
      [
        { text: '{"city":"Rome","tempC":30,"conditions":"hail"}' },
        { text: '```json\n{"city":"Rome","tempC":30,"conditions":"rain"}\n```' },
      ],
      { supportsResponseFormat: true },
    );
    const agent = new Agent({ model });
    const events = await runReply(agent, agent.reply('Rome?', { output: Weather }));

    const [hint] = ofType(events, 'HINT_BLOCK');
    expect(hint!.text).toMatch(/conditions/);
    expect(endOf(events).output).toEqual({ city: 'Rome', tempC: 30, conditions: 'rain' });
  });

  it('wraps a schema whose root is not an object as {value}, strict only when every field is required', async () => {
    const model = new ScriptedChatModel([{ text: '{"value":["a","b"]}' }], { supportsResponseFormat: true });
    const agent = new Agent({ model });
    await expect(agent.call('list', { output: z.array(z.string()) })).resolves.toEqual(['a', 'b']);
    expect(model.requests[0]!.responseFormat).toMatchObject({ strict: true, schema: { required: ['value'] } });

    const loose = new ScriptedChatModel([{ text: '{"a":1}' }], { supportsResponseFormat: true });
    await new Agent({ model: loose }).call('x', { output: z.object({ a: z.number(), b: z.string().optional() }) });
    expect(loose.requests[0]!.responseFormat).toMatchObject({ strict: false });
  });

  it('a reply without output is unchanged: no response_format, no final_output tool, call() gives the message', async () => {
    const model = new ScriptedChatModel([{ text: 'hello' }], { supportsResponseFormat: true });
    const msg = await new Agent({ model }).call('hi');
    expect(textOfMsg(msg)).toBe('hello');
    expect(model.requests[0]!.responseFormat).toBeUndefined();
  });

  it('call() with output rejects (output_missing) when the reply ends without an answer', async () => {
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }], {
      supportsResponseFormat: true,
    });
    const agent = new Agent({ model, tools: [{ ...addTool, readOnly: false, needsApproval: true }] });
    const failure = await agent.call('x', { output: Weather }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AgentError);
    expect(failure).toMatchObject({ finishReason: 'awaiting_confirmation', info: { code: 'output_missing' } });
  });
});
