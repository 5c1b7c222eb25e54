import { catchError, lastValueFrom, of, retry, tap, toArray } from 'rxjs';
import { Agent } from '../agent/agent.js';
import { AgentError } from '../agent/errors.js';
import type { AgentEvent } from '../event/events.js';
import { ScriptedChatModel } from '../testing/scripted-model.js';
import { throwOnErrorEnd } from './throw-on-error-end.js';

const failing = () => ({ error: Object.assign(new Error('upstream exploded'), { status: 503 }) });

describe('throwOnErrorEnd', () => {
  it('errors the stream with an AgentError instead of the error REPLY_END, after the events before it', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'partial ', ...failing() }]) });
    const seen: AgentEvent[] = [];
    const outcome = lastValueFrom(
      agent.reply('hi').pipe(
        throwOnErrorEnd(),
        tap((e) => seen.push(e)),
      ),
    );
    const error = await outcome.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).info.message).toContain('upstream exploded');
    expect((error as AgentError).replyId).toBe(seen[0]?.replyId);
    expect(seen.map((e) => e.type)).toContain('TEXT_BLOCK_DELTA');
    expect(seen.some((e) => e.type === 'REPLY_END')).toBe(false);
  });

  it('lets catchError and retry work: retry subscribes again and runs a new reply', async () => {
    const model = new ScriptedChatModel([failing(), { text: 'second try' }]);
    const agent = new Agent({ model });
    const events = await lastValueFrom(agent.reply('hi').pipe(throwOnErrorEnd(), retry(1), toArray()));
    const end = events.at(-1);
    expect(end?.type === 'REPLY_END' && end.finishReason).toBe('completed');
    expect(model.requests).toHaveLength(2);

    const fallback = await lastValueFrom(
      new Agent({ model: new ScriptedChatModel([failing()]) }).reply('hi').pipe(
        throwOnErrorEnd(),
        catchError((e: unknown) => of(`sorry: ${(e as AgentError).info.message}`)),
        toArray(),
      ),
    );
    expect(fallback.at(-1)).toMatch(/^sorry: .*upstream exploded/);
  });

  it('passes every other ending through and completes', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'fine' }]) });
    const events = await lastValueFrom(agent.reply('hi').pipe(throwOnErrorEnd(), toArray()));
    const end = events.at(-1);
    expect(end?.type === 'REPLY_END' && end.finishReason).toBe('completed');
  });

  it('does not fail the stream for a subagent whose reply failed (that is a tool result of the outer agent)', async () => {
    const helper = new Agent({ name: 'helper', model: new ScriptedChatModel([failing()]) });
    const outer = new Agent({
      name: 'lead',
      model: new ScriptedChatModel([
        { toolCalls: [{ name: 'helper', input: { message: 'do it' } }] },
        { text: 'the helper failed' },
      ]),
      tools: [helper.asTool({ description: 'Helps' })],
    });
    const events = await lastValueFrom(outer.reply('go').pipe(throwOnErrorEnd(), toArray()));
    const ends = events.filter((e) => e.type === 'REPLY_END');
    expect(ends.map((e) => [e.source, e.type === 'REPLY_END' && e.finishReason])).toEqual([
      ['helper', 'error'],
      ['lead', 'completed'],
    ]);
  });
});

describe('reply() is cold', () => {
  it('runs nothing before subscribe, and one reply per subscription', async () => {
    const model = new ScriptedChatModel([{ text: 'one' }, { text: 'two' }]);
    const agent = new Agent({ model });
    const reply$ = agent.reply('hi');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(model.requests).toHaveLength(0);
    await lastValueFrom(reply$.pipe(toArray()));
    await lastValueFrom(reply$.pipe(toArray()));
    expect(model.requests).toHaveLength(2);
    expect(agent.context.filter((m) => m.role === 'user')).toHaveLength(2);
  });
});
