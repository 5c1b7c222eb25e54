import {
  catchError,
  concat,
  defer,
  filter,
  finalize,
  from,
  lastValueFrom,
  map,
  retry,
  take,
  tap,
  throwError,
  toArray,
} from 'rxjs';
import { z } from 'zod';
import {
  Agent,
  type AgentEvent,
  type ChatModel,
  defineTool,
  isEvent,
  type Middleware,
  middlewareKey,
  ModelError,
  newId,
  type ReplyInput,
  toErrorInfo,
  toolResultsOf,
} from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { customValues, run as runReply, textOf } from '../__tests__/helpers.js';
import { ModelCallLimitMiddleware } from '../model-call-limit/index.js';
import { type MiddlewareFailure, resilient } from './index.js';

/** The replies of this spec say 'go'. */
const run = (agent: Agent, input: ReplyInput = 'go') => runReply(agent, input);

const errorEvents = (events: readonly AgentEvent[]) => customValues(events, 'middleware.error');

function recorder() {
  const failures: { error: unknown; failure: MiddlewareFailure }[] = [];
  return { failures, onError: (error: unknown, failure: MiddlewareFailure) => failures.push({ error, failure }) };
}

const bug = () => new Error('bug in the middleware');

function fixture() {
  const ran: string[] = [];
  const echo = defineTool({
    name: 'echo',
    description: 'echo',
    input: z.object({ s: z.string() }),
    execute: ({ s }) => (ran.push(s), s),
  });
  return { ran, echo };
}

