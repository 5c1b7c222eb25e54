import { lastValueFrom, NEVER, Observable, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, type AgentEvent, defineTool, type Middleware, textOfMsg } from '@rxscope/core';
import {
  assertConsistentConversation,
  assertReplyGrammar,
  ModelTestingController,
  ScriptedChatModel,
} from '@rxscope/core/testing';
import { ofType, start, textOf, virtualClock } from '../__tests__/helpers.js';
import { RateLimitMiddleware } from '../rate-limit/index.js';
import { RetryMiddleware } from '../retry/index.js';
import { TimeoutMiddleware } from './index.js';

describe('TimeoutMiddleware', () => {
  describe('model calls', () => {
    it('modelCallMs: a stalled call ends well formed with a retryable timeout, and its request is aborted', () => {
      const clock = virtualClock();
      const controller = new ModelTestingController();
      const agent = new Agent({
        model: controller.model,
        middlewares: [new TimeoutMiddleware({ modelCallMs: 5_000, scheduler: clock.scheduler })],
      });
      const reply = start(agent);
      const call = controller.expectOne();
      call.streamText('Thinking about');
      clock.advanceTo(4_999);
      expect(reply.done()).toBe(false);
      clock.advanceTo(5_000);

      expect(reply.done()).toBe(true);
      expect(call.cancelled).toBe(true);
      expect(call.request.signal.aborted).toBe(true);
      const end = assertReplyGrammar(reply.events);
      expect(end).toMatchObject({
        finishReason: 'error',
        error: { name: 'ModelError', code: 'timeout', retryable: true },
      });
      expect(end.error?.message).toContain('5000 ms');
      // The open text block was closed before the attempt's MODEL_CALL_END {error}.
      expect(reply.events.map((e) => e.type).slice(-4)).toEqual([
        'TEXT_BLOCK_DELTA',
        'TEXT_BLOCK_END',
        'MODEL_CALL_END',
        'REPLY_END',
      ]);
      expect(ofType(reply.events, 'MODEL_CALL_END')[0]).toMatchObject({
        finishReason: 'error',
        error: { code: 'timeout' },
      });
      expect(textOfMsg(agent.context[1]!)).toBe('Thinking about');
      assertConsistentConversation(agent.context);
    });

    it('a timed-out call is retried by an outer RetryMiddleware', () => {
      const clock = virtualClock();
      const controller = new ModelTestingController();
      const agent = new Agent({
        model: controller.model,
        middlewares: [
          new RetryMiddleware({ initialDelayMs: 100, jitter: 0, scheduler: clock.scheduler }),
          new TimeoutMiddleware({ modelCallMs: 1_000, scheduler: clock.scheduler }),
        ],
      });
      const reply = start(agent);
      controller.expectOne(); // never answers
      clock.advanceTo(1_000); // timeout
      clock.advanceTo(1_100); // backoff over: second attempt
      controller.expectOne().flush({ text: 'second time lucky' });
      const end = assertReplyGrammar(reply.events);
      expect(end.finishReason).toBe('completed');
      expect(ofType(reply.events, 'MODEL_CALL_END').map((e) => e.finishReason)).toEqual(['error', 'stop']);
      expect(textOf(reply.events)).toBe('second time lucky');
    });

    it('firstTokenMs limits the wait for the first content; after it, idleMs limits the silences', () => {
      const clock = virtualClock();
      const controller = new ModelTestingController();
      const agent = new Agent({
        model: controller.model,
        middlewares: [new TimeoutMiddleware({ firstTokenMs: 3_000, idleMs: 500, scheduler: clock.scheduler })],
      });
      const reply = start(agent);
      const call = controller.expectOne();
      clock.advanceTo(2_900); // a slow start is fine up to firstTokenMs, though longer than idleMs
      call.streamText('a');
      clock.advanceTo(3_300);
      call.streamText('b');
      clock.advanceTo(3_700);
      call.streamText('c');
      expect(reply.done()).toBe(false);
      clock.advanceTo(4_199);
      expect(reply.done()).toBe(false);
      clock.advanceTo(4_200); // 500 ms after 'c'
      expect(reply.done()).toBe(true);
      expect(assertReplyGrammar(reply.events).error?.message).toBe('the model sent nothing for 500 ms');
      expect(textOf(reply.events)).toBe('abc');
    });

    it('firstTokenMs fires when no content comes in time', () => {
      const clock = virtualClock();
      const controller = new ModelTestingController();
      const agent = new Agent({
        model: controller.model,
        middlewares: [new TimeoutMiddleware({ firstTokenMs: 3_000, scheduler: clock.scheduler })],
      });
      const reply = start(agent);
      controller.expectOne();
      clock.advanceTo(3_000);
      expect(assertReplyGrammar(reply.events).error).toMatchObject({
        code: 'timeout',
        message: 'the model sent no content within 3000 ms',
      });
    });

    it('idleMs alone also covers the wait for the first event of content', () => {
      const clock = virtualClock();
      const controller = new ModelTestingController();
      const agent = new Agent({
        model: controller.model,
        middlewares: [new TimeoutMiddleware({ idleMs: 800, scheduler: clock.scheduler })],
      });
      const reply = start(agent);
      controller.expectOne();
      clock.advanceTo(800);
      expect(assertReplyGrammar(reply.events).error).toMatchObject({ code: 'timeout' });
    });

    it("the clock starts when the call starts: waiting in a rate limiter's queue inside does not count", () => {
      const clock = virtualClock();
      const controller = new ModelTestingController();
      const gate = new RateLimitMiddleware({ maxConcurrent: 1, scheduler: clock.scheduler });
      const timeout = new TimeoutMiddleware({ modelCallMs: 1_000, scheduler: clock.scheduler });
      const a = start(new Agent({ name: 'a', model: controller.model, middlewares: [timeout, gate] }), 'a');
      const b = start(new Agent({ name: 'b', model: controller.model, middlewares: [timeout, gate] }), 'b');
      clock.advanceTo(900);
      controller.expectOne('a').flush({ text: 'A' }); // b's call starts now, at 900
      clock.advanceTo(1_500);
      expect(b.done()).toBe(false);
      clock.advanceTo(1_900);
      expect(assertReplyGrammar(a.events).finishReason).toBe('completed');
      expect(assertReplyGrammar(b.events).error).toMatchObject({ code: 'timeout' });
    });

    it('a call that finishes in time leaves no timer behind', () => {
      const clock = virtualClock();
      const model = new ScriptedChatModel([{ text: 'quick' }]);
      const agent = new Agent({
        model,
        middlewares: [
          new TimeoutMiddleware({ modelCallMs: 1_000, firstTokenMs: 500, idleMs: 100, scheduler: clock.scheduler }),
        ],
      });
      const reply = start(agent);
      expect(assertReplyGrammar(reply.events).finishReason).toBe('completed');
      expect(clock.pending()).toBe(0);
    });
  });

  describe('tool calls', () => {
    it("toolCallMs: the tool's signal is aborted and the call gets an error result; the reply goes on", async () => {
      let aborted = false;
      const hang = defineTool({
        name: 'hang',
        description: 'never returns',
        input: z.object({}),
        execute: (_input, toolCtx) =>
          new Promise<string>(() => {
            toolCtx.signal.addEventListener('abort', () => (aborted = true));
          }),
      });
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'hang', input: {} }] },
        { text: 'The tool timed out.' },
      ]);
      const agent = new Agent({ model, tools: [hang], middlewares: [new TimeoutMiddleware({ toolCallMs: 30 })] });
      const events = await lastValueFrom(agent.reply('go').pipe(toArray()));

      expect(assertReplyGrammar(events).finishReason).toBe('completed');
      expect(aborted).toBe(true);
      const result = ofType(events, 'TOOL_RESULT_END')[0]!;
      expect(result.status).toBe('error');
      expect(result.output).toEqual([{ type: 'text', text: 'Tool "hang" failed: timed out after 30 ms' }]);
      // The model saw the error result on its next step.
      const seen = model.requests[1]!.messages.at(-1)!.content.find((b) => b.type === 'tool_result');
      expect(seen).toMatchObject({ status: 'error' });
      assertConsistentConversation(agent.context);
    });

    it('a tool that finishes in time is not affected', async () => {
      const quick = defineTool({ name: 'quick', description: 'fast', input: z.object({}), execute: () => 'done' });
      const model = new ScriptedChatModel([{ toolCalls: [{ name: 'quick', input: {} }] }, { text: 'ok' }]);
      const agent = new Agent({ model, tools: [quick], middlewares: [new TimeoutMiddleware({ toolCallMs: 1_000 })] });
      const events = await lastValueFrom(agent.reply('go').pipe(toArray()));
      expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
        status: 'success',
        output: [{ type: 'text', text: 'done' }],
      });
    });
  });

  describe('whole replies', () => {
    it('replyMs: the reply ends with REPLY_END {error: timeout}, every block closed and every tool call answered', () => {
      const clock = virtualClock();
      const controller = new ModelTestingController();
      const slow = defineTool({ name: 'slow', description: 'slow', input: z.object({}), execute: () => NEVER });
      const agent = new Agent({
        model: controller.model,
        tools: [slow],
        middlewares: [new TimeoutMiddleware({ replyMs: 10_000, scheduler: clock.scheduler })],
      });
      const reply = start(agent);
      controller.expectOne().flush({ toolCalls: [{ name: 'slow', input: {} }] });
      clock.advanceTo(3_000);
      expect(reply.done()).toBe(false);
      clock.advanceTo(10_000);

      expect(reply.done()).toBe(true);
      const end = assertReplyGrammar(reply.events);
      expect(end).toMatchObject({
        finishReason: 'error',
        error: { name: 'ReplyTimeoutError', code: 'timeout', message: 'the reply timed out after 10000 ms' },
      });
      expect(end.usage).toBeDefined();
      expect(ofType(reply.events, 'TOOL_RESULT_END')[0]!.status).toBe('interrupted');
      assertConsistentConversation(agent.context);
      expect(clock.pending()).toBe(0);
      expect(agent.busy).toBe(false);
    });

    it('replyMs: call() rejects with an AgentError whose code is timeout', async () => {
      const model = new ScriptedChatModel([{ text: ['a', 'b', 'c', 'd', 'e'] }], { delayMs: 20 });
      const agent = new Agent({ model, middlewares: [new TimeoutMiddleware({ replyMs: 30 })] });
      await expect(agent.call('hi')).rejects.toMatchObject({ name: 'AgentError', info: { code: 'timeout' } });
    });

    it('a reply that ends in time is untouched', async () => {
      const model = new ScriptedChatModel([{ text: 'fine' }]);
      const agent = new Agent({ model, middlewares: [new TimeoutMiddleware({ replyMs: 10_000 })] });
      const msg = await agent.call('hi');
      expect(textOfMsg(msg)).toBe('fine');
    });

    it('never hangs: when an inner layer ignores the interrupt, the reply is failed after replyGraceMs', () => {
      const clock = virtualClock();
      const stubborn: Middleware = { onAgent: () => new Observable<AgentEvent>(() => undefined) };
      const agent = new Agent({
        model: new ScriptedChatModel([{ text: 'x' }]),
        middlewares: [
          new TimeoutMiddleware({ replyMs: 1_000, replyGraceMs: 500, scheduler: clock.scheduler }),
          stubborn,
        ],
      });
      const reply = start(agent);
      clock.advanceTo(1_000);
      expect(reply.done()).toBe(false);
      clock.advanceTo(1_500);
      expect(reply.done()).toBe(true);
      expect(assertReplyGrammar(reply.events)).toMatchObject({ finishReason: 'error', error: { code: 'timeout' } });
    });

    it('a user interrupt stays an interrupt', () => {
      const clock = virtualClock();
      const controller = new ModelTestingController();
      const agent = new Agent({
        model: controller.model,
        middlewares: [new TimeoutMiddleware({ replyMs: 10_000, scheduler: clock.scheduler })],
      });
      const reply = start(agent);
      agent.interrupt('user pressed stop');
      expect(assertReplyGrammar(reply.events).finishReason).toBe('interrupted');
      expect(clock.pending()).toBe(0);
    });
  });

  it('one instance serves two agents at once, each with its own deadlines', () => {
    const clock = virtualClock();
    const timeout = new TimeoutMiddleware({ modelCallMs: 1_000, scheduler: clock.scheduler });
    const slow = new ModelTestingController('slow');
    const fast = new ModelTestingController('fast');
    const a = start(new Agent({ name: 'a', model: slow.model, middlewares: [timeout] }));
    clock.advanceTo(600);
    const b = start(new Agent({ name: 'b', model: fast.model, middlewares: [timeout] }));
    clock.advanceTo(1_000);
    expect(assertReplyGrammar(a.events).error?.code).toBe('timeout');
    expect(b.done()).toBe(false);
    fast.expectOne().flush({ text: 'in time' });
    expect(assertReplyGrammar(b.events).finishReason).toBe('completed');
  });
});
