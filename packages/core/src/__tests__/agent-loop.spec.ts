import { lastValueFrom, map, merge, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { AgentError, AgentUsageError } from '../agent/errors.js';
import { createMsg, textOfMsg, toolResultsOf } from '../message/msg.js';
import type { Middleware } from '../middleware/middleware.js';
import { ModelError } from '../model/model-error.js';
import { defineTool } from '../tool/tool.js';
import { ModelTestingController, ScriptedChatModel } from '../testing/index.js';
import { addTool, endOf, ofType, runReply, textOf } from './helpers.js';

describe('Agent ReAct loop', () => {
  it('streams a text reply and stores user message and reply in the conversation', async () => {
    const model = new ScriptedChatModel([{ text: ['Hel', 'lo', '!'], usage: { inputTokens: 7, outputTokens: 3 } }]);
    const agent = new Agent({ name: 'bot', sysPrompt: 'Be brief.', model });
    const events = await runReply(agent, agent.reply('Hi'));

    expect(textOf(events)).toBe('Hello!');
    expect(events.every((e) => e.source === 'bot')).toBe(true);
    expect(endOf(events)).toMatchObject({ finishReason: 'completed', usage: { inputTokens: 7, outputTokens: 3 } });
    expect(agent.context.map((m) => [m.role, textOfMsg(m)])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello!'],
    ]);
    const request = model.requests[0]!;
    expect(request.messages[0]).toMatchObject({ role: 'system', content: [{ type: 'text', text: 'Be brief.' }] });
    expect(textOfMsg(request.messages[1]!)).toBe('Hi');
  });

  it('runs a tool, hands the result to the model, and answers', async () => {
    const model = new ScriptedChatModel([
      { text: 'Let me add.', toolCalls: [{ id: 'c1', name: 'add', input: { a: 2, b: 3 } }] },
      { text: 'It is 5.' },
    ]);
    const agent = new Agent({ model, tools: [addTool] });
    const events = await runReply(agent, agent.reply('2+3?'));

    expect(ofType(events, 'TOOL_RESULT_END')).toEqual([
      expect.objectContaining({ toolCallId: 'c1', status: 'success', output: [{ type: 'text', text: '5' }] }),
    ]);
    // The second model call sees the reply so far: the call and its result.
    const second = model.requests[1]!.messages;
    const replySoFar = second[second.length - 1]!;
    expect(replySoFar.role).toBe('assistant');
    expect(replySoFar.content.map((b) => b.type)).toEqual(['text', 'tool_call', 'tool_result']);
    // The stored reply is one message holding every block in order.
    const reply = agent.context[1]!;
    expect(reply.content.map((b) => b.type)).toEqual(['text', 'tool_call', 'tool_result', 'text']);
    expect(textOfMsg(reply)).toBe('Let me add.It is 5.');
    expect(ofType(events, 'MODEL_CALL_END')).toHaveLength(2);
  });

  it('stops at maxIters with one final call that has tools disabled', async () => {
    const model = new ScriptedChatModel((request) =>
      request.toolChoice === 'none'
        ? { text: 'Giving up: here is what I have.' }
        : { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] },
    );
    const agent = new Agent({ model, tools: [addTool], maxIters: 3 });
    const events = await runReply(agent, agent.reply('loop forever'));

    expect(endOf(events).finishReason).toBe('max_iters');
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'auto', 'none']);
    expect(ofType(events, 'TOOL_RESULT_END')).toHaveLength(3);
    expect(textOf(events)).toBe('Giving up: here is what I have.');
  });

  it('uses 20 as the default maxIters', async () => {
    const model = new ScriptedChatModel((request) =>
      request.toolChoice === 'none' ? { text: 'done' } : { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] },
    );
    const agent = new Agent({ model, tools: [addTool] });
    const events = await runReply(agent, agent.reply('go'));
    expect(ofType(events, 'TOOL_RESULT_END')).toHaveLength(20);
    expect(model.requests).toHaveLength(21);
  });

  it.each([
    ['required', 'required'],
    ['none', 'none'],
    ['a named tool', { name: 'add' }],
  ] as const)('passes toolChoice %s to the model', async (_label, toolChoice) => {
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] }, { text: '3' }]);
    const agent = new Agent({ model, tools: [addTool], toolChoice });
    await runReply(agent, agent.reply('1+2'));
    expect(model.requests[0]!.toolChoice).toEqual(toolChoice);
    // A forced choice is honoured once, then the model may answer (like resetToolChoice elsewhere).
    if (model.requests[1]) expect(model.requests[1].toolChoice).toEqual(toolChoice === 'none' ? 'none' : 'auto');
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['add']);
  });

  it('keeps a forced toolChoice on every step when resetToolChoice is false', async () => {
    const model = new ScriptedChatModel((r) =>
      r.toolChoice === 'none' ? { text: 'ok' } : { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
    );
    const agent = new Agent({ model, tools: [addTool], toolChoice: 'required', resetToolChoice: false, maxIters: 2 });
    await runReply(agent, agent.reply('x'));
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['required', 'required', 'none']);
  });

  it('registers tools contributed by middlewares and sends their JSON Schema', async () => {
    const clock = defineTool({
      name: 'clock',
      description: 'Current time',
      input: z.object({ tz: z.string().describe('IANA time zone') }),
      readOnly: true,
      execute: ({ tz }) => `12:00 in ${tz}`,
    });
    const provider: Middleware = { key: 'clockProvider', tools: () => [clock] };
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'clock', input: { tz: 'UTC' } }] }, { text: 'noon' }]);
    const agent = new Agent({ model, tools: [addTool], middlewares: [provider] });
    const events = await runReply(agent, agent.reply('time?'));

    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['add', 'clock']);
    expect(model.requests[0]!.tools[1]!.parameters).toMatchObject({
      type: 'object',
      properties: { tz: { type: 'string', description: 'IANA time zone' } },
      required: ['tz'],
    });
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.output).toEqual([{ type: 'text', text: '12:00 in UTC' }]);
  });

  it('refuses two tools with the same name', () => {
    expect(() => new Agent({ model: new ScriptedChatModel([]), tools: [addTool, addTool] })).toThrow(
      /Two tools are named "add"/,
    );
  });

  it('ends with REPLY_END error (not a stream error) when the model fails, closing open blocks', async () => {
    const model = new ScriptedChatModel([
      { text: ['partial ', 'answer'], error: new ModelError('upstream exploded', { status: 502, retryable: true }) },
    ]);
    const agent = new Agent({ model });
    const events = await runReply(agent, agent.reply('hi'));
    const end = endOf(events);
    expect(end.finishReason).toBe('error');
    expect(end.error).toMatchObject({ name: 'ModelError', message: 'upstream exploded', status: 502, retryable: true });
    // The open text block was closed before MODEL_CALL_END and REPLY_END, and the text is kept.
    expect(events.map((e) => e.type).slice(-3)).toEqual(['TEXT_BLOCK_END', 'MODEL_CALL_END', 'REPLY_END']);
    expect(ofType(events, 'MODEL_CALL_END')[0]).toMatchObject({ finishReason: 'error', error: { status: 502 } });
    expect(textOfMsg(agent.context[1]!)).toBe('partial answer');
  });

  it('call() resolves with the reply message and rejects with AgentError on failure', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', input: { a: 2, b: 2 } }] },
      { text: 'Four.' },
      { error: new ModelError('quota exceeded', { status: 429, retryable: true, retryAfterMs: 1000 }) },
    ]);
    const agent = new Agent({ model, tools: [addTool] });
    const msg = await agent.call('2+2');
    expect(textOfMsg(msg)).toBe('Four.');
    expect(toolResultsOf(msg)).toHaveLength(1);
    expect(msg.metadata).toMatchObject({ finishReason: 'completed' });

    const failure = agent.call('again');
    await expect(failure).rejects.toBeInstanceOf(AgentError);
    await expect(failure).rejects.toMatchObject({ info: { status: 429, retryable: true }, finishReason: 'error' });
  });

  it('a second reply() on a busy agent queues behind the running one', async () => {
    const controller = new ModelTestingController();
    const agent = new Agent({ model: controller.model });
    const both = lastValueFrom(
      merge(
        agent.reply('first').pipe(map((e) => `1:${e.type}`)),
        agent.reply('second').pipe(map((e) => `2:${e.type}`)),
      ).pipe(toArray()),
    );
    controller.expectOne('first');
    controller.expectNone('second');
    controller.expectOne().flush({ text: 'one' });
    await Promise.resolve();
    controller.expectOne('second').flush({ text: 'two' });
    const order = await both;
    expect(order.indexOf('2:REPLY_START')).toBe(order.indexOf('1:REPLY_END') + 1);
    // The second reply saw the first exchange.
    expect(agent.context.map(textOfMsg)).toEqual(['first', 'one', 'second', 'two']);
    controller.verify();
  });

  it('a queued reply that is unsubscribed before its turn never runs', async () => {
    const controller = new ModelTestingController();
    const agent = new Agent({ model: controller.model });
    const first = lastValueFrom(agent.reply('first').pipe(toArray()));
    const queued = agent.reply('second').subscribe();
    queued.unsubscribe();
    controller.expectOne('first').flush({ text: 'one' });
    await first;
    controller.verify();
    expect(agent.busy).toBe(false);
    expect(agent.context.map(textOfMsg)).toEqual(['first', 'one']);
  });

  it('accepts messages and arrays of messages as input', async () => {
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const agent = new Agent({ model });
    await runReply(agent, agent.reply([createMsg('user', 'a'), createMsg('user', 'b')]));
    expect(model.requests[0]!.messages.map(textOfMsg)).toEqual(['a', 'b']);
  });

  it('refuses a resume event when no reply is suspended, with a clear error and no change', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([]) });
    const failure = lastValueFrom(agent.reply({ type: 'USER_CONFIRM_RESULT', results: [] } as never));
    await expect(failure).rejects.toBeInstanceOf(AgentUsageError);
    await expect(failure).rejects.toThrow(/no suspended reply/);
    expect(agent.context).toEqual([]);
    expect(agent.busy).toBe(false);
  });

  it('interrupt() during streaming ends the reply as interrupted and keeps the partial text', async () => {
    const controller = new ModelTestingController();
    const agent = new Agent({ model: controller.model });
    const done = lastValueFrom(agent.reply('tell me a story').pipe(toArray()));
    const call = controller.expectOne();
    call.streamText('Once upon');
    agent.interrupt('user pressed stop');
    const events = await done;
    expect(endOf(events).finishReason).toBe('interrupted');
    expect(call.cancelled).toBe(true);
    expect(call.request.signal.aborted).toBe(true);
    expect(textOfMsg(agent.context[1]!)).toBe('Once upon');
    // The next reply works normally.
    const next = lastValueFrom(agent.reply('go on').pipe(toArray()));
    controller.expectOne('go on').flush({ text: 'The end.' });
    expect(endOf(await next).finishReason).toBe('completed');
  });

  it('interrupt() while a tool runs answers the call with an interrupted result', async () => {
    let toolSignal: AbortSignal | undefined;
    const slow = defineTool({
      name: 'slow',
      description: 'never finishes',
      input: z.object({}),
      execute: (_input, ctx) => {
        toolSignal = ctx.signal;
        return new Promise<string>(() => undefined);
      },
    });
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 's1', name: 'slow', input: {} }] }]);
    const agent = new Agent({ model, tools: [slow] });
    const done = runReply(agent, agent.reply('run it'));
    await new Promise((r) => setTimeout(r, 5));
    agent.interrupt();
    const events = await done;
    expect(toolSignal?.aborted).toBe(true);
    expect(endOf(events).finishReason).toBe('interrupted');
    expect(ofType(events, 'TOOL_RESULT_END')).toEqual([
      expect.objectContaining({ toolCallId: 's1', status: 'interrupted' }),
    ]);
  });
});
