import { concat, defer, lastValueFrom, of, tap, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { toolResultsOf } from '../message/msg.js';
import { ContextToken } from '../middleware/context.js';
import type { Middleware } from '../middleware/middleware.js';
import { defineTool } from '../tool/tool.js';
import { ScriptedChatModel } from '../testing/index.js';
import { endOf, ofType, runReply, textOf } from './helpers.js';

const CHUNKS = new ContextToken<number>('chunks', () => 0);
const MODEL_CALLS = new ContextToken<string[]>('modelCalls', () => []);

/** Counts streamed chunks and model calls per reply in the context, reports them at the end. */
class ReplyStatsMiddleware implements Middleware {
  readonly key = 'replyStats';
  onModelCall: Middleware['onModelCall'] = (_a, ctx, input, next) =>
    defer(() => {
      ctx.get(MODEL_CALLS).push(ctx.replyId);
      return next(input).pipe(
        tap((e) => {
          if (e.type === 'TEXT_BLOCK_DELTA') ctx.set(CHUNKS, ctx.get(CHUNKS) + 1);
        }),
      );
    });
  onAgent: Middleware['onAgent'] = (_a, ctx, input, next) =>
    next(input).pipe((events) =>
      concat(
        events.pipe(tap(() => undefined)),
        defer(() =>
          of(ctx.event('CUSTOM', { name: 'stats', value: { chunks: ctx.get(CHUNKS), calls: ctx.get(MODEL_CALLS) } })),
        ),
      ),
    );
}

describe('sharing and scale', () => {
  it('one middleware instance shared by 50 agents replying concurrently keeps each reply apart', async () => {
    const shared = new ReplyStatsMiddleware();
    const agents = Array.from({ length: 50 }, (_, i) => {
      const chunks = Array.from({ length: i + 1 }, (_, k) => `${k} `);
      // delayMs makes the 50 replies interleave on the event loop.
      const model = new ScriptedChatModel([{ text: chunks }], { delayMs: 1 });
      return new Agent({ name: `agent-${i}`, model, middlewares: [shared] });
    });
    const results = await Promise.all(agents.map((a) => lastValueFrom(a.reply(`hello ${a.name}`).pipe(toArray()))));

    results.forEach((events, i) => {
      const stats = ofType(events, 'CUSTOM')[0]!;
      const replyId = events[0]!.replyId;
      expect(stats.value).toEqual({ chunks: i + 1, calls: [replyId] });
      expect(events.every((e) => e.replyId === replyId && e.source === `agent-${i}`)).toBe(true);
      expect(textOf(events).split(' ').filter(Boolean)).toHaveLength(i + 1);
    });
    expect(new Set(results.map((r) => r[0]!.replyId)).size).toBe(50);
  });

  it('persisted middleware state (ctx.state) is per agent and survives saveState()', async () => {
    const counter: Middleware = {
      key: 'counter',
      onAgent: (_a, ctx, input, next) =>
        defer(() => {
          const slot = ctx.state<number>('counter');
          slot.set((slot.get() ?? 0) + 1);
          return next(input);
        }),
    };
    const a = new Agent({ model: new ScriptedChatModel([{ text: '1' }, { text: '2' }]), middlewares: [counter] });
    const b = new Agent({ model: new ScriptedChatModel([{ text: '1' }]), middlewares: [counter] });
    await runReply(a, a.reply('x'));
    await runReply(a, a.reply('y'));
    await runReply(b, b.reply('z'));
    expect(a.saveState().middlewareState).toEqual({ counter: 2 });
    expect(b.saveState().middlewareState).toEqual({ counter: 1 });
  });

  it('a 1,000-iteration reply completes and finalizes (the loop is flat)', async () => {
    let executed = 0;
    const step = defineTool({
      name: 'step',
      description: 'one more step',
      input: z.object({ n: z.number() }),
      readOnly: true,
      execute: ({ n }) => {
        executed++;
        return `step ${n} done`;
      },
    });
    const model = new ScriptedChatModel((_request, index) =>
      index < 999 ? { toolCalls: [{ name: 'step', input: { n: index } }] } : { text: 'finished after 999 steps' },
    );
    const agent = new Agent({ model, tools: [step], maxIters: 1000 });
    let finalized = false;
    const events = await runReply(
      agent,
      agent.reply('go').pipe(
        tap({
          finalize: () => {
            finalized = true;
          },
        }),
      ),
    );
    expect(finalized).toBe(true);
    expect(executed).toBe(999);
    expect(model.requests).toHaveLength(1000);
    expect(endOf(events).finishReason).toBe('completed');
    expect(toolResultsOf(agent.context[1]!)).toHaveLength(999);
    expect(agent.busy).toBe(false);
  });
});
