import { defer, finalize, lastValueFrom, NEVER, Observable, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { textOfMsg, toolResultsOf } from '../message/msg.js';
import type { Middleware } from '../middleware/middleware.js';
import { defineTool } from '../tool/tool.js';
import { assertConsistentConversation, ModelTestingController, ScriptedChatModel } from '../testing/index.js';
import { endOf, runReply, sleep } from './helpers.js';

/** Logs the teardown of every onion layer it wraps, and whether the reply signal was aborted by then. */
function teardownLogger(log: string[]): Middleware {
  const wrap =
    (hook: string) =>
    (_a: unknown, ctx: { signal: AbortSignal }, input: never, next: (i: never) => Observable<never>) =>
      defer(() => next(input).pipe(finalize(() => log.push(`${hook} (signal aborted: ${ctx.signal.aborted})`))));
  return {
    onAgent: wrap('agent'),
    onReasoning: wrap('reasoning'),
    onActing: wrap('acting'),
    onModelCall: wrap('model'),
  };
}

describe('cancellation by unsubscribing', () => {
  it('while the model streams: the model request is aborted, teardown runs innermost-first, the next reply works', async () => {
    const log: string[] = [];
    const controller = new ModelTestingController();
    const agent = new Agent({ model: controller.model, middlewares: [teardownLogger(log)] });
    const seen: string[] = [];
    const sub = agent.reply('write an essay').subscribe((e) => seen.push(e.type));
    const call = controller.expectOne();
    call.streamText('The history of');
    expect(seen).toContain('TEXT_BLOCK_DELTA');

    sub.unsubscribe();

    expect(call.cancelled).toBe(true);
    expect(call.request.signal.aborted).toBe(true);
    expect(log).toEqual([
      'model (signal aborted: false)',
      'reasoning (signal aborted: false)',
      'agent (signal aborted: false)',
    ]);
    expect(seen).not.toContain('REPLY_END'); // nothing is emitted after unsubscribe
    // The agent state stays consistent: the partial reply is kept, nothing is pending.
    expect(agent.busy).toBe(false);
    expect(agent.context.map(textOfMsg)).toEqual(['write an essay', 'The history of']);
    assertConsistentConversation(agent.context);

    const next = lastValueFrom(agent.reply('shorter please').pipe(toArray()));
    controller.expectOne('shorter').flush({ text: 'OK.' });
    expect(endOf(await next).finishReason).toBe('completed');
    controller.verify();
  });

  it('while a tool runs: the tool observes signal.aborted, its teardown runs, the call gets an interrupted result', async () => {
    const log: string[] = [];
    let toolSignal: AbortSignal | undefined;
    let toolTornDown = false;
    const watch = defineTool({
      name: 'watch',
      description: 'watches forever',
      input: z.object({ path: z.string() }),
      execute: (_input, ctx) => {
        toolSignal = ctx.signal;
        return new Observable<string>((s) => {
          s.next('watching…');
          return () => {
            toolTornDown = true;
          };
        });
      },
    });
    const model = new ScriptedChatModel([
      { text: 'Starting.', toolCalls: [{ id: 'w1', name: 'watch', input: { path: '/tmp' } }] },
      { text: 'ok' },
    ]);
    const agent = new Agent({ model, tools: [watch], middlewares: [teardownLogger(log)] });
    const sub = agent.reply('watch /tmp').subscribe();
    await sleep(5);
    expect(toolSignal?.aborted).toBe(false);
    log.length = 0;

    sub.unsubscribe();

    expect(toolSignal?.aborted).toBe(true);
    expect(toolTornDown).toBe(true);
    expect(log).toEqual(['acting (signal aborted: false)', 'agent (signal aborted: false)']);
    const reply = agent.context[1]!;
    expect(toolResultsOf(reply)).toEqual([expect.objectContaining({ toolCallId: 'w1', status: 'interrupted' })]);
    assertConsistentConversation(agent.context);

    // The next reply sees a valid conversation and works.
    const events = await runReply(agent, agent.reply('never mind'));
    expect(endOf(events).finishReason).toBe('completed');
    expect(model.requests[1]!.messages.some((m) => toolResultsOf(m).some((r) => r.toolCallId === 'w1'))).toBe(true);
  });

  it('a tool that reads its signal only after the call was cancelled finds it aborted, with the reason', async () => {
    let readLater: (() => AbortSignal) | undefined;
    const slow = defineTool({
      name: 'slow',
      description: 'reads its signal late',
      input: z.object({}),
      execute: (_input, ctx) => {
        readLater = () => ctx.signal; // not read while the call runs
        return NEVER;
      },
    });
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 's1', name: 'slow', input: {} }] }, { text: 'ok' }]);
    const agent = new Agent({ model, tools: [slow] });
    const sub = agent.reply('go').subscribe();
    await sleep(5);
    sub.unsubscribe();
    const signal = readLater!();
    expect(signal.aborted).toBe(true);
    expect(String(signal.reason)).toMatch(/cancel/);
  });

  it('a copy of the tool context made with a spread carries the signal, which a cancel aborts', async () => {
    let copy: { signal?: AbortSignal; callId?: string } | undefined;
    const slow = defineTool({
      name: 'slow',
      description: 'hands its context on as a copy',
      input: z.object({}),
      execute: (_input, ctx) => {
        copy = { ...ctx };
        return NEVER;
      },
    });
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 's1', name: 'slow', input: {} }] }, { text: 'ok' }]);
    const agent = new Agent({ model, tools: [slow] });
    const sub = agent.reply('go').subscribe();
    await sleep(5);
    expect(copy?.callId).toBe('s1');
    expect(copy?.signal?.aborted).toBe(false);
    sub.unsubscribe();
    expect(copy?.signal?.aborted).toBe(true);
  });

  it('aborts the reply signal seen by middlewares after the layers are torn down', async () => {
    let signal: AbortSignal | undefined;
    const grab: Middleware = {
      onAgent: (_a, ctx, input, next) => {
        signal = ctx.signal;
        return next(input);
      },
    };
    const agent = new Agent({
      model: { modelName: 'never', provider: 'test', stream: () => NEVER },
      middlewares: [grab],
    });
    const sub = agent.reply('hi').subscribe();
    expect(signal?.aborted).toBe(false);
    sub.unsubscribe();
    expect(signal?.aborted).toBe(true);
  });

  it('does not abort the signal of a reply that completed normally', async () => {
    let signal: AbortSignal | undefined;
    const grab: Middleware = {
      onAgent: (_a, ctx, input, next) => {
        signal = ctx.signal;
        return next(input);
      },
    };
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'hi' }]), middlewares: [grab] });
    await runReply(agent, agent.reply('hi'));
    expect(signal?.aborted).toBe(false);
  });
});
