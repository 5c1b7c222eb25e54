// The loop's plumbing after the relays replaced operator chains (issue 6): what a user notices —
// event order around an interrupt raised by a consumer, shared chains, the system prompt path.
import { from, lastValueFrom, map, of, tap, toArray, type Observable } from 'rxjs';
import { z } from 'zod';
import type { AgentEvent } from '../../event/events.js';
import type { Middleware } from '../../middleware/middleware.js';
import { assertReplyGrammar } from '../../testing/grammar.js';
import { ScriptedChatModel } from '../../testing/scripted-model.js';
import { defineTool } from '../../tool/tool.js';
import { Agent } from '../agent.js';

const collect = (reply$: Observable<AgentEvent>) => lastValueFrom(reply$.pipe(toArray()));

describe('interrupt raised by a consumer while it handles an event', () => {
  it.each([
    ['a synchronous tool', (n: number) => `done ${n}`],
    ['an asynchronous tool', (n: number) => Promise.resolve(`done ${n}`)],
  ])(
    'with %s: the event is delivered before the closing events, and the next tool never starts',
    async (_name, run) => {
      const started: number[] = [];
      const step = defineTool({
        name: 'step',
        description: '',
        input: z.object({ n: z.number() }),
        execute: ({ n }) => {
          started.push(n);
          return run(n);
        },
      });
      const ref: { agent?: Agent } = {};
      const stopAfterFirst: Middleware = {
        onAgent: (_a, _c, input, next) =>
          next(input).pipe(
            tap((e) => {
              if (e.type === 'TOOL_RESULT_END' && e.toolCallId === 's1') ref.agent!.interrupt('stop');
            }),
          ),
      };
      const model = new ScriptedChatModel([
        {
          toolCalls: [
            { id: 's1', name: 'step', input: { n: 1 } },
            { id: 's2', name: 'step', input: { n: 2 } },
          ],
        },
      ]);
      const agent = (ref.agent = new Agent({ model, tools: [step], middlewares: [stopAfterFirst] }));
      const events = await collect(agent.reply('go'));
      assertReplyGrammar(events);
      expect(started).toEqual([1]);
      const results = events.filter((e) => e.type === 'TOOL_RESULT_END').map((e) => [e.toolCallId, e.status]);
      expect(results).toEqual([
        ['s1', 'success'],
        ['s2', 'interrupted'],
      ]);
      expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'interrupted' });
    },
  );
});

describe('chains shared by agents built from the same middlewares', () => {
  it('every agent runs the layers, and a middleware patched later is used by the agents built after', async () => {
    const seen: string[] = [];
    const mw: Middleware = {
      key: 'log',
      onModelCall: (_a, _c, input, next) =>
        next(input).pipe(tap((e) => e.type === 'MODEL_CALL_START' && seen.push('v1'))),
    };
    const list = [mw];
    const model = new ScriptedChatModel(() => ({ text: 'hi' }));
    await collect(new Agent({ model, middlewares: list }).reply('a'));
    await collect(new Agent({ model, middlewares: [mw] }).reply('b'));
    mw.onModelCall = (_a, _c, input, next) =>
      next(input).pipe(tap((e) => e.type === 'MODEL_CALL_START' && seen.push('v2')));
    await collect(new Agent({ model, middlewares: list }).reply('c'));
    expect(seen).toEqual(['v1', 'v1', 'v2']);
  });

  it('keeps the order of the middlewares (first = outermost) whatever was composed before', async () => {
    const order: string[] = [];
    const named = (key: string): Middleware => ({
      key,
      onModelCall: (_a, _c, input, next) => (order.push(key), next(input)),
    });
    const [a, b] = [named('a'), named('b')];
    const model = new ScriptedChatModel(() => ({ text: 'hi' }));
    await collect(new Agent({ model, middlewares: [a, b] }).reply('x'));
    await collect(new Agent({ model, middlewares: [b, a] }).reply('x'));
    expect(order).toEqual(['a', 'b', 'b', 'a']);
  });
});

describe('system prompt layers', () => {
  it('runs string layers and asynchronous layers in order, once per reasoning step', async () => {
    const calls: string[] = [];
    const layer = (name: string, f: (p: string) => string | Observable<string> | Promise<string>): Middleware => ({
      key: name,
      onSystemPrompt: (_a, _c, prompt) => (calls.push(name), f(prompt)),
    });
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'noop', input: {} }] }, { text: 'done' }]);
    const noop = defineTool({ name: 'noop', description: '', input: z.object({}), execute: () => 'ok' });
    const agent = new Agent({
      model,
      sysPrompt: 'base',
      tools: [noop],
      middlewares: [
        layer('s1', (p) => `${p}+s1`),
        layer('o1', (p) => of(`${p}+o1`).pipe(map((x) => x))),
        layer('s2', (p) => `${p}+s2`),
        layer('p1', (p) => Promise.resolve(`${p}+p1`)),
        layer('e1', () => from([] as string[])),
      ],
    });
    const events = await collect(agent.reply('go'));
    assertReplyGrammar(events);
    expect(calls).toEqual(['s1', 'o1', 's2', 'p1', 'e1', 's1', 'o1', 's2', 'p1', 'e1']);
    const system = model.requests.map((r) => r.messages[0]);
    expect(system.map((m) => m?.content[0])).toEqual([
      { type: 'text', text: 'base+s1+o1+s2+p1' },
      { type: 'text', text: 'base+s1+o1+s2+p1' },
    ]);
  });

  it('with only string layers, a throwing layer ends the reply with an error, as before', async () => {
    const bad: Middleware = {
      onSystemPrompt: () => {
        throw new Error('prompt store down');
      },
    };
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'x' }]), middlewares: [bad] });
    const events = await collect(agent.reply('go'));
    assertReplyGrammar(events);
    expect(events.at(-1)).toMatchObject({
      type: 'REPLY_END',
      finishReason: 'error',
      error: { message: expect.stringContaining('prompt store down') },
    });
  });
});
