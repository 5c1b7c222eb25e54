import { concat, defer, finalize, of, retry, tap } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { Agent } from '../agent/agent.js';
import type { AgentEvent } from '../event/events.js';
import { textOfMsg } from '../message/msg.js';
import { composeChain, type Layer } from '../middleware/chain.js';
import type { RuntimeContext } from '../middleware/context.js';
import type { Middleware } from '../middleware/middleware.js';
import { ModelError } from '../model/model-error.js';
import { ScriptedChatModel } from '../testing/index.js';
import { addTool, endOf, ofType, runReply } from './helpers.js';

/** A middleware that records entering and leaving every onion hook. */
function recorder(name: string, log: string[]): Middleware {
  const wrap =
    (hook: string) =>
    (
      _a: unknown,
      _c: RuntimeContext,
      input: never,
      next: (i: never) => ReturnType<NonNullable<Middleware['onAgent']>>,
    ) =>
      defer(() => {
        log.push(`${name}.${hook}:enter`);
        return next(input).pipe(finalize(() => log.push(`${name}.${hook}:exit`)));
      });
  return {
    key: name,
    onAgent: wrap('agent'),
    onReasoning: wrap('reasoning'),
    onActing: wrap('acting'),
    onModelCall: wrap('model'),
    onSystemPrompt: (_a, _c, prompt) => `${prompt}[${name}]`,
  };
}

describe('middleware chains', () => {
  it('runs all four onions with the first middleware outermost, and the prompt pipeline in order', async () => {
    const log: string[] = [];
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: '2' }]);
    const agent = new Agent({
      model,
      tools: [addTool],
      sysPrompt: 'base',
      middlewares: [recorder('A', log), recorder('B', log)],
    });
    await runReply(agent, agent.reply('1+1'));

    expect(log).toEqual([
      'A.agent:enter',
      'B.agent:enter',
      'A.reasoning:enter',
      'B.reasoning:enter',
      'A.model:enter',
      'B.model:enter',
      'B.model:exit',
      'A.model:exit',
      'B.reasoning:exit',
      'A.reasoning:exit',
      'A.acting:enter',
      'B.acting:enter',
      'B.acting:exit',
      'A.acting:exit',
      'A.reasoning:enter',
      'B.reasoning:enter',
      'A.model:enter',
      'B.model:enter',
      'B.model:exit',
      'A.model:exit',
      'B.reasoning:exit',
      'A.reasoning:exit',
      'B.agent:exit',
      'A.agent:exit',
    ]);
    // onSystemPrompt: applied in list order, once per reasoning step, from the base prompt each time.
    expect(model.requests.map((r) => textOfMsg(r.messages[0]!))).toEqual(['base[A][B]', 'base[A][B]']);
  });

  it('an input override reaches inner layers only', async () => {
    const seen: Record<string, unknown> = {};
    const outer: Middleware = {
      onModelCall: (_a, _c, input, next) => {
        seen['outer'] = input.options.temperature;
        return next(input);
      },
    };
    const override: Middleware = {
      onModelCall: (_a, _c, input, next) => next({ ...input, options: { ...input.options, temperature: 0.1 } }),
    };
    const inner: Middleware = {
      onModelCall: (_a, _c, input, next) => {
        seen['inner'] = input.options.temperature;
        return next(input);
      },
    };
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const agent = new Agent({ model, modelOptions: { temperature: 0.9 }, middlewares: [outer, override, inner] });
    await runReply(agent, agent.reply('hi'));
    expect(seen).toEqual({ outer: 0.9, inner: 0.1 });
    expect(model.requests[0]!.options.temperature).toBe(0.1);
  });

  it('a layer that does not call next short-circuits the inner layers and the model', async () => {
    const innerCalls: string[] = [];
    const cache: Middleware = {
      onModelCall: (_a, ctx) =>
        of(
          ctx.event('MODEL_CALL_START', { model: 'cache' }),
          ctx.event('TEXT_BLOCK_START', { blockId: 'cached' }),
          ctx.event('TEXT_BLOCK_DELTA', { blockId: 'cached', delta: 'from cache' }),
          ctx.event('TEXT_BLOCK_END', { blockId: 'cached' }),
          ctx.event('MODEL_CALL_END', {
            model: 'cache',
            finishReason: 'stop',
            usage: { inputTokens: 0, outputTokens: 0 },
          }),
        ),
    };
    const inner: Middleware = {
      onModelCall: (_a, _c, input, next) => {
        innerCalls.push('inner');
        return next(input);
      },
    };
    const model = new ScriptedChatModel([]);
    const agent = new Agent({ model, middlewares: [cache, inner] });
    await runReply(agent, agent.reply('hi'));
    expect(model.requests).toHaveLength(0);
    expect(innerCalls).toEqual([]);
    expect(textOfMsg(agent.context[1]!)).toBe('from cache');
  });

  it('retry() around next re-enters the inner layers and calls the model again', async () => {
    let innerEntries = 0;
    const retrying: Middleware = { onModelCall: (_a, _c, input, next) => next(input).pipe(retry(2)) };
    const inner: Middleware = {
      onModelCall: (_a, _c, input, next) => {
        innerEntries++;
        return next(input);
      },
    };
    const model = new ScriptedChatModel([
      { error: new ModelError('503', { status: 503, retryable: true }) },
      { error: new ModelError('503', { status: 503, retryable: true }) },
      { text: 'third time lucky' },
    ]);
    const agent = new Agent({ model, middlewares: [retrying, inner] });
    const events = await runReply(agent, agent.reply('hi'));
    expect(innerEntries).toBe(3);
    expect(model.requests).toHaveLength(3);
    expect(endOf(events).finishReason).toBe('completed');
    // Each attempt is a well-formed model call: START ... END.
    expect(ofType(events, 'MODEL_CALL_END').map((e) => e.finishReason)).toEqual(['error', 'error', 'stop']);
  });

  it.each(['onModelCall', 'onReasoning', 'onActing'] as const)(
    'a synchronous throw in %s becomes an error notification handled by the loop',
    async (hook) => {
      const thrower: Middleware = {
        [hook]: () => {
          throw new Error(`${hook} is broken`);
        },
      };
      const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] }, { text: 'done' }]);
      const agent = new Agent({ model, tools: [addTool], middlewares: [thrower] });
      const events = await runReply(agent, agent.reply('x'));
      if (hook === 'onActing') {
        // A failing tool execution becomes an error result; the loop continues.
        expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({ status: 'error' });
        expect(JSON.stringify(ofType(events, 'TOOL_RESULT_END')[0]!.output)).toContain('onActing is broken');
        expect(endOf(events).finishReason).toBe('completed');
      } else {
        expect(endOf(events)).toMatchObject({ finishReason: 'error', error: { message: `${hook} is broken` } });
      }
    },
  );

  it('a synchronous throw in onAgent: the agent appends REPLY_START and REPLY_END error itself', async () => {
    const thrower: Middleware = {
      onAgent: () => {
        throw new Error('agent layer broken');
      },
    };
    const agent = new Agent({ model: new ScriptedChatModel([]), middlewares: [thrower] });
    const events = await runReply(agent, agent.reply('x'));
    expect(events.map((e) => e.type)).toEqual(['REPLY_START', 'REPLY_END']);
    expect(endOf(events).error?.message).toBe('agent layer broken');
  });

  it('an onAgent layer failing mid-stream: open blocks are closed before the appended REPLY_END', async () => {
    const breaksOnText: Middleware = {
      onAgent: (_a, _c, input, next) =>
        next(input).pipe(
          tap((e) => {
            if (e.type === 'TEXT_BLOCK_DELTA') throw new Error('renderer crashed');
          }),
        ),
    };
    const agent = new Agent({ model: new ScriptedChatModel([{ text: ['a', 'b'] }]), middlewares: [breaksOnText] });
    const events = await runReply(agent, agent.reply('x'));
    expect(events.map((e) => e.type)).toEqual([
      'REPLY_START',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_END',
      'MODEL_CALL_END',
      'REPLY_END',
    ]);
    expect(endOf(events).error?.message).toBe('renderer crashed');
    expect(agent.busy).toBe(false);
  });

  it('events from the core pass through every outer layer (onAgent sees MODEL_CALL_END and tool results)', async () => {
    const seenByAgentLayer: string[] = [];
    const seenByReasoningLayer: string[] = [];
    const agentLayer: Middleware = {
      onAgent: (_a, _c, input, next) => next(input).pipe(tap((e) => seenByAgentLayer.push(e.type))),
    };
    const reasoningLayer: Middleware = {
      onReasoning: (_a, _c, input, next) => next(input).pipe(tap((e) => seenByReasoningLayer.push(e.type))),
    };
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: '2' }]);
    const agent = new Agent({ model, tools: [addTool], middlewares: [agentLayer, reasoningLayer] });
    const events = await runReply(agent, agent.reply('1+1'));
    expect(seenByAgentLayer).toEqual(events.map((e) => e.type));
    expect(seenByAgentLayer).toEqual(
      expect.arrayContaining(['REPLY_START', 'MODEL_CALL_END', 'TOOL_RESULT_END', 'REPLY_END']),
    );
    expect(seenByReasoningLayer.filter((t) => t === 'MODEL_CALL_END')).toHaveLength(2);
  });

  it('a middleware can add its own events, which reach the consumer', async () => {
    const stepMarker: Middleware = {
      onReasoning: (_a, ctx, input, next) =>
        defer(() => concat(of(ctx.event('CUSTOM', { name: 'step', value: ctx.iteration })), next(input))),
    };
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: '2' }]);
    const agent = new Agent({ model, tools: [addTool], middlewares: [stepMarker] });
    const events = await runReply(agent, agent.reply('1+1'));
    expect(ofType(events, 'CUSTOM').map((e) => e.value)).toEqual([1, 2]);
  });
});

