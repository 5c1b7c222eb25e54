import { firstValueFrom, filter, Observable, takeUntil, timer } from 'rxjs';
import { z } from 'zod';
import type { AgentEvent } from '../event/events.js';
import { textOfMsg, toolResultsOf } from '../message/msg.js';
import type { Middleware } from '../middleware/middleware.js';
import { defineTool } from '../tool/tool.js';
import { assertConsistentConversation, assertReplyGrammar } from '../testing/grammar.js';
import { ScriptedChatModel } from '../testing/scripted-model.js';
import { addTool, endOf, ofType, runReply, sleep } from '../__tests__/helpers.js';
import { Agent } from './agent.js';

/** A tool that runs until its call is cancelled, recording the abort. */
function hangingTool(aborted: { value: boolean }) {
  return defineTool({
    name: 'wait_forever',
    description: 'Waits until cancelled',
    input: z.object({}),
    execute: (_input, { signal }) =>
      new Observable<string>(() => {
        signal.addEventListener('abort', () => (aborted.value = true), { once: true });
      }),
  });
}

describe('agent.asTool()', () => {
  it("runs the nested reply for the caller's user: its tools and middlewares see the same userId", async () => {
    const seen: (string | undefined)[] = [];
    const whoAmI = defineTool({
      name: 'who_am_i',
      description: 'Says which user it acts for',
      input: z.object({}),
      execute: (_input, toolCtx) => {
        seen.push(toolCtx.userId);
        return toolCtx.userId ?? 'nobody';
      },
    });
    const spy: Middleware = {
      onAgent: (_agent, ctx, input, next) => {
        seen.push(`ctx:${ctx.userId}`);
        return next(input);
      },
    };
    const inner = new Agent({
      name: 'records',
      model: new ScriptedChatModel([{ toolCalls: [{ id: 'ic1', name: 'who_am_i', input: {} }] }, { text: 'done' }]),
      tools: [whoAmI],
      middlewares: [spy],
    });
    const outer = new Agent({
      name: 'lead',
      model: new ScriptedChatModel([
        { toolCalls: [{ id: 'oc1', name: 'records', input: { message: 'Who?' } }] },
        { text: 'ok' },
      ]),
      tools: [inner.asTool({ description: 'Keeps records.' })],
    });
    await runReply(outer, outer.reply('Look me up', { userId: 'ann' }));
    expect(seen).toEqual(['ctx:ann', 'ann']);
  });

  it('streams the inner reply through the outer one, with its own source, and returns its final text', async () => {
    const innerModel = new ScriptedChatModel([
      { text: 'Adding.', toolCalls: [{ id: 'ic1', name: 'add', input: { a: 2, b: 3 } }] },
      { text: ['The sum ', 'is 5.'] },
    ]);
    const inner = new Agent({ name: 'calculator', model: innerModel, tools: [addTool] });
    const outerModel = new ScriptedChatModel([
      { toolCalls: [{ id: 'oc1', name: 'calculator', input: { message: 'What is 2 + 3?' } }] },
      { text: 'Calculator says 5.' },
    ]);
    const outer = new Agent({
      name: 'lead',
      model: outerModel,
      tools: [inner.asTool({ description: 'Does arithmetic.' })],
    });

    const events = await runReply(outer, outer.reply('Please add 2 and 3'));

    const innerEvents = events.filter((e) => e.source === 'calculator');
    expect(innerEvents[0]).toMatchObject({ type: 'REPLY_START' });
    expect(innerEvents[innerEvents.length - 1]).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(new Set(innerEvents.map((e) => e.replyId)).size).toBe(1);
    expect(innerEvents[0]!.replyId).not.toBe(events[0]!.replyId);
    // Nested inside the outer tool result block, live: between its START and END.
    const start = events.findIndex((e) => e.type === 'TOOL_RESULT_START' && e.source === 'lead');
    const end = events.findIndex((e) => e.type === 'TOOL_RESULT_END' && e.source === 'lead');
    const innerStart = events.indexOf(innerEvents[0]!);
    const innerEnd = events.indexOf(innerEvents[innerEvents.length - 1]!);
    expect(start).toBeLessThan(innerStart);
    expect(innerEnd).toBeLessThan(end);
    // The final text (not the text before the tool call) is the result, which the outer model sees.
    const result = ofType(events, 'TOOL_RESULT_END').find((e) => e.source === 'lead')!;
    expect(result).toMatchObject({
      toolCallId: 'oc1',
      status: 'success',
      output: [{ type: 'text', text: 'The sum is 5.' }],
    });
    const seen = outerModel.requests[1]!.messages.at(-1)!;
    expect(toolResultsOf(seen)[0]!.output).toEqual([{ type: 'text', text: 'The sum is 5.' }]);
    // The outer reply's own message and usage hold none of the inner reply's content.
    expect(textOfMsg(outer.context[1]!)).toBe('Calculator says 5.');
    expect(endOf(events).usage?.inputTokens).toBe(20);
    // The inner agent kept its conversation.
    expect(inner.context.map((m) => textOfMsg(m))).toEqual(['What is 2 + 3?', 'Adding.The sum is 5.']);
    expect(innerModel.requests[0]!.tools.map((t) => t.name)).toEqual(['add']);
    expect(outerModel.requests[0]!.tools[0]).toMatchObject({
      name: 'calculator',
      description: 'Does arithmetic.',
      parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    });
  });

  it('interrupting the outer reply cancels the inner one, which still ends with its own REPLY_END', async () => {
    const aborted = { value: false };
    const inner = new Agent({
      name: 'worker',
      model: new ScriptedChatModel([{ toolCalls: [{ id: 'w1', name: 'wait_forever', input: {} }] }]),
      tools: [hangingTool(aborted)],
    });
    const outer = new Agent({
      name: 'lead',
      model: new ScriptedChatModel([{ toolCalls: [{ id: 'o1', name: 'worker', input: { message: 'work' } }] }]),
      tools: [inner.asTool({ description: 'Works.' })],
    });
    const events: AgentEvent[] = [];
    const done = new Promise<void>((resolve, reject) =>
      outer.reply('go').subscribe({ next: (e) => events.push(e), error: reject, complete: resolve }),
    );
    await waitFor(() => events.some((e) => e.source === 'worker' && e.type === 'TOOL_RESULT_START'));
    outer.interrupt('user pressed stop');
    await done;

    expect(aborted.value).toBe(true);
    expect(endOf(events).finishReason).toBe('interrupted');
    const innerEnd = events.filter((e) => e.source === 'worker' && e.type === 'REPLY_END');
    expect(innerEnd).toEqual([expect.objectContaining({ finishReason: 'interrupted' })]);
    // The inner reply's open tool call was answered in the stream, before the outer result closed.
    expect(events.filter((e) => e.source === 'worker' && e.type === 'TOOL_RESULT_END')).toEqual([
      expect.objectContaining({ toolCallId: 'w1', status: 'interrupted' }),
    ]);
    assertReplyGrammar(events);
    assertConsistentConversation(outer.context);
    assertConsistentConversation(inner.context);
    expect(inner.busy).toBe(false);
  });

  it('unsubscribing from the outer reply aborts the inner model request', async () => {
    const innerModel = new ScriptedChatModel([{ text: ['a', 'b', 'c', 'd', 'e', 'f'] }], { delayMs: 30 });
    const inner = new Agent({ name: 'slow', model: innerModel });
    const outer = new Agent({
      name: 'lead',
      model: new ScriptedChatModel([{ toolCalls: [{ name: 'slow', input: { message: 'take your time' } }] }]),
      tools: [inner.asTool({ description: 'Slow.' })],
    });
    const firstDelta = firstValueFrom(
      outer.reply('go').pipe(filter((e) => e.source === 'slow' && e.type === 'TEXT_BLOCK_DELTA')),
    );
    await firstDelta; // firstValueFrom unsubscribes after the first inner delta
    expect(innerModel.requests[0]!.signal.aborted).toBe(true);
    await waitFor(() => !inner.busy);
    assertConsistentConversation(inner.context);
  });

  it('a tool-call timeout (an onActing layer cutting the call) closes the nested reply too', async () => {
    const aborted = { value: false };
    const inner = new Agent({
      name: 'worker',
      model: new ScriptedChatModel([{ toolCalls: [{ id: 'w1', name: 'wait_forever', input: {} }] }]),
      tools: [hangingTool(aborted)],
    });
    const timeout: Middleware = {
      key: 'timeout',
      onActing: (_agent, _ctx, input, next) => next(input).pipe(takeUntil(timer(100))),
    };
    const outer = new Agent({
      name: 'lead',
      model: new ScriptedChatModel([
        { toolCalls: [{ id: 'o1', name: 'worker', input: { message: 'work' } }] },
        { text: 'It timed out.' },
      ]),
      tools: [inner.asTool({ description: 'Works.' })],
      middlewares: [timeout],
    });
    const events = await runReply(outer, outer.reply('go'));

    expect(aborted.value).toBe(true);
    expect(endOf(events).finishReason).toBe('completed');
    const innerEnds = events.filter((e) => e.source === 'worker' && e.type === 'REPLY_END');
    expect(innerEnds).toEqual([expect.objectContaining({ finishReason: 'interrupted' })]);
    const result = ofType(events, 'TOOL_RESULT_END').find((e) => e.source === 'lead')!;
    expect(result).toMatchObject({ toolCallId: 'o1', status: 'error' });
    expect(events.indexOf(innerEnds[0]!)).toBeLessThan(events.indexOf(result));
  });

  it('an inner failure is an error result the outer model sees; the outer reply goes on', async () => {
    const inner = new Agent({ name: 'broken', model: new ScriptedChatModel([{ error: new Error('upstream 500') }]) });
    const outerModel = new ScriptedChatModel([
      { toolCalls: [{ name: 'broken', input: { message: 'hi' } }] },
      { text: 'Sorry.' },
    ]);
    const outer = new Agent({ name: 'lead', model: outerModel, tools: [inner.asTool({ description: 'Broken.' })] });
    const events = await runReply(outer, outer.reply('go'));

    expect(endOf(events).finishReason).toBe('completed');
    const result = ofType(events, 'TOOL_RESULT_END').find((e) => e.source === 'lead')!;
    expect(result.status).toBe('error');
    expect(JSON.stringify(result.output)).toContain('agent \\"broken\\" failed: upstream 500');
  });

  it('refuses an agent with the name of its caller (and so an agent calling itself)', async () => {
    const twin = new Agent({ name: 'lead', model: new ScriptedChatModel([{ text: 'never' }]) });
    const outer = new Agent({
      name: 'lead',
      model: new ScriptedChatModel([{ toolCalls: [{ name: 'helper', input: { message: 'x' } }] }, { text: 'ok' }]),
      tools: [twin.asTool({ name: 'helper', description: 'Same name.' })],
    });
    const events = await runReply(outer, outer.reply('go'));
    const result = ofType(events, 'TOOL_RESULT_END')[0]!;
    expect(result.status).toBe('error');
    expect(JSON.stringify(result.output)).toContain('give the agents distinct names');
    expect(twin.context).toEqual([]);
  });

  it('takes a custom input schema and prompt', async () => {
    const innerModel = new ScriptedChatModel([{ text: 'Bonjour' }]);
    const inner = new Agent({ name: 'translator', model: innerModel });
    const tool = inner.asTool({
      name: 'translate',
      description: 'Translates text.',
      input: z.object({ text: z.string(), to: z.enum(['fr', 'de']) }),
      prompt: ({ text, to }) => `Translate into ${to}: ${text}`,
    });
    const outer = new Agent({
      name: 'lead',
      model: new ScriptedChatModel([
        { toolCalls: [{ name: 'translate', input: { text: 'Hello', to: 'fr' } }] },
        { text: 'Done' },
      ]),
      tools: [tool],
    });
    await runReply(outer, outer.reply('go'));
    expect(textOfMsg(innerModel.requests[0]!.messages.at(-1)!)).toBe('Translate into fr: Hello');
    expect(toolResultsOf(outer.context[1]!)[0]!.output).toEqual([{ type: 'text', text: 'Bonjour' }]);
  });

  it('one agent used by two replies at once runs them one after the other', async () => {
    const inner = new Agent({
      name: 'shared',
      model: new ScriptedChatModel((request) => ({ text: [`re: ${textOfMsg(request.messages.at(-1)!)}`, '.'] }), {
        delayMs: 5,
      }),
    });
    const tool = inner.asTool({ description: 'Shared helper.' });
    const callerModel = (msg: string) =>
      new ScriptedChatModel([{ toolCalls: [{ name: 'shared', input: { message: msg } }] }, { text: 'ok' }]);
    const a = new Agent({ name: 'a', model: callerModel('from a'), tools: [tool] });
    const b = new Agent({ name: 'b', model: callerModel('from b'), tools: [tool] });
    const [ea, eb] = await Promise.all([runReply(a, a.reply('go')), runReply(b, b.reply('go'))]);

    const span = (events: AgentEvent[]) => {
      const own = events.filter((e) => e.source === 'shared');
      return [own[0]!.createdAt, own.at(-1)!.createdAt] as const;
    };
    const [sa, sb] = [span(ea), span(eb)];
    expect(sa[1] <= sb[0] || sb[1] <= sa[0]).toBe(true);
    expect(ofType(ea, 'TOOL_RESULT_END').find((e) => e.source === 'a')!.output).toEqual([
      { type: 'text', text: 're: from a.' },
    ]);
    expect(ofType(eb, 'TOOL_RESULT_END').find((e) => e.source === 'b')!.output).toEqual([
      { type: 'text', text: 're: from b.' },
    ]);
    expect(inner.context).toHaveLength(4);
  });
  it('with output, the inner reply is asked for structured output and the value is the result', async () => {
    const inner = new Agent({
      name: 'extractor',
      model: new ScriptedChatModel([{ toolCalls: [{ name: 'final_output', input: { name: 'Ada', born: 1815 } }] }]),
    });
    const outer = new Agent({
      name: 'lead',
      model: new ScriptedChatModel([
        { toolCalls: [{ name: 'extractor', input: { message: 'Ada Lovelace, b. 1815' } }] },
        { text: 'ok' },
      ]),
      tools: [
        inner.asTool({ description: 'Extracts a person.', output: z.object({ name: z.string(), born: z.number() }) }),
      ],
    });
    const events = await runReply(outer, outer.reply('go'));
    const result = ofType(events, 'TOOL_RESULT_END').find((e) => e.source === 'lead')!;
    expect(result.output).toEqual([{ type: 'text', text: '{"name":"Ada","born":1815}' }]);
    expect(events.find((e) => e.source === 'extractor' && e.type === 'REPLY_END')).toMatchObject({
      output: { name: 'Ada', born: 1815 },
    });
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const t0 = Date.now();
  while (!condition()) {
    if (Date.now() - t0 > timeoutMs) throw new Error('condition not met in time');
    await sleep(5);
  }
}
