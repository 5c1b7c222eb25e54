import { defer, finalize, lastValueFrom, toArray } from 'rxjs';
import { Agent, type ChatModel, ModelError } from '@rxscope/core';
import { assertReplyGrammar, ModelTestingController, ScriptedChatModel } from '@rxscope/core/testing';
import { ofType, start, virtualClock } from '../__tests__/helpers.js';
import { RateLimitMiddleware, type RateLimitEventValue } from './index.js';

describe('RateLimitMiddleware', () => {
  it('one instance is one gate for two agents: the second agent waits for the first call, then gets the slot', () => {
    const controller = new ModelTestingController();
    const gate = new RateLimitMiddleware({ maxConcurrent: 1 });
    const a = new Agent({ name: 'a', model: controller.model, middlewares: [gate] });
    const b = new Agent({ name: 'b', model: controller.model, middlewares: [gate] });
    const ra = start(a, 'from a');
    const rb = start(b, 'from b');

    expect(controller.match().length).toBe(1);
    expect([gate.active, gate.waiting]).toEqual([1, 1]);
    controller.expectOne('from a').flush({ text: 'A' });
    expect(ra.done()).toBe(true);
    controller.expectOne('from b').flush({ text: 'B' });
    expect(rb.done()).toBe(true);
    expect([gate.active, gate.waiting]).toEqual([0, 0]);
    assertReplyGrammar(ra.events);
    expect(ofType(rb.events, 'CUSTOM')).toHaveLength(1); // b waited, so it was told
    expect(ofType(ra.events, 'CUSTOM')).toHaveLength(0); // a did not wait
    expect(assertReplyGrammar(rb.events).finishReason).toBe('completed');
  });

  it('admits waiters first come, first served, up to maxConcurrent at once', () => {
    const controller = new ModelTestingController();
    const gate = new RateLimitMiddleware({ maxConcurrent: 2 });
    const agents = [1, 2, 3, 4, 5].map(
      (n) => new Agent({ name: `agent${n}`, model: controller.model, middlewares: [gate] }),
    );
    const replies = agents.map((agent, i) => start(agent, `q${i + 1}`));
    const order: string[] = [];
    while (controller.match().length) {
      expect(controller.match().length).toBeLessThanOrEqual(2);
      const [first] = controller.match();
      const text = first!.request.messages.at(-1)!.content[0];
      order.push(text?.type === 'text' ? text.text : '?');
      first!.flush({ text: 'ok' });
    }
    expect(order).toEqual(['q1', 'q2', 'q3', 'q4', 'q5']);
    expect(replies.every((r) => r.done())).toBe(true);
  });

  it('keeps minIntervalMs between call starts (virtual clock) and reports the wait', () => {
    const clock = virtualClock();
    const model = new ScriptedChatModel(() => ({ text: 'ok' }));
    const gate = new RateLimitMiddleware({ minIntervalMs: 1_000, scheduler: clock.scheduler });
    const replies = [1, 2, 3].map((n) => start(new Agent({ name: `agent${n}`, model, middlewares: [gate] }), `q${n}`));
    const starts: [number, number][] = [];
    for (const t of [0, 999, 1_000, 1_999, 2_000]) {
      clock.advanceTo(t);
      starts.push([t, model.requests.length]);
    }
    expect(starts).toEqual([
      [0, 1],
      [999, 1],
      [1_000, 2],
      [1_999, 2],
      [2_000, 3],
    ]);
    expect(
      replies.map((r) => ofType(r.events, 'CUSTOM').map((e) => (e.value as RateLimitEventValue).waitedMs)),
    ).toEqual([[], [1_000], [2_000]]);
    for (const r of replies) expect(assertReplyGrammar(r.events).finishReason).toBe('completed');
  });

  it('a cancelled waiter gives its place back: the next one moves up, and nothing is left in the queue', () => {
    const controller = new ModelTestingController();
    const gate = new RateLimitMiddleware({ maxConcurrent: 1 });
    const make = (name: string) => new Agent({ name, model: controller.model, middlewares: [gate] });
    const first = start(make('first'), 'first');
    const second = start(make('second'), 'second');
    const third = start(make('third'), 'third');
    expect(gate.waiting).toBe(2);

    second.sub.unsubscribe();
    expect(gate.waiting).toBe(1);
    controller.expectOne('first').flush({ text: 'ok' });
    controller.expectOne('third').flush({ text: 'ok' });
    controller.verify();
    expect([first.done(), third.done()]).toEqual([true, true]);
    expect(second.events.map((e) => e.type)).toEqual(['REPLY_START']); // nothing reached the model
    expect([gate.active, gate.waiting]).toEqual([0, 0]);
  });

  it('an interrupted waiter leaves the queue and its reply ends interrupted', () => {
    const controller = new ModelTestingController();
    const gate = new RateLimitMiddleware({ maxConcurrent: 1 });
    const busy = start(new Agent({ name: 'busy', model: controller.model, middlewares: [gate] }), 'busy');
    const waiting = new Agent({ name: 'waiting', model: controller.model, middlewares: [gate] });
    const w = start(waiting, 'waiting');
    waiting.interrupt('not any more');
    expect(assertReplyGrammar(w.events).finishReason).toBe('interrupted');
    expect(gate.waiting).toBe(0);
    controller.expectOne('busy').flush({ text: 'ok' });
    expect(busy.done()).toBe(true);
    expect(gate.active).toBe(0);
  });

  it('frees the slot when the call fails or is unsubscribed while running', async () => {
    const gate = new RateLimitMiddleware({ maxConcurrent: 1 });
    const failing = new ScriptedChatModel([{ error: new ModelError('boom') }]);
    const events = await lastValueFrom(new Agent({ model: failing, middlewares: [gate] }).reply('x').pipe(toArray()));
    expect(assertReplyGrammar(events).finishReason).toBe('error');
    expect(gate.active).toBe(0);

    const controller = new ModelTestingController();
    const running = start(new Agent({ model: controller.model, middlewares: [gate] }), 'held');
    expect(gate.active).toBe(1);
    running.sub.unsubscribe();
    expect(gate.active).toBe(0);
    expect(controller.match()).toHaveLength(0); // the request was cancelled
  });

  it('under load, never more than maxConcurrent calls run and every reply completes', async () => {
    let running = 0;
    let peak = 0;
    const model = new ScriptedChatModel(() => ({ text: 'ok' }), { delayMs: 2 });
    const counting: ChatModel = {
      modelName: 'counting',
      provider: 'test',
      stream: (request) =>
        defer(() => {
          running++;
          peak = Math.max(peak, running);
          return model.stream(request).pipe(finalize(() => running--));
        }),
    };
    const gate = new RateLimitMiddleware({ maxConcurrent: 3 });
    const agents = Array.from(
      { length: 12 },
      (_, i) => new Agent({ name: `agent${i}`, model: counting, middlewares: [gate] }),
    );
    const all = await Promise.all(agents.map((agent) => lastValueFrom(agent.reply('go').pipe(toArray()))));
    expect(peak).toBe(3);
    for (const events of all) expect(assertReplyGrammar(events).finishReason).toBe('completed');
    expect([gate.active, gate.waiting]).toEqual([0, 0]);
  });
});
