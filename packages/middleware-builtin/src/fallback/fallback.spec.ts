import { Agent, ModelError, textOfMsg } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { ofType, overloaded, runEvents as run, textOf, unauthorized } from '../__tests__/helpers.js';
import { RetryMiddleware } from '../retry/index.js';
import { FallbackMiddleware } from './index.js';

const down = () => overloaded('service unavailable');
const revoked = () => unauthorized('invalid key');

describe('FallbackMiddleware', () => {
  it('answers with the next model when the first fails; the events say which model answered', async () => {
    const primary = new ScriptedChatModel([{ error: revoked() }], { modelName: 'primary' });
    const backup = new ScriptedChatModel([{ text: 'from backup' }], { modelName: 'backup' });
    const agent = new Agent({ model: primary, middlewares: [new FallbackMiddleware({ models: [backup] })] });
    const events = await run(agent);

    expect(ofType(events, 'MODEL_CALL_START').map((e) => e.model)).toEqual(['primary', 'backup']);
    expect(ofType(events, 'MODEL_CALL_END').map((e) => [e.model, e.finishReason])).toEqual([
      ['primary', 'error'],
      ['backup', 'stop'],
    ]);
    expect(ofType(events, 'CUSTOM')[0]).toMatchObject({
      name: 'fallback',
      value: { from: 'primary', to: 'backup', error: { status: 401 } },
    });
    expect(textOf(events)).toBe('from backup');
    expect(ofType(events, 'REPLY_END')[0]!.finishReason).toBe('completed');
    expect(textOfMsg(agent.context[1]!)).toBe('from backup');
  });

  it('the fallback model receives the same request', async () => {
    const primary = new ScriptedChatModel([{ error: down() }], { modelName: 'primary' });
    const backup = new ScriptedChatModel([{ text: 'ok' }], { modelName: 'backup' });
    const agent = new Agent({
      model: primary,
      sysPrompt: 'be brief',
      middlewares: [new FallbackMiddleware({ models: [backup] })],
    });
    await run(agent, 'question');
    expect(backup.requests[0]!.messages.map((m) => [m.role, textOfMsg(m)])).toEqual(
      primary.requests[0]!.messages.map((m) => [m.role, textOfMsg(m)]),
    );
  });

  it('tries the models in order and ends with the last error when all fail', async () => {
    const models = ['a', 'b', 'c'].map(
      (name) =>
        new ScriptedChatModel(() => ({ error: new ModelError(`${name} failed`, { retryable: true }) }), {
          modelName: name,
        }),
    );
    const agent = new Agent({ model: models[0]!, middlewares: [new FallbackMiddleware({ models: models.slice(1) })] });
    const events = await run(agent);
    expect(ofType(events, 'MODEL_CALL_START').map((e) => e.model)).toEqual(['a', 'b', 'c']);
    expect(ofType(events, 'CUSTOM').map((e) => e.value)).toMatchObject([
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
    ]);
    expect(ofType(events, 'REPLY_END')[0]).toMatchObject({ finishReason: 'error', error: { message: 'c failed' } });
  });

  it('does not fall back once the failing model streamed content (the consumer would see two answers)', async () => {
    const primary = new ScriptedChatModel([{ text: ['Half an ans'], error: down() }], { modelName: 'primary' });
    const backup = new ScriptedChatModel([{ text: 'A whole answer' }], { modelName: 'backup' });
    const agent = new Agent({ model: primary, middlewares: [new FallbackMiddleware({ models: [backup] })] });
    const events = await run(agent);
    expect(backup.requests).toHaveLength(0);
    expect(textOf(events)).toBe('Half an ans');
    expect(ofType(events, 'REPLY_END')[0]!.finishReason).toBe('error');
  });

  it('with a buffering retry inside, it falls back even after content, and only the answer that succeeded is shown', async () => {
    const primary = new ScriptedChatModel(() => ({ text: ['Half an ans'], error: down() }), { modelName: 'primary' });
    const backup = new ScriptedChatModel([{ text: 'A whole answer' }], { modelName: 'backup' });
    const agent = new Agent({
      model: primary,
      middlewares: [
        new FallbackMiddleware({ models: [backup] }),
        new RetryMiddleware({ maxRetries: 1, initialDelayMs: 1, buffer: true }),
      ],
    });
    const events = await run(agent);
    expect(primary.requests).toHaveLength(2); // retried once, then fell back
    expect(ofType(events, 'MODEL_CALL_START').map((e) => e.model)).toEqual(['primary', 'primary', 'backup']);
    expect(textOf(events)).toBe('A whole answer');
  });

  it('shouldFallback decides per error and model', async () => {
    const primary = new ScriptedChatModel([{ error: revoked() }], { modelName: 'primary' });
    const backup = new ScriptedChatModel([{ text: 'x' }], { modelName: 'backup' });
    const onlyOutages = (error: unknown) => error instanceof ModelError && error.retryable;
    const agent = new Agent({
      model: primary,
      middlewares: [new FallbackMiddleware({ models: [backup], shouldFallback: onlyOutages })],
    });
    const events = await run(agent);
    expect(backup.requests).toHaveLength(0);
    expect(ofType(events, 'REPLY_END')[0]).toMatchObject({ finishReason: 'error', error: { status: 401 } });
  });

  it("skips the agent's own model when it is also in the list, and without models it is transparent", async () => {
    const primary = new ScriptedChatModel([{ error: down() }, { text: 'again' }], { modelName: 'primary' });
    const agent = new Agent({ model: primary, middlewares: [new FallbackMiddleware({ models: [primary] })] });
    await run(agent);
    expect(primary.requests).toHaveLength(1);
    const plain = new ScriptedChatModel([{ text: 'hello' }]);
    expect(textOf(await run(new Agent({ model: plain, middlewares: [new FallbackMiddleware()] })))).toBe('hello');
  });

  it('an interrupted call is not handed to the next model', async () => {
    const primary = new ScriptedChatModel([{ text: 'slow' }], { modelName: 'primary', delayMs: 50 });
    const backup = new ScriptedChatModel([{ text: 'x' }], { modelName: 'backup' });
    const agent = new Agent({ model: primary, middlewares: [new FallbackMiddleware({ models: [backup] })] });
    const reply = run(agent);
    setTimeout(() => agent.interrupt('stop'), 10);
    const events = await reply;
    expect(backup.requests).toHaveLength(0);
    expect(ofType(events, 'REPLY_END')[0]!.finishReason).toBe('interrupted');
  });
});
