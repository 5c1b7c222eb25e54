import { z } from 'zod';
import type { Middleware } from '../middleware/middleware.js';
import { ScriptedChatModel } from '../testing/index.js';
import { defineTool } from '../tool/tool.js';
import { Agent, type AgentOptions } from './agent.js';
import { AgentUsageError } from './errors.js';

const model = new ScriptedChatModel([{ text: 'hi' }]);
const build = (options: unknown) => () => new Agent(options as AgentOptions);

/** The error new Agent(options) throws (the test fails when it does not throw). */
function errorOf(options: unknown): AgentUsageError {
  try {
    new Agent(options as AgentOptions);
  } catch (err) {
    expect(err).toBeInstanceOf(AgentUsageError);
    return err as AgentUsageError;
  }
  throw new Error('new Agent() accepted the options');
}

describe('new Agent(options) checks its options and names the bad one', () => {
  it('a missing model fails at construction, saying what to pass (not on the first call with "reading \'modelName\'")', () => {
    expect(errorOf({}).message).toBe(
      'Invalid agent options: model is missing. Pass a ChatModel, e.g. new OpenAIChatModel({ model: "gpt-4o-mini", apiKey }) ' +
        "from '@rxscope/core/openai', or new ScriptedChatModel([...]) from '@rxscope/core/testing' in tests.",
    );
  });

  it('a model name instead of a model says where the name goes', () => {
    expect(errorOf({ model: 'gpt-4o' }).message).toBe(
      'Invalid agent options: model must be a ChatModel (an object with modelName and stream()), got the string "gpt-4o" ' +
        '(a model name goes to the adapter: new OpenAIChatModel({ model: "gpt-4o" })).',
    );
    expect(errorOf({ model: { modelName: 'x' } }).message).toMatch(/model must be a ChatModel .* got an object\.$/);
  });

  it('misspelt or unknown options are refused with the list of known ones', () => {
    const error = errorOf({ model, systemPrompt: 'Be brief.' });
    expect(error.message).toMatch(
      /^Invalid agent options: unknown option "systemPrompt" of Agent; did you mean "sysPrompt"\? \("systemPrompt" is another framework's name for it\) Known: name, sysPrompt, model, /,
    );
    // Still an AgentUsageError, with the code every refused options key has.
    expect(error).toMatchObject({ name: 'AgentUsageError', code: 'unknown_option' });
    expect(errorOf({ model, maxSteps: 3 }).message).toMatch(/"maxSteps" of Agent; did you mean "maxIters"\?/);
    expect(errorOf({ model, middleware: [] }).message).toMatch(/"middleware" of Agent; did you mean "middlewares"\?/);
    // An option explicitly set to undefined is no typo.
    expect(build({ model, systemPrompt: undefined })).not.toThrow();
  });

  it('tools, middlewares and numbers of the wrong kind', () => {
    expect(errorOf({ model, tools: {} }).message).toMatch(
      /tools must be an array of tools from defineTool\(\), got an object/,
    );
    expect(errorOf({ model, tools: [{ name: 'x', execute: () => 'y' }] }).message).toMatch(
      /tools\[0\] is not a tool \(an object\); build tools with defineTool\(/,
    );
    expect(errorOf({ model, middlewares: [{ onModelCall: 'retry' }] }).message).toBe(
      'Invalid agent options: middlewares[0].onModelCall must be a function, got the string "retry".',
    );
    expect(errorOf({ model, middlewares: [null] }).message).toMatch(
      /middlewares\[0\] must be a middleware object, got null/,
    );
    expect(errorOf({ model, maxIters: -1 }).message).toMatch(/maxIters must be an integer >= 0, got the number -1/);
    expect(errorOf({ model, maxConcurrentTools: 0 }).message).toMatch(/maxConcurrentTools must be an integer >= 1/);
    expect(errorOf({ model, whilePending: 'queue' }).message).toMatch(
      /whilePending must be 'reject-pending' or 'refuse'/,
    );
    expect(errorOf({ model, name: '' }).message).toMatch(/name must be a non-empty string/);
  });

  it('a valid agent still builds (with tools and keyed middlewares)', () => {
    const echo = defineTool({
      name: 'echo',
      description: '',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    });
    const a: Middleware = { key: 'a', onModelCall: (_agent, _ctx, input, next) => next(input) };
    const b: Middleware = { key: 'b', onAgent: (_agent, _ctx, input, next) => next(input) };
    expect(build({ model, tools: [echo], middlewares: [a, b], maxIters: 0 })).not.toThrow();
  });
});

describe('middleware keys are unique within an agent (each keeps its persisted state under its key)', () => {
  it('two middlewares declaring one key are refused: their persisted state would collide', () => {
    const audit: Middleware = { key: 'audit', onAgent: (_a, _c, input, next) => next(input) };
    const alsoAudit: Middleware = { key: 'audit', onModelCall: (_a, _c, input, next) => next(input) };
    expect(errorOf({ model, middlewares: [audit, alsoAudit] }).message).toBe(
      'Invalid agent options: middlewares[0] and middlewares[1] share the key "audit" (their persisted state would collide). ' +
        "Give each a distinct key, e.g. { key: 'audit-log', onAgent: ... }.",
    );
    // Middlewares without a key keep no persisted state under a guessed name: any number may be listed.
    const log: Middleware = { onAgent: (_a, _c, input, next) => next(input) };
    const count: Middleware = { onModelCall: (_a, _c, input, next) => next(input) };
    expect(build({ model, middlewares: [log, count, audit] })).not.toThrow();
  });

  it('two instances of one class with one key clash until one gets its own key; the same instance twice is refused', () => {
    class Counter implements Middleware {
      constructor(readonly key = 'Counter') {}
      onAgent: Middleware['onAgent'] = (_a, ctx, input, next) => {
        const slot = ctx.state<number>(this.key);
        slot.set((slot.get() ?? 0) + 1);
        return next(input);
      };
    }
    expect(errorOf({ model, middlewares: [new Counter(), new Counter()] }).message).toMatch(
      /middlewares\[0\] and middlewares\[1\] share the key "Counter" .* Give each a distinct key \(built-in middlewares take it as an option: new Counter\(\{ key: 'second', \.\.\. \}\)\)\.$/,
    );
    expect(build({ model, middlewares: [new Counter(), new Counter('second')] })).not.toThrow();
    const once: Middleware = { onAgent: (_a, _c, input, next) => next(input) };
    expect(errorOf({ model, middlewares: [once, once] }).message).toBe(
      'Invalid agent options: middlewares[0] and middlewares[1] are the same middleware instance; list it once.',
    );
  });

  it('keyed middlewares keep separate state across a reply', async () => {
    const counting = (key: string): Middleware => ({
      key,
      onAgent: (_a, ctx, input, next) => {
        ctx.state<number>(key).set((ctx.state<number>(key).get() ?? 0) + (key === 'a' ? 1 : 10));
        return next(input);
      },
    });
    const agent = new Agent({
      model: new ScriptedChatModel([{ text: 'x' }]),
      middlewares: [counting('a'), counting('b')],
    });
    await agent.call('go');
    expect(agent.saveState().middlewareState).toEqual({ a: 1, b: 10 });
  });
});
