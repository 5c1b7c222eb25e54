import { defer, lastValueFrom, tap, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { textOfMsg, toolResultsOf } from '../message/msg.js';
import type { Middleware } from '../middleware/middleware.js';
import { defineTool } from '../tool/tool.js';
import { ModelTestingController, ScriptedChatModel } from '../testing/index.js';
import { endOf, ofType, runReply, sleep } from './helpers.js';

/** Interrupts the agent the first time `when` sees an event (or a hook entry) it matches. */
function interrupter(agentRef: { agent?: Agent }, hook: 'onReasoning' | 'onModelCall', when: 'enter'): Middleware {
  let done = false;
  return {
    [hook]: (
      _a: Agent,
      _c: unknown,
      input: never,
      next: (i: never) => ReturnType<NonNullable<Middleware['onAgent']>>,
    ) =>
      defer(() => {
        if (when === 'enter' && !done) {
          done = true;
          agentRef.agent!.interrupt('stop before the model call');
        }
        return next(input);
      }),
  };
}

describe('interrupt() at every phase boundary', () => {
  it('before the model call: no model request is sent, the reply ends interrupted', async () => {
    const ref: { agent?: Agent } = {};
    const model = new ScriptedChatModel([{ text: 'never' }, { text: 'second reply' }]);
    const agent = (ref.agent = new Agent({ model, middlewares: [interrupter(ref, 'onModelCall', 'enter')] }));
    const events = await runReply(agent, agent.reply('hi'));
    expect(endOf(events).finishReason).toBe('interrupted');
    expect(ofType(events, 'MODEL_CALL_START')).toHaveLength(0);
    expect(model.requests).toHaveLength(0);
    expect(agent.context.map(textOfMsg)).toEqual(['hi']);
    // The next reply works normally.
    const next = await runReply(agent, agent.reply('again'));
    expect(endOf(next).finishReason).toBe('completed');
  });

  it('mid-stream: the request is aborted and the partial text is kept', async () => {
    const controller = new ModelTestingController();
    const agent = new Agent({ model: controller.model });
    const done = lastValueFrom(agent.reply('story').pipe(toArray()));
    const call = controller.expectOne();
    call.streamText('It was a dark');
    agent.interrupt();
    const events = await done;
    expect(call.request.signal.aborted).toBe(true);
    expect(endOf(events).finishReason).toBe('interrupted');
    expect(events.map((e) => e.type).slice(-4)).toEqual([
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'MODEL_CALL_END',
      'REPLY_END',
    ]);
    expect(textOfMsg(agent.context[1]!)).toBe('It was a dark');
  });

  it('mid-stream of a tool call: the half-streamed call gets an interrupted result', async () => {
    const controller = new ModelTestingController();
    const tool = defineTool({
      name: 'search',
      description: '',
      input: z.object({ q: z.string() }),
      execute: () => 'r',
    });
    const agent = new Agent({ model: controller.model, tools: [tool] });
    const done = runReply(agent, agent.reply('find it'));
    controller
      .expectOne()
      .emit(
        { type: 'TOOL_CALL_START', blockId: 'b1', toolCallId: 'c1', name: 'search' },
        { type: 'TOOL_CALL_DELTA', blockId: 'b1', delta: '{"q":"ca' },
      );
    agent.interrupt();
    const events = await done;
    expect(endOf(events).finishReason).toBe('interrupted');
    expect(toolResultsOf(agent.context[1]!)).toEqual([
      expect.objectContaining({ toolCallId: 'c1', status: 'interrupted' }),
    ]);
  });

  it('mid-tool: the running tool is aborted, its call and the calls after it get interrupted results', async () => {
    let aborted = false;
    const slow = defineTool({
      name: 'slow',
      description: '',
      input: z.object({ n: z.number() }),
      execute: ({ n }, ctx) =>
        new Promise<string>((resolve) => {
          ctx.signal.addEventListener('abort', () => (aborted = true));
          if (n === 1) setTimeout(() => resolve('fast one'), 1);
        }),
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'a', name: 'slow', input: { n: 1 } },
          { id: 'b', name: 'slow', input: { n: 2 } },
          { id: 'c', name: 'slow', input: { n: 3 } },
        ],
      },
    ]);
    const agent = new Agent({ model, tools: [slow] });
    const done = runReply(agent, agent.reply('run three'));
    await sleep(20);
    agent.interrupt();
    const events = await done;
    expect(aborted).toBe(true);
    expect(endOf(events).finishReason).toBe('interrupted');
    expect(toolResultsOf(agent.context[1]!).map((r) => [r.toolCallId, r.status])).toEqual([
      ['a', 'success'],
      ['b', 'interrupted'],
      ['c', 'interrupted'],
    ]);
  });

  it('between tools: the next tool never starts', async () => {
    const started: string[] = [];
    const ref: { agent?: Agent } = {};
    const step = defineTool({
      name: 'step',
      description: '',
      input: z.object({ n: z.number() }),
      execute: ({ n }) => {
        started.push(`step ${n}`);
        return `done ${n}`;
      },
    });
    // Interrupt as soon as the consumer sees the first tool result, before the second tool runs.
    const stopAfterFirst: Middleware = {
      onAgent: (_a, _c, input, next) =>
        next(input).pipe(
          tap((e) => {
            if (e.type === 'TOOL_RESULT_END' && e.toolCallId === 's1') ref.agent!.interrupt('between tools');
          }),
        ),
    };
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 's1', name: 'step', input: { n: 1 } },
          { id: 's2', name: 'step', input: { n: 2 } },
        ],
      },
    ]);
    const agent = (ref.agent = new Agent({ model, tools: [step], middlewares: [stopAfterFirst] }));
    const events = await runReply(agent, agent.reply('two steps'));
    expect(started).toEqual(['step 1']);
    expect(endOf(events).finishReason).toBe('interrupted');
    expect(toolResultsOf(agent.context[1]!).map((r) => [r.toolCallId, r.status])).toEqual([
      ['s1', 'success'],
      ['s2', 'interrupted'],
    ]);
    expect(model.requests).toHaveLength(1);
  });

  it('at the start of a tool result: the tool never runs, its call gets an interrupted result', async () => {
    const started: string[] = [];
    const ref: { agent?: Agent } = {};
    const sideEffect = defineTool({
      name: 'send_email',
      description: '',
      input: z.object({ to: z.string() }),
      execute: ({ to }) => {
        started.push(to);
        return 'sent';
      },
    });
    // The consumer interrupts while it handles TOOL_RESULT_START, before `execute` is called.
    const stopAtStart: Middleware = {
      onAgent: (_a, _c, input, next) =>
        next(input).pipe(
          tap((e) => {
            if (e.type === 'TOOL_RESULT_START') ref.agent!.interrupt('changed my mind');
          }),
        ),
    };
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'm1', name: 'send_email', input: { to: 'a@example.com' } }] },
    ]);
    const agent = (ref.agent = new Agent({ model, tools: [sideEffect], middlewares: [stopAtStart] }));
    const events = await runReply(agent, agent.reply('mail them'));
    expect(started).toEqual([]);
    expect(endOf(events).finishReason).toBe('interrupted');
    expect(toolResultsOf(agent.context[1]!).map((r) => [r.toolCallId, r.status])).toEqual([['m1', 'interrupted']]);
  });

  it('interrupt() with no running reply does nothing', () => {
    const agent = new Agent({ model: new ScriptedChatModel([]) });
    expect(() => agent.interrupt()).not.toThrow();
  });
});
