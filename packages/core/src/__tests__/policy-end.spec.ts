// Policy ends (ctx.stop → REPLY_END {finishReason: 'stopped', stopReason}), per-reply state that
// survives a suspension and a resume from a snapshot, and the attempt number of a model call.
import { concat, defer, EMPTY, Observable, of } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { toolResultsOf } from '../message/msg.js';
import type { Middleware } from '../middleware/middleware.js';
import { ScriptedChatModel } from '../testing/index.js';
import { defineTool } from '../tool/tool.js';
import { addTool, endOf, ofType, runReply } from './helpers.js';

describe('policy ends: ctx.stop()', () => {
  it('from onReasoning: the reply ends stopped with the reason, after the events emitted before, and call() resolves', async () => {
    const model = new ScriptedChatModel(() => ({ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }));
    const guard: Middleware = {
      onReasoning: (_agent, ctx, input, next) =>
        ctx.iteration < 3
          ? next(input)
          : concat(
              of(ctx.event('CUSTOM', { name: 'guard', value: 'stopping' })),
              defer(() => {
                ctx.stop({ code: 'budget', message: 'the budget is spent' });
                return EMPTY;
              }),
            ),
    };
    const agent = new Agent({ model, tools: [addTool], middlewares: [guard] });
    const events = await runReply(agent, agent.reply('go'));

    expect(endOf(events)).toMatchObject({
      finishReason: 'stopped',
      stopReason: { code: 'budget', message: 'the budget is spent' },
    });
    expect(endOf(events).error).toBeUndefined();
    expect(events.at(-2)).toMatchObject({ type: 'CUSTOM', name: 'guard' });
    expect(model.requests).toHaveLength(2);
    expect(toolResultsOf(agent.context[1]!).map((r) => r.status)).toEqual(['success', 'success']);

    const msg = await agent.call('again');
    expect(msg.metadata).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'budget' } });
  });

  it('from onActing while another call runs: that call is cancelled, every call answered, every block closed', async () => {
    let aborted = false;
    const slow = defineTool({
      name: 'slow',
      description: 'waits',
      input: z.object({}),
      concurrencySafe: true,
      execute: (_input, { signal }) =>
        new Promise<string>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
    });
    const fast = defineTool({
      name: 'fast',
      description: 'quick',
      input: z.object({}),
      concurrencySafe: true,
      execute: () => 'ok',
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'c1', name: 'slow', input: {} },
          { id: 'c2', name: 'fast', input: {} },
        ],
      },
    ]);
    const guard: Middleware = {
      onActing: (_agent, ctx, input, next) =>
        input.tool.name !== 'fast'
          ? next(input)
          : new Observable((subscriber) => {
              // Stopped once the slow call is under way.
              const t = setTimeout(() => {
                ctx.stop({ code: 'tool_guard', message: '"fast" is not allowed here' });
                subscriber.complete();
              }, 20);
              return () => clearTimeout(t);
            }),
    };
    const agent = new Agent({ model, tools: [slow, fast], middlewares: [guard] });
    const events = await runReply(agent, agent.reply('go'));

    expect(endOf(events)).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'tool_guard' } });
    expect(aborted).toBe(true);
    expect(ofType(events, 'TOOL_RESULT_END').map((e) => [e.toolCallId, e.status])).toEqual(
      expect.arrayContaining([
        ['c1', 'interrupted'],
        ['c2', 'interrupted'],
      ]),
    );
    expect(toolResultsOf(agent.context[1]!).map((r) => r.output[0])).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          text: expect.stringContaining('the reply was stopped ("fast" is not allowed here)'),
        }),
      ]),
    );
  });

  it('refuses a stop without a code and message, and is a no-op after the reply ended', async () => {
    const seen: unknown[] = [];
    let late: (() => void) | undefined;
    const mw: Middleware = {
      onReasoning: (_agent, ctx, input, next) => {
        try {
          ctx.stop({ code: 'x' } as never);
        } catch (e) {
          seen.push(e);
        }
        late = () => ctx.stop({ code: 'late', message: 'too late' });
        return next(input);
      },
    };
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'hi' }]), middlewares: [mw] });
    const events = await runReply(agent, agent.reply('hello'));
    late!();
    expect((seen[0] as Error).message).toMatch(/needs a string "code" and a string "message"/);
    expect(endOf(events).finishReason).toBe('completed');
  });
});

describe('ctx.replyState: per-reply values that survive a suspension', () => {
  it('keeps its values across a suspension and a resume from a snapshot, and starts empty with the next reply', async () => {
    const risky = defineTool({
      name: 'risky',
      description: 'asks',
      input: z.object({}),
      needsApproval: true,
      execute: () => 'done',
    });
    const steps: number[] = [];
    const counter: Middleware = {
      key: 'counter',
      onReasoning: (_agent, ctx, input, next) => {
        const slot = ctx.replyState<number>('counter');
        slot.set((slot.get() ?? 0) + 1);
        steps.push(slot.get()!);
        return next(input);
      },
    };
    const script = [
      { toolCalls: [{ id: 'c1', name: 'risky', input: {} }] },
      { text: 'finished' },
      { text: 'next reply' },
    ];
    const first = new Agent({ model: new ScriptedChatModel(script), tools: [risky], middlewares: [counter] });
    const suspended = await runReply(first, first.reply('do it'));
    expect(endOf(suspended).finishReason).toBe('awaiting_confirmation');
    const snapshot = JSON.parse(JSON.stringify(first.saveState())) as unknown;
    expect(first.saveState().pending?.replyState).toEqual({ counter: 1 });

    const model = new ScriptedChatModel(script.slice(1));
    const second = new Agent({ model, tools: [risky], middlewares: [counter], state: snapshot });
    const resumed = await runReply(
      second,
      second.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 'c1', confirmed: true }] }),
    );
    expect(endOf(resumed).finishReason).toBe('completed');
    await runReply(second, second.reply('again'));
    expect(steps).toEqual([1, 2, 1]);
  });
});

describe('ModelCallInput.attempt', () => {
  it('is 1 for the call the loop makes', async () => {
    const attempts: (number | undefined)[] = [];
    const mw: Middleware = {
      onModelCall: (_agent, _ctx, input, next) => {
        attempts.push(input.attempt);
        return next(input);
      },
    };
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'a' }]), middlewares: [mw] });
    await runReply(agent, agent.reply('x'));
    expect(attempts).toEqual([1]);
  });
});
