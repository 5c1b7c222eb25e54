import { z } from 'zod';
import { Agent, type AgentEvent, defineTool, ModelError, textOfMsg } from '@rxscope/core';
import { assertReplyGrammar, ScriptedChatModel } from '@rxscope/core/testing';
import { ofType, overloaded, runEvents as run, textOf, unauthorized, virtualClock } from '../__tests__/helpers.js';
import { RetryMiddleware, type RetryEventValue } from './index.js';

describe('RetryMiddleware', () => {
  it('retries a retryable failure: the failed attempt shows as START/END(error), a retry event announces the wait, the next attempt answers', async () => {
    const model = new ScriptedChatModel([{ error: overloaded() }, { text: ['Hel', 'lo!'] }]);
    const agent = new Agent({ model, middlewares: [new RetryMiddleware({ initialDelayMs: 1, jitter: 0 })] });
    const events = await run(agent);

    expect(events.map((e) => e.type)).toEqual([
      'REPLY_START',
      'MODEL_CALL_START',
      'MODEL_CALL_END',
      'CUSTOM',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'MODEL_CALL_END',
      'REPLY_END',
    ]);
    const [failed, ok] = ofType(events, 'MODEL_CALL_END');
    expect(failed).toMatchObject({ finishReason: 'error', error: { status: 503, retryable: true } });
    expect(ok).toMatchObject({ finishReason: 'stop' });
    expect(ofType(events, 'CUSTOM')[0]).toMatchObject({
      name: 'retry',
      value: { attempt: 2, maxRetries: 3, delayMs: 1, model: 'scripted-model', error: { status: 503 } },
    });
    expect(ofType(events, 'REPLY_END')[0]!.finishReason).toBe('completed');
    expect(textOfMsg(agent.context[1]!)).toBe('Hello!');
    expect(model.requests).toHaveLength(2);
  });

  it('gives up after maxRetries and the reply ends with the last error', async () => {
    const model = new ScriptedChatModel(() => ({ error: overloaded() }));
    const agent = new Agent({ model, middlewares: [new RetryMiddleware({ maxRetries: 2, initialDelayMs: 1 })] });
    const events = await run(agent);
    expect(model.requests).toHaveLength(3);
    expect(ofType(events, 'MODEL_CALL_START')).toHaveLength(3);
    expect(ofType(events, 'CUSTOM').map((e) => (e.value as RetryEventValue).attempt)).toEqual([2, 3]);
    expect(ofType(events, 'REPLY_END')[0]).toMatchObject({
      finishReason: 'error',
      error: { message: 'overloaded', status: 503 },
    });
    await expect(agent.call('again')).rejects.toMatchObject({ name: 'AgentError' });
  });

  it('does not retry a non-retryable error (401)', async () => {
    const model = new ScriptedChatModel([{ error: unauthorized() }, { text: 'never' }]);
    const agent = new Agent({ model, middlewares: [new RetryMiddleware({ initialDelayMs: 1 })] });
    const events = await run(agent);
    expect(model.requests).toHaveLength(1);
    expect(ofType(events, 'CUSTOM')).toHaveLength(0);
    expect(ofType(events, 'REPLY_END')[0]).toMatchObject({ finishReason: 'error', error: { status: 401 } });
  });

  it('asks shouldRetry, with the number of the failed attempt', async () => {
    const seen: number[] = [];
    const model = new ScriptedChatModel([
      { error: new Error('plain failure') },
      { error: new Error('plain failure') },
      { text: 'ok' },
    ]);
    const shouldRetry = (error: unknown, attempt: number) => {
      seen.push(attempt);
      return error instanceof Error && error.message === 'plain failure';
    };
    const agent = new Agent({ model, middlewares: [new RetryMiddleware({ initialDelayMs: 1, shouldRetry })] });
    const events = await run(agent);
    expect(seen).toEqual([1, 2]);
    expect(textOf(events)).toBe('ok');
  });

  it('does not retry once the attempt streamed content (default): the consumer never sees content twice', async () => {
    const model = new ScriptedChatModel([{ text: ['Once upon'], error: overloaded() }, { text: 'Once upon a time' }]);
    const agent = new Agent({ model, middlewares: [new RetryMiddleware({ initialDelayMs: 1 })] });
    const events = await run(agent);
    expect(model.requests).toHaveLength(1);
    expect(textOf(events)).toBe('Once upon');
    expect(ofType(events, 'REPLY_END')[0]).toMatchObject({ finishReason: 'error', error: { status: 503 } });
  });

  it('a tool call block counts as content too', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', input: { a: 1 } }], error: overloaded() },
      { text: 'x' },
    ]);
    const agent = new Agent({ model, middlewares: [new RetryMiddleware({ initialDelayMs: 1 })] });
    await run(agent);
    expect(model.requests).toHaveLength(1);
  });

  it("buffer: true retries after content, and emits only the successful attempt's content", async () => {
    const model = new ScriptedChatModel([
      { thinking: 'hmm', text: ['Once upon'], error: overloaded() },
      { text: ['Once upon', ' a time'] },
    ]);
    const agent = new Agent({ model, middlewares: [new RetryMiddleware({ initialDelayMs: 1, buffer: true })] });
    const events = await run(agent);
    expect(model.requests).toHaveLength(2);
    expect(textOf(events)).toBe('Once upon a time');
    expect(ofType(events, 'THINKING_BLOCK_DELTA')).toHaveLength(0);
    // Both attempts are visible as model calls; the failed one carries no content.
    expect(events.map((e) => e.type).slice(0, 5)).toEqual([
      'REPLY_START',
      'MODEL_CALL_START',
      'MODEL_CALL_END',
      'CUSTOM',
      'MODEL_CALL_START',
    ]);
    expect(textOfMsg(agent.context[1]!)).toBe('Once upon a time');
  });

  it('buffer: true never emits the content of a failed attempt, not even the last one', async () => {
    const model = new ScriptedChatModel(() => ({ text: ['partial'], error: overloaded() }));
    const agent = new Agent({
      model,
      middlewares: [new RetryMiddleware({ maxRetries: 1, initialDelayMs: 1, buffer: true })],
    });
    const events = await run(agent);
    expect(model.requests).toHaveLength(2);
    expect(ofType(events, 'TEXT_BLOCK_START')).toHaveLength(0);
    expect(ofType(events, 'MODEL_CALL_END').map((e) => e.finishReason)).toEqual(['error', 'error']);
    expect(ofType(events, 'REPLY_END')[0]!.finishReason).toBe('error');
  });

  it('a failure inside a tool step does not concern it; tool steps still run between retried model calls', async () => {
    const add = defineTool({
      name: 'add',
      description: 'adds',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => String(a + b),
    });
    const model = new ScriptedChatModel([
      { error: overloaded() },
      { toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] },
      { error: overloaded() },
      { text: '5' },
    ]);
    const agent = new Agent({ model, tools: [add], middlewares: [new RetryMiddleware({ initialDelayMs: 1 })] });
    const events = await run(agent);
    expect(model.requests).toHaveLength(4);
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
      status: 'success',
      output: [{ type: 'text', text: '5' }],
    });
    expect(ofType(events, 'REPLY_END')[0]!.finishReason).toBe('completed');
  });

  describe('timing (virtual clock)', () => {
    it('backs off exponentially: 100, 200, 400 ms with jitter 0', () => {
      const clock = virtualClock();
      const model = new ScriptedChatModel(() => ({ error: overloaded() }));
      const agent = new Agent({
        model,
        middlewares: [new RetryMiddleware({ initialDelayMs: 100, jitter: 0, scheduler: clock.scheduler })],
      });
      const events: AgentEvent[] = [];
      agent.reply('hi').subscribe({ next: (e) => events.push(e) });
      const at: [number, number][] = [];
      for (const t of [0, 99, 100, 299, 300, 699, 700]) {
        clock.advanceTo(t);
        at.push([t, model.requests.length]);
      }
      expect(at).toEqual([
        [0, 1],
        [99, 1],
        [100, 2],
        [299, 2],
        [300, 3],
        [699, 3],
        [700, 4],
      ]);
      expect(assertReplyGrammar(events).finishReason).toBe('error');
    });

    it('honours Retry-After: waits at least retryAfterMs, even when the backoff is shorter', () => {
      const clock = virtualClock();
      const limited = new ModelError('slow down', {
        status: 429,
        retryable: true,
        retryAfterMs: 5_000,
        code: 'rate_limited',
      });
      const model = new ScriptedChatModel([{ error: limited }, { text: 'ok' }]);
      const agent = new Agent({
        model,
        middlewares: [new RetryMiddleware({ initialDelayMs: 100, scheduler: clock.scheduler })],
      });
      const events: AgentEvent[] = [];
      agent.reply('hi').subscribe({ next: (e) => events.push(e) });
      expect(ofType(events, 'CUSTOM')[0]!.value).toMatchObject({ delayMs: 5_000, retryAfterMs: 5_000 });
      clock.advanceTo(4_999);
      expect(model.requests).toHaveLength(1);
      clock.advanceTo(5_000);
      expect(model.requests).toHaveLength(2);
      expect(assertReplyGrammar(events).finishReason).toBe('completed');
    });

    it('unsubscribing during the backoff cancels the wait: no further request, no timer left', () => {
      const clock = virtualClock();
      const model = new ScriptedChatModel([{ error: overloaded() }, { text: 'never' }]);
      const agent = new Agent({
        model,
        middlewares: [new RetryMiddleware({ initialDelayMs: 1_000, scheduler: clock.scheduler })],
      });
      const sub = agent.reply('hi').subscribe({ next: () => undefined });
      expect(clock.pending()).toBe(1);
      sub.unsubscribe();
      expect(clock.pending()).toBe(0);
      clock.advanceTo(10_000);
      expect(model.requests).toHaveLength(1);
      expect(agent.busy).toBe(false);
    });

    it('interrupting during the backoff ends the reply interrupted without another request', () => {
      const clock = virtualClock();
      const model = new ScriptedChatModel([{ error: overloaded() }, { text: 'never' }]);
      const agent = new Agent({
        model,
        middlewares: [new RetryMiddleware({ initialDelayMs: 1_000, scheduler: clock.scheduler })],
      });
      const events: AgentEvent[] = [];
      agent.reply('hi').subscribe({ next: (e) => events.push(e) });
      agent.interrupt('stop');
      clock.advanceTo(10_000);
      expect(assertReplyGrammar(events).finishReason).toBe('interrupted');
      expect(model.requests).toHaveLength(1);
    });
  });

  describe('delayFor', () => {
    const err = new Error('x');
    it('grows by factor, is capped by maxDelayMs, and jitter takes off up to its fraction', () => {
      const full = new RetryMiddleware({
        initialDelayMs: 100,
        factor: 3,
        maxDelayMs: 1_000,
        jitter: 0.5,
        random: () => 0,
      });
      expect([1, 2, 3, 4].map((n) => full.delayFor(n, err))).toEqual([100, 300, 900, 1_000]);
      const least = new RetryMiddleware({
        initialDelayMs: 100,
        factor: 3,
        maxDelayMs: 1_000,
        jitter: 0.5,
        random: () => 0.999999,
      });
      expect([1, 2, 3, 4].map((n) => least.delayFor(n, err))).toEqual([50, 150, 450, 500]);
    });

    it("never goes below the server's retryAfterMs, which maxDelayMs does not cap", () => {
      const mw = new RetryMiddleware({ initialDelayMs: 100, maxDelayMs: 1_000, random: () => 0.5 });
      expect(mw.delayFor(1, new ModelError('429', { retryable: true, retryAfterMs: 1_500 }))).toBe(1_500);
      expect(mw.delayFor(4, new ModelError('429', { retryable: true, retryAfterMs: 10 }))).toBe(600);
    });

    it('a Retry-After longer than maxRetryAfterMs is not waited for: the error propagates at once', async () => {
      const model = new ScriptedChatModel([
        { error: new ModelError('come back tomorrow', { status: 429, retryable: true, retryAfterMs: 86_400_000 }) },
        { text: 'x' },
      ]);
      const agent = new Agent({ model, middlewares: [new RetryMiddleware({ maxRetryAfterMs: 60_000 })] });
      const events = await run(agent);
      expect(model.requests).toHaveLength(1);
      expect(ofType(events, 'REPLY_END')[0]).toMatchObject({ finishReason: 'error', error: { status: 429 } });
    });
  });

  it('one instance serves two agents replying at the same time, each with its own attempts', async () => {
    const retry = new RetryMiddleware({ initialDelayMs: 5 });
    const a = new ScriptedChatModel([{ error: overloaded() }, { text: 'A' }], { modelName: 'a', delayMs: 1 });
    const b = new ScriptedChatModel([{ error: overloaded() }, { error: overloaded() }, { text: 'B' }], {
      modelName: 'b',
      delayMs: 1,
    });
    const [ea, eb] = await Promise.all([
      run(new Agent({ model: a, middlewares: [retry] })),
      run(new Agent({ model: b, middlewares: [retry] })),
    ]);
    expect([textOf(ea), textOf(eb)]).toEqual(['A', 'B']);
    expect([a.requests.length, b.requests.length]).toEqual([2, 3]);
  });
});
