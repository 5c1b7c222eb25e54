import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import type { Middleware } from '../middleware/middleware.js';
import { defineTool } from '../tool/tool.js';
import { ScriptedChatModel } from '../testing/scripted-model.js';
import { ofType, runReply } from '../testing/run-reply.js';
import { assertReplyGrammar } from '../testing/grammar.js';
import type { AgentEvent } from '../event/events.js';
import { InMemorySessionStore } from './session-store.js';
import { applyJsonPatch, diffJson, JsonPatchError, type JsonObject } from '../util/json-patch.js';
import { SharedStateError } from './shared-state.js';

const addToCart = defineTool({
  name: 'add_to_cart',
  description: 'Adds an item to the cart',
  input: z.object({ item: z.string() }),
  execute: ({ item }, toolCtx) => {
    const cart = (toolCtx.sharedState!.get()['cart'] as string[] | undefined) ?? [];
    if (!cart.length) toolCtx.sharedState!.set({ cart: [item], phase: 'shopping' });
    else toolCtx.sharedState!.patch([{ op: 'add', path: '/cart/-', value: item }]);
    return `added ${item}`;
  },
});

const shopper = () =>
  new ScriptedChatModel([
    { toolCalls: [{ name: 'add_to_cart', input: { item: 'tea' } }] },
    { toolCalls: [{ name: 'add_to_cart', input: { item: 'milk' } }] },
    { text: 'Done.' },
  ]);

/** What a frontend holds after folding the state events, as the docs tell it to. */
function fold(events: readonly AgentEvent[], start: JsonObject = {}): JsonObject {
  let state = start;
  for (const e of events) {
    if (e.type === 'STATE_SNAPSHOT') state = e.snapshot;
    if (e.type === 'STATE_DELTA') state = applyJsonPatch(state, e.delta);
  }
  return state;
}

describe('shared state', () => {
  it('tools change it; the reply streams a snapshot, then deltas, and the session saves it', async () => {
    const store = new InMemorySessionStore();
    const agent = new Agent({ model: shopper(), tools: [addToCart], store, sessionId: 's1' });
    const events = await runReply(agent, agent.reply('Buy tea and milk'));
    const state = events.filter((e) => e.type === 'STATE_SNAPSHOT' || e.type === 'STATE_DELTA');
    expect(state.map((e) => e.type)).toEqual(['STATE_SNAPSHOT', 'STATE_DELTA']);
    expect(ofType(events, 'STATE_SNAPSHOT')[0]!.snapshot).toEqual({ cart: ['tea'], phase: 'shopping' });
    expect(ofType(events, 'STATE_DELTA')[0]!.delta).toEqual([{ op: 'add', path: '/cart/-', value: 'milk' }]);
    expect(fold(events)).toEqual({ cart: ['tea', 'milk'], phase: 'shopping' });
    expect(agent.saveState().sharedState).toEqual({ cart: ['tea', 'milk'], phase: 'shopping' });

    // Saved with the session: another process's agent starts from it.
    const stored = await store.load('s1');
    expect(stored!.state.sharedState).toEqual({ cart: ['tea', 'milk'], phase: 'shopping' });
    const again = new Agent({ model: new ScriptedChatModel([{ text: 'hi' }]), store, sessionId: 's1' });
    await runReply(again, again.reply('hello'));
    expect(again.saveState().sharedState).toEqual({ cart: ['tea', 'milk'], phase: 'shopping' });
  });

  it('a change before REPLY_START goes out right after it; one that changes nothing emits nothing', async () => {
    const phase: Middleware = {
      key: 'phase',
      onAgent: (_agent, ctx, input, next) => {
        ctx.sharedState.set({ phase: 'thinking' });
        ctx.sharedState.set({ phase: 'thinking' });
        return next(input);
      },
    };
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'ok' }]), middlewares: [phase] });
    const events = await runReply(agent, agent.reply('hi'));
    expect(events[0]!.type).toBe('REPLY_START');
    expect(events[1]).toMatchObject({ type: 'STATE_SNAPSHOT', snapshot: { phase: 'thinking' } });
    expect(events.filter((e) => e.type.startsWith('STATE_'))).toHaveLength(1);
  });

  it('reply(input, {sharedState}) starts from the given state (or a function of the current one), announced', async () => {
    const agent = new Agent({
      model: new ScriptedChatModel([{ text: 'a' }, { text: 'b' }]),
      state: stateWith({ n: 1 }),
    });
    const first = await runReply(agent, agent.reply('one', { sharedState: (s) => s }));
    expect(first[1]).toMatchObject({ type: 'STATE_SNAPSHOT', snapshot: { n: 1 } });
    const second = await runReply(agent, agent.reply('two', { sharedState: { n: 2, from: 'client' } }));
    expect(second[1]).toMatchObject({ type: 'STATE_SNAPSHOT', snapshot: { n: 2, from: 'client' } });
    expect(agent.saveState().sharedState).toEqual({ n: 2, from: 'client' });
  });

  it('refuses what is not a JSON object, and a patch that does not apply changes nothing', async () => {
    const errors: unknown[] = [];
    const attempt = (fn: () => void) => {
      try {
        fn();
      } catch (e) {
        errors.push(e);
      }
    };
    const misuse: Middleware = {
      key: 'misuse',
      onAgent: (_agent, ctx, input, next) => {
        const state = ctx.sharedState;
        attempt(() => state.set([1] as never));
        attempt(() => state.set({ big: 'x'.repeat(1024 * 1024) }));
        attempt(() => state.patch([{ op: 'replace', path: '/missing', value: 2 }]));
        attempt(() =>
          state.patch([
            { op: 'replace', path: '/a', value: 5 },
            { op: 'test', path: '/a', value: 6 },
          ]),
        );
        return next(input);
      },
    };
    const agent = new Agent({
      model: new ScriptedChatModel([{ text: 'ok' }]),
      middlewares: [misuse],
      state: stateWith({ a: 1 }),
    });
    const events = await runReply(agent, agent.reply('hi'));
    expect(errors[0]).toBeInstanceOf(SharedStateError);
    expect((errors[1] as Error).message).toMatch(/more than the 1048576 allowed/);
    expect(errors[2]).toBeInstanceOf(JsonPatchError);
    expect((errors[3] as Error).message).toMatch(/operation #1 \(test \/a\) does not apply: the value differs/);
    expect(agent.saveState().sharedState).toEqual({ a: 1 });
    expect(events.some((e) => e.type.startsWith('STATE_'))).toBe(false);
  });
});