describe('resilient', () => {
  it('skips a hook that throws before calling next: the phase runs as if the middleware were absent', async () => {
    const { failures, onError } = recorder();
    const broken: Middleware = {
      key: 'broken',
      onReasoning: () => {
        throw bug();
      },
    };
    const model = new ScriptedChatModel([{ text: 'Hello' }]);
    const agent = new Agent({ model, middlewares: [resilient(broken, { onError })] });
    const { events, end } = await run(agent);

    expect(end.finishReason).toBe('completed');
    expect(textOf(events)).toBe('Hello');
    expect(model.requests).toHaveLength(1);
    expect(failures).toEqual([
      { error: bug(), failure: expect.objectContaining({ middleware: 'broken', hook: 'onReasoning' }) },
    ]);
    expect(errorEvents(events)).toEqual([
      { middleware: 'broken', hook: 'onReasoning', error: { name: 'Error', message: 'bug in the middleware' } },
    ]);
  });

  it('skips an onSystemPrompt that throws or fails asynchronously: the prompt is left unchanged', async () => {
    const { failures, onError } = recorder();
    const throwing: Middleware = {
      key: 'throwing',
      onSystemPrompt: () => {
        throw bug();
      },
    };
    const failing: Middleware = { key: 'failing', onSystemPrompt: () => Promise.reject(bug()) };
    const working: Middleware = { key: 'working', onSystemPrompt: (_a, _c, p) => `${p} +ok` };
    const model = new ScriptedChatModel([{ text: 'hi' }]);
    const agent = new Agent({
      sysPrompt: 'Base.',
      model,
      middlewares: [resilient(throwing, { onError }), resilient(failing, { onError }), resilient(working, { onError })],
    });
    const { end } = await run(agent);

    expect(end.finishReason).toBe('completed');
    expect(model.requests[0]!.messages[0]!.content).toEqual([{ type: 'text', text: 'Base. +ok' }]);
    expect(failures.map((f) => [f.failure.middleware, f.failure.hook])).toEqual([
      ['throwing', 'onSystemPrompt'],
      ['failing', 'onSystemPrompt'],
    ]);
  });

  it('lets failures from next propagate unchanged, so an outer retry still sees the model error', async () => {
    const { failures, onError } = recorder();
    const overloaded = new ModelError('overloaded', { status: 503, retryable: true });
    const seenByRetry: unknown[] = [];
    const retryOnce: Middleware = {
      key: 'retry',
      onModelCall: (_a, _c, input, next) =>
        next(input).pipe(
          retry({
            count: 1,
            delay: (err: unknown) => {
              seenByRetry.push(err);
              return from([0]);
            },
          }),
        ),
    };
    const passThrough: Middleware = {
      key: 'tracing',
      onModelCall: (_a, _c, input, next) => next(input).pipe(tap(() => undefined)),
    };
    const model = new ScriptedChatModel([{ error: overloaded }, { text: 'second try' }]);
    const agent = new Agent({ model, middlewares: [retryOnce, resilient(passThrough, { onError })] });
    const { events, end } = await run(agent);

    expect(end.finishReason).toBe('completed');
    expect(seenByRetry).toEqual([overloaded]);
    expect(seenByRetry[0]).toBe(overloaded); // the same object, not a wrapper
    expect(textOf(events)).toBe('second try');
    expect(failures).toEqual([]);
    expect(errorEvents(events)).toEqual([]);
  });

  it('does not report a model failure as its own, and the reply ends with that failure', async () => {
    const { failures, onError } = recorder();
    const failure = new ModelError('bad request', { status: 400, code: 'invalid_request' });
    const passThrough: Middleware = { onReasoning: (_a, _c, input, next) => next(input) };
    const agent = new Agent({
      model: new ScriptedChatModel([{ error: failure }]),
      middlewares: [resilient(passThrough, { onError })],
    });
    const { end } = await run(agent);

    expect(end.finishReason).toBe('error');
    expect(end.error).toEqual(toErrorInfo(failure));
    expect(failures).toEqual([]);
  });

  it('keeps an inner failure when the middleware replaces it with an error of its own, and reports that one', async () => {
    const { failures, onError } = recorder();
    const failure = new ModelError('overloaded', { retryable: true });
    const translating: Middleware = {
      key: 'translating',
      onModelCall: (_a, _c, input, next) =>
        next(input).pipe(catchError(() => throwError(() => new Error('translated')))),
    };
    const agent = new Agent({
      model: new ScriptedChatModel([{ error: failure }]),
      middlewares: [resilient(translating, { onError })],
    });
    const { end } = await run(agent);

    expect(end.error).toEqual(toErrorInfo(failure));
    expect(failures.map((f) => (f.error as Error).message)).toEqual(['translated']);
  });

  it.each([
    ['synchronous', 0],
    ['asynchronous', 2],
  ])(
    'does not re-run the model when the middleware fails mid-stream (%s model): the rest of the call passes through',
    async (_label, delayMs) => {
      const { failures, onError } = recorder();
      let deltas = 0;
      const crashesOnSecondDelta: Middleware = {
        key: 'crashy',
        onModelCall: (_a, _c, input, next) =>
          next(input).pipe(
            map((e) => {
              if (e.type === 'TEXT_BLOCK_DELTA' && ++deltas === 2) throw bug();
              return e;
            }),
          ),
      };
      const model = new ScriptedChatModel([{ text: ['Hel', 'lo, ', 'world'] }], { delayMs });
      const agent = new Agent({ model, middlewares: [resilient(crashesOnSecondDelta, { onError })] });
      const { events, end } = await run(agent);

      expect(end.finishReason).toBe('completed');
      expect(model.requests).toHaveLength(1);
      expect(textOf(events)).toBe('Hello, world'); // the delta it failed on is passed on
      expect(failures).toHaveLength(1);
      expect(events.filter((e) => e.type === 'MODEL_CALL_END')).toHaveLength(1);
    },
  );

  it('re-opens what a buffering middleware held back when it fails, so the stream stays well formed', async () => {
    const { onError } = recorder();
    let seen = 0;
    const buffering: Middleware = {
      key: 'buffering',
      onModelCall: (_a, _c, input, next) =>
        next(input).pipe(
          filter(() => {
            if (++seen === 4) throw bug(); // MODEL_CALL_START, TEXT_BLOCK_START, delta 1 held back; fails on delta 2
            return false;
          }),
        ),
    };
    const model = new ScriptedChatModel([{ text: ['one ', 'two ', 'three'] }]);
    const agent = new Agent({ model, middlewares: [resilient(buffering, { onError })] });
    const { events, end } = await run(agent);

    expect(end.finishReason).toBe('completed');
    expect(textOf(events)).toBe('two three'); // what it swallowed before failing is not replayed
    expect(events.map((e) => e.type)).toEqual([
      'REPLY_START',
      'CUSTOM',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'MODEL_CALL_END',
      'REPLY_END',
    ]);
  });

  it('does not run a tool twice when the middleware fails after the call completed', async () => {
    const { failures, onError } = recorder();
    const { ran, echo } = fixture();
    const failsAfter: Middleware = {
      key: 'audit',
      onActing: (_a, _c, input, next) =>
        concat(
          next(input),
          defer(() => throwError(() => bug())),
        ),
    };
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'echo', input: { s: 'once' } }] }, { text: 'ok' }]);
    const agent = new Agent({ model, tools: [echo], middlewares: [resilient(failsAfter, { onError })] });
    const { end } = await run(agent);

    expect(end.finishReason).toBe('completed');
    expect(ran).toEqual(['once']);
    expect(toolResultsOf(agent.context.at(-1)!).map((r) => r.status)).toEqual(['success']);
    expect(failures.map((f) => f.failure.hook)).toEqual(['onActing']);
  });

  it('does not run a tool whose result the middleware already started: the result is closed as an error', async () => {
    const { onError } = recorder();
    const { ran, echo } = fixture();
    const startsThenFails: Middleware = {
      key: 'cache',
      onActing: (_a, ctx, input) =>
        concat(
          from([
            ctx.event('TOOL_RESULT_START', {
              blockId: newId('blk'),
              toolCallId: input.toolCall.id,
              name: input.tool.name,
            }),
          ]),
          throwError(() => bug()),
        ),
    };
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'echo', input: { s: 'x' } }] }, { text: 'ok' }]);
    const agent = new Agent({ model, tools: [echo], middlewares: [resilient(startsThenFails, { onError })] });
    await run(agent);

    expect(ran).toEqual([]);
    const [result] = toolResultsOf(agent.context.at(-1)!);
    expect(result).toMatchObject({
      status: 'error',
      output: [{ type: 'text', text: 'Tool call did not finish: middleware cache failed.' }],
    });
  });

  it('propagates the inner failure when the middleware fails while handling it', async () => {
    const { failures, onError } = recorder();
    const failure = new ModelError('overloaded', { retryable: true });
    const brokenRetry: Middleware = {
      key: 'brokenRetry',
      onModelCall: (_a, _c, input, next) =>
        next(input).pipe(
          retry({
            count: 1,
            delay: () => {
              throw bug();
            },
          }),
        ),
    };
    const model = new ScriptedChatModel([{ error: failure }, { text: 'never' }]);
    const agent = new Agent({ model, middlewares: [resilient(brokenRetry, { onError })] });
    const { end } = await run(agent);

    expect(model.requests).toHaveLength(1);
    expect(end.error).toEqual(toErrorInfo(failure));
    expect(failures.map((f) => (f.error as Error).message)).toEqual(['bug in the middleware']);
  });

  it('still cancels the model request when the consumer unsubscribes after a failure', async () => {
    const crashy: Middleware = {
      onModelCall: (_a, _c, input, next) =>
        next(input).pipe(
          tap((e) => {
            if (e.type === 'TEXT_BLOCK_DELTA') throw bug();
          }),
        ),
    };
    const scripted = new ScriptedChatModel([{ text: ['a', 'b', 'c', 'd'] }], { delayMs: 5 });
    let released = false;
    const model: ChatModel = {
      modelName: 'm',
      provider: 'test',
      stream: (r) => scripted.stream(r).pipe(finalize(() => (released = true))),
    };
    const agent = new Agent({ model, middlewares: [resilient(crashy, { onError: () => undefined })] });
    const deltas = await lastValueFrom(agent.reply('go').pipe(filter(isEvent('TEXT_BLOCK_DELTA')), take(2), toArray()));

    expect(deltas.map((e) => e.delta)).toEqual(['a', 'b']);
    expect(scripted.requests[0]!.signal.aborted).toBe(true);
    expect(released).toBe(true); // the detached inner run was unsubscribed, not left running
  });

  it('delivers the REPLY_END an onAgent middleware failed on, and treats a non-Observable return as a failure', async () => {
    const { failures, onError } = recorder();
    const summary: Middleware = {
      key: 'summary',
      onAgent: (_a, _c, input, next) =>
        next(input).pipe(
          tap((e) => {
            if (e.type === 'REPLY_END') throw bug();
          }),
        ),
    };
    const returnsNothing = { key: 'nothing', onReasoning: () => undefined } as unknown as Middleware;
    const model = new ScriptedChatModel([{ text: 'fine' }]);
    const agent = new Agent({
      model,
      middlewares: [resilient(summary, { onError }), resilient(returnsNothing, { onError })],
    });
    const { events, end } = await run(agent);

    expect(end.finishReason).toBe('completed');
    expect(textOf(events)).toBe('fine');
    expect(model.requests).toHaveLength(1);
    expect(failures.map((f) => [f.failure.middleware, f.failure.hook])).toEqual([
      ['nothing', 'onReasoning'],
      ['summary', 'onAgent'],
    ]);
    expect((failures[0]!.error as Error).message).toBe('onReasoning of nothing returned undefined, not an Observable.');
  });

  it('registers no tools when tools() throws, and keeps the middleware key', () => {
    const { failures, onError } = recorder();
    class Memory implements Middleware {
      tools(): never {
        throw bug();
      }
    }
    const wrapped = resilient(new Memory(), { onError });
    const agent = new Agent({ model: new ScriptedChatModel([]), middlewares: [wrapped] });

    expect(agent.tools).toEqual([]);
    expect(agent.tools).toEqual([]); // read again: not reported again while it keeps failing
    expect(failures.map((f) => f.failure)).toEqual([{ middleware: 'Memory', hook: 'tools' }]);
    expect(middlewareKey(wrapped)).toBe('Memory');
  });

  it('reports a tools() that fails again after it worked, and passes onShutdown on, reporting its failure', async () => {
    const { failures, onError } = recorder();
    let broken = false;
    let closed = 0;
    const tool = defineTool({ name: 'probe', description: 'p', input: z.object({}), execute: () => 'ok' });
    const flaky: Middleware = {
      key: 'flaky',
      tools: () => {
        if (broken) throw bug();
        return [tool];
      },
      onShutdown: () => {
        closed++;
        throw bug();
      },
    };
    const agent = new Agent({ model: new ScriptedChatModel([]), middlewares: [resilient(flaky, { onError })] });
    expect(agent.tools.map((t) => t.name)).toEqual(['probe']);
    broken = true;
    expect(agent.tools).toEqual([]);
    broken = false;
    expect(agent.tools.map((t) => t.name)).toEqual(['probe']);
    broken = true;
    expect(agent.tools).toEqual([]);
    await agent.shutdown();
    expect(closed).toBe(1);
    expect(failures.map((f) => f.failure)).toEqual([
      { middleware: 'flaky', hook: 'tools' },
      { middleware: 'flaky', hook: 'tools' },
      { middleware: 'flaky', hook: 'onShutdown' },
    ]);
  });

  it('lets deliberate ends through: a wrapped limit still ends the reply', async () => {
    const { failures, onError } = recorder();
    const model = new ScriptedChatModel([{ text: 'one' }]);
    const agent = new Agent({
      model,
      middlewares: [resilient(new ModelCallLimitMiddleware({ perSession: 1, onLimit: 'end' }), { onError })],
    });
    await run(agent);
    const { end } = await run(agent);

    expect(end).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'model_call_limit' } });
    expect(failures).toEqual([]);
  });

  it('wraps only the hooks the middleware has, and emits no event when told not to', async () => {
    const onlyActing: Middleware = { onActing: (_a, _c, i, n) => n(i) };
    const wrapped = resilient(onlyActing);
    expect(Object.keys(wrapped).sort()).toEqual(['key', 'onActing']);

    const broken: Middleware = {
      onAgent: () => {
        throw bug();
      },
    };
    const agent = new Agent({
      model: new ScriptedChatModel([{ text: 'fine' }]),
      middlewares: [resilient(broken, { event: false, onError: () => undefined })],
    });
    const { events, end } = await run(agent);
    expect(end.finishReason).toBe('completed');
    expect(errorEvents(events)).toEqual([]);
  });
});