describe('composeChain (marbles)', () => {
  const layer =
    (tag: string): Layer<string> =>
    (_agent, _ctx, input, next) =>
      next(`${input}>${tag}`);

  it('is lazy, composes first-outermost and tears down on unsubscribe', () => {
    const inputs: string[] = [];
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, expectObservable, expectSubscriptions }) => {
      const inner = cold<AgentEvent>('a-b-c-|', {
        a: { type: 'CUSTOM' } as AgentEvent,
        b: { type: 'CUSTOM' } as AgentEvent,
        c: { type: 'CUSTOM' } as AgentEvent,
      });
      const chain = composeChain([layer('A'), layer('B')]);
      const out = chain(undefined as never, undefined as never, 'in', (i) => {
        inputs.push(i);
        return inner;
      });
      expect(inputs).toEqual([]); // nothing runs before subscribe
      expectObservable(out, '^--!').toBe('a-b', {
        a: { type: 'CUSTOM' },
        b: { type: 'CUSTOM' },
      });

      expectSubscriptions(inner.subscriptions).toBe('^--!');
    });
    expect(inputs).toEqual(['in>A>B']); // the input as rewritten by A then B
  });

  it('an empty chain calls the terminal directly', () => {
    const terminal = jest.fn(() => of({ type: 'CUSTOM' } as AgentEvent));
    const chain = composeChain<string>([]);
    void chain(undefined as never, undefined as never, 'x', terminal);
    expect(terminal).toHaveBeenCalledWith('x');
  });
});