/** A saved state holding the given shared state (what a session store gives back). */
function stateWith(sharedState: JsonObject) {
  const saved = new Agent({ model: new ScriptedChatModel([]), sessionId: 's0' }).saveState();
  return { ...saved, sharedState };
}

describe('JSON Patch', () => {
  it('diffJson gives operations that applyJsonPatch turns into the target', () => {
    const from = { a: 1, list: [1, 2, 3], nested: { x: 'y', 'we/ird~key': true }, gone: null };
    const to = { a: 2, list: [1, 5], nested: { x: 'y', 'we/ird~key': false, z: [{}] }, added: 'new' };
    const ops = diffJson(from, to);
    expect(applyJsonPatch(from, ops)).toEqual(to);
    expect(from.list).toEqual([1, 2, 3]); // not mutated
    expect(ops).toContainEqual({ op: 'replace', path: '/nested/we~1ird~0key', value: false });
  });

  it('applies move, copy and array appends as RFC 6902 says', () => {
    const doc = { a: { b: [1] }, c: 'x' };
    expect(
      applyJsonPatch(doc, [
        { op: 'copy', from: '/a/b', path: '/d' },
        { op: 'add', path: '/d/-', value: 2 },
        { op: 'move', from: '/c', path: '/a/c' },
        { op: 'add', path: '/a/b/0', value: 0 },
      ]),
    ).toEqual({ a: { b: [0, 1], c: 'x' }, d: [1, 2] });
    expect(() => applyJsonPatch(doc, [{ op: 'add', path: '/a/b/5', value: 1 }])).toThrow(/index 5 is out of bounds/);
  });

  it('the grammar checker refuses a STATE_DELTA before any snapshot', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'ok' }]) });
    const events = await runReply(agent, agent.reply('hi'));
    const delta = { ...events[1]!, type: 'STATE_DELTA', delta: [] } as unknown as AgentEvent;
    expect(() => assertReplyGrammar([events[0]!, delta, ...events.slice(1)])).toThrow(
      /STATE_DELTA before any STATE_SNAPSHOT/,
    );
  });
});
