import { type Observable, retry } from 'rxjs';
import {
  Agent,
  type AgentEvent,
  isEvent,
  type Middleware,
  type ModelCallInput,
  ModelError,
  type Next,
  textOfMsg,
  toolResultsOf,
} from '@rxscope/core';
import { ScriptedChatModel, type ScriptedTurn } from '@rxscope/core/testing';
import { add, customValues, run } from '../__tests__/helpers.js';
import { ModelCallLimitMiddleware } from './index.js';

const limitEvents = (events: readonly AgentEvent[]) => customValues(events, 'model_call_limit');

/** Calls `add` until tools are switched off. */
const toolHungry = () =>
  new ScriptedChatModel((request): ScriptedTurn =>
    request.toolChoice === 'none' ? { text: 'Final answer.' } : { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
  );

/** Calls `add` whatever it is told. */
const stubborn = () =>
  new ScriptedChatModel((): ScriptedTurn => ({ toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] }));

describe('ModelCallLimitMiddleware', () => {
  it("'finish' (default): the last allowed call answers, with a hint and toolChoice none", async () => {
    const model = toolHungry();
    const agent = new Agent({ model, tools: [add], middlewares: [new ModelCallLimitMiddleware({ perReply: 3 })] });
    const { events, end } = await run(agent, 'go');

    expect(end.finishReason).toBe('completed');
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'none']);
    expect(textOfMsg(agent.context.at(-1)!)).toBe('Final answer.');
    const hint = events.find(isEvent('HINT_BLOCK'))!;
    expect(hint.text).toContain('last model call in this reply (limit: 3 calls)');
    expect(model.requests[2]!.messages.at(-1)!.content.at(-1)).toEqual({
      type: 'hint',
      text: hint.text,
      id: 'ModelCallLimitMiddleware:finish',
      source: 'ModelCallLimitMiddleware',
    });
    expect(limitEvents(events)).toEqual([{ action: 'finish', scope: 'reply', limit: 3, used: 2 }]);
  });

  it("'end': stops the reply (finishReason stopped, code model_call_limit) instead of calling the model again", async () => {
    const model = toolHungry();
    const agent = new Agent({
      model,
      tools: [add],
      middlewares: [new ModelCallLimitMiddleware({ perReply: 2, onLimit: 'end' })],
    });
    const { events, end } = await run(agent, 'go');

    expect(model.requests).toHaveLength(2);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto']);
    expect(end.finishReason).toBe('stopped');
    expect(end.error).toBeUndefined();
    expect(end.stopReason).toEqual({
      code: 'model_call_limit',
      message: 'Model call limit reached: at most 2 model calls per reply (2 made).',
    });
    expect(limitEvents(events)).toEqual([{ action: 'end', scope: 'reply', limit: 2, used: 2 }]);
    // what the reply did is kept, every call with its result
    expect(toolResultsOf(agent.context.at(-1)!).map((r) => r.status)).toEqual(['success', 'success']);

    // A policy end is not an error: call() resolves, and says why the reply stopped.
    const msg = await agent.call('again');
    expect(msg.metadata).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'model_call_limit' } });
  });

  it("'finish' is still a hard cap: a model that ignores toolChoice none is stopped at the limit", async () => {
    const model = stubborn();
    const agent = new Agent({ model, tools: [add], middlewares: [new ModelCallLimitMiddleware({ perReply: 2 })] });
    const { end } = await run(agent, 'go');

    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'none']);
    expect(end).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'model_call_limit' } });
  });

  it('counts per session, persisted with the state: a restored agent goes on counting', async () => {
    const limit = () => new ModelCallLimitMiddleware({ perSession: 3 });
    const script = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: '2' }]);
    const first = new Agent({ model: script, tools: [add], middlewares: [limit()] });
    await run(first, 'one'); // a tool call, then the answer: 2 calls
    const saved = first.saveState();
    expect(saved.middlewareState['ModelCallLimitMiddleware']).toMatchObject({ session: { calls: 2 } });

    const model = toolHungry();
    const second = new Agent({ model, tools: [add], middlewares: [limit()], state: saved });
    const two = await run(second, 'two');
    expect(two.end.finishReason).toBe('completed');
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['none']); // the session's last call
    expect(limitEvents(two.events)).toEqual([{ action: 'finish', scope: 'session', limit: 3, used: 2 }]);

    const three = await run(second, 'three');
    expect(model.requests).toHaveLength(1); // not called again
    expect(three.end).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'model_call_limit' } });
    expect(three.end.stopReason!.message).toContain('3 model calls per session');
  });

  it('counts a step once however many attempts inner layers make, and the reply and session limits together', async () => {
    class RetryOnce implements Middleware {
      onModelCall(_a: Agent, _c: unknown, input: ModelCallInput, next: Next<ModelCallInput>): Observable<AgentEvent> {
        return next(input).pipe(retry(1));
      }
    }
    const failing: ScriptedTurn = { error: new ModelError('overloaded', { retryable: true }) };
    const model = new ScriptedChatModel([
      failing,
      { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] },
      failing,
      { text: 'two' },
    ]);
    const limit = new ModelCallLimitMiddleware({ perReply: 2, perSession: 5, onLimit: 'end' });
    const agent = new Agent({ model, tools: [add], middlewares: [limit, new RetryOnce()] });
    const { end } = await run(agent, 'go');

    expect(end.finishReason).toBe('completed');
    expect(model.requests).toHaveLength(4); // four attempts, two model calls: within the limit of 2
    expect(agent.saveState().middlewareState['ModelCallLimitMiddleware']).toMatchObject({ session: { calls: 2 } });
  });

  it('keeps counts apart for agents sharing one instance', async () => {
    const limit = new ModelCallLimitMiddleware({ perSession: 1, onLimit: 'end' });
    const a = new Agent({ model: new ScriptedChatModel([{ text: 'a' }, { text: 'a2' }]), middlewares: [limit] });
    const b = new Agent({ model: new ScriptedChatModel([{ text: 'b' }]), middlewares: [limit] });

    expect((await run(a, 'hi')).end.finishReason).toBe('completed');
    expect((await run(b, 'hi')).end.finishReason).toBe('completed');
    expect((await run(a, 'hi')).end.finishReason).toBe('stopped');
  });

  it('needs a limit, and limits must be counts', () => {
    expect(() => new ModelCallLimitMiddleware({})).toThrow(/perReply, perSession/);
    expect(() => new ModelCallLimitMiddleware({ perReply: -1 })).toThrow(/non-negative integer/);
    expect(() => new ModelCallLimitMiddleware({ perReply: 1.5 })).toThrow(/non-negative integer/);
  });
});
