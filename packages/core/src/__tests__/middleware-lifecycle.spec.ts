// A middleware's tools may change while agents use it (read again at each step), and a middleware
// is told when an agent using it shuts down, so it can release what it holds open.
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { AgentUsageError } from '../agent/errors.js';
import { toolResultsOf } from '../message/msg.js';
import type { Middleware } from '../middleware/middleware.js';
import { assertReplyGrammar, ScriptedChatModel } from '../testing/index.js';
import { defineTool, type Tool } from '../tool/tool.js';
import { sleep } from './helpers.js';

const tool = (name: string, execute: () => string = () => `${name} ran`) =>
  defineTool({ name, description: `the ${name} tool`, input: z.object({}), execute });

/** A middleware whose tool list changes, as a connection to a tool server's would. */
function changingTools(initial: readonly Tool[]) {
  let current = initial;
  const middleware: Middleware = { key: 'changing', tools: () => current };
  return { middleware, set: (tools: readonly Tool[]) => void (current = tools) };
}

const run = (agent: Agent, input: string) => lastValueFrom(agent.reply(input).pipe(toArray()));
const offered = (model: ScriptedChatModel) => model.requests.map((r) => r.tools?.map((t) => t.name));

describe('middleware tools that change', () => {
  it('an existing agent offers them at its next model request, within the running reply too', async () => {
    const second = tool('second', () => 'second answered');
    const source = changingTools([]);
    const first = tool('first', () => (source.set([first, second]), 'first ran'));
    source.set([first]);
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'first', input: {} }] },
      { toolCalls: [{ id: 'c2', name: 'second', input: {} }] },
      { text: 'done' },
    ]);
    const agent = new Agent({ name: 'a', model, tools: [tool('own')], middlewares: [source.middleware] });
    expect(agent.tools.map((t) => t.name)).toEqual(['own', 'first']);

    expect(assertReplyGrammar(await run(agent, 'go')).finishReason).toBe('completed');
    expect(offered(model)).toEqual([
      ['own', 'first'],
      ['own', 'first', 'second'],
      ['own', 'first', 'second'],
    ]);
    expect(toolResultsOf(agent.context[1]!).map((r) => [r.status, JSON.stringify(r.output)])).toEqual([
      ['success', expect.stringContaining('first ran')],
      ['success', expect.stringContaining('second answered')],
    ]);
    expect(agent.tools.map((t) => t.name)).toEqual(['own', 'first', 'second']);
    // What can be lent to another agent: the middleware's tools need the middleware around them.
    expect(agent.ownTools.map((t) => t.name)).toEqual(['own']);
  });

  it('a tool that went away is no longer offered, and a call of it gets an error result naming the tools there are', async () => {
    const gone = tool('gone');
    const source = changingTools([gone]);
    const model = new ScriptedChatModel([
      { text: 'hi' },
      { toolCalls: [{ id: 'c1', name: 'gone', input: {} }] },
      { text: 'ok' },
    ]);
    const agent = new Agent({ name: 'a', model, tools: [tool('own')], middlewares: [source.middleware] });
    await run(agent, 'one');
    source.set([]);
    expect(assertReplyGrammar(await run(agent, 'two')).finishReason).toBe('completed');
    expect(offered(model)).toEqual([['own', 'gone'], ['own'], ['own']]);
    const result = toolResultsOf(agent.context[3]!)[0]!;
    expect(result.status).toBe('error');
    expect(JSON.stringify(result.output)).toContain('Available tools: own');
  });

  it('a changed list that clashes with another tool name refuses the next reply with an error naming it', async () => {
    const source = changingTools([]);
    const model = new ScriptedChatModel([{ text: 'never' }]);
    const agent = new Agent({ name: 'a', model, tools: [tool('own')], middlewares: [source.middleware] });
    source.set([tool('own')]);
    const refused = await run(agent, 'go').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(AgentUsageError);
    expect((refused as Error).message).toBe('Two tools are named "own"; tool names must be unique.');
    expect(model.requests).toHaveLength(0);
    source.set([]);
    expect(agent.tools.map((t) => t.name)).toEqual(['own']);
  });
});

describe('middleware tools that clash mid-reply', () => {
  it('a change during a reply that makes two tools share a name ends that reply with the error, the grammar intact', async () => {
    const source = changingTools([]);
    const clash = tool('clash', () => (source.set([tool('own')]), 'changed'));
    source.set([clash]);
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'clash', input: {} }] }, { text: 'never' }]);
    const agent = new Agent({ name: 'a', model, tools: [tool('own')], middlewares: [source.middleware] });
    const end = assertReplyGrammar(await run(agent, 'go'));
    expect(end.finishReason).toBe('error');
    expect(end.error?.message).toContain('Two tools are named "own"');
    expect(model.requests).toHaveLength(1);
  });
});

describe('onShutdown', () => {
  it('is called once per agent after its running reply ended, and shutdown() waits for it', async () => {
    const order: string[] = [];
    const releases: Array<() => void> = [];
    let letToolFinish!: () => void;
    const slow = defineTool({
      name: 'slow',
      description: 'takes a while',
      input: z.object({}),
      execute: () =>
        new Promise<string>((resolve) => (letToolFinish = () => (order.push('tool finished'), resolve('slow done')))),
    });
    const middleware: Middleware = {
      key: 'holder',
      onShutdown: async (agent) => {
        order.push(`onShutdown ${agent.name}`);
        await new Promise<void>((resolve) => releases.push(resolve));
        order.push(`onShutdown ${agent.name} done`);
      },
    };
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'slow', input: {} }] }, { text: 'never' }]);
    const a = new Agent({ name: 'a', model, tools: [slow], middlewares: [middleware] });
    const b = new Agent({ name: 'b', model: new ScriptedChatModel([]), middlewares: [middleware] });
    const reply = run(a, 'go');
    while (!letToolFinish) await sleep(1);
    let resolved = false;
    const down = a.shutdown({ graceMs: 5_000 }).then((r) => ((resolved = true), r));
    const again = a.shutdown();
    await sleep(5);
    expect(order).toEqual([]);
    letToolFinish();
    expect(assertReplyGrammar(await reply).finishReason).toBe('shutdown');
    while (!releases.length) await sleep(1);
    await sleep(5);
    expect(resolved).toBe(false);
    releases[0]!();
    expect(await down).toMatchObject({ agentName: 'a', finishReason: 'shutdown' });
    await again;
    const bDown = b.shutdown();
    while (releases.length < 2) await sleep(1);
    releases[1]!();
    await bDown;
    expect(order).toEqual(['tool finished', 'onShutdown a', 'onShutdown a done', 'onShutdown b', 'onShutdown b done']);
  });

  it('a failing onShutdown is reported to onBackgroundError and the shutdown still resolves', async () => {
    const reported: unknown[] = [];
    const boom = new Error('could not close');
    let fineCalled = 0;
    const agent = new Agent({
      name: 'a',
      model: new ScriptedChatModel([]),
      middlewares: [
        { key: 'failing', onShutdown: () => Promise.reject(boom) },
        { key: 'fine', onShutdown: () => void fineCalled++ },
      ],
      onBackgroundError: (e) => reported.push(e),
    });
    await expect(agent.shutdown()).resolves.toMatchObject({ agentName: 'a' });
    expect(reported).toEqual([boom]);
    expect(fineCalled).toBe(1);
  });

  it('a middleware whose onShutdown is not a function is refused at construction', () => {
    expect(
      () => new Agent({ model: new ScriptedChatModel([]), middlewares: [{ onShutdown: 'close' } as never] }),
    ).toThrow('middlewares[0].onShutdown must be a function');
  });
});
