/**
 * The code of docs/events.md, run as tests. Every runnable `ts` block of the page is a file in
 * ./docs/events/ that the page shows through a `<!-- snippet: ... -->` marker (checked by
 * scripts/doc-snippets.spec.ts), so what runs here is what the reader copies. Each test checks
 * what a reader would notice if the example stopped working; the last two check what the page
 * says in prose (events survive JSON; tool progress is not output).
 *
 * Blocks of the page that are not run here, and why:
 * - `const chunk: ModelEvent = ...`: a one-line illustration of the type a `ChatModel` emits;
 *   models that emit such events are tested in src/model/;
 * - `interface Msg`: a type signature (the real one is src/message/msg.ts);
 * - `thinking · tool_call(wait) · ...`: a listing of a message's blocks, which the fold test
 *   below checks on a real reply.
 */
import { lastValueFrom, map, of, timer, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, type AgentEvent, defineTool, isAgentEvent, isEvent, ModelError, type Msg } from '../index.js';
import { ScriptedChatModel } from '../testing/index.js';
import { activityLines } from './docs/events/activity-lines.js';
import { showReply } from './docs/events/fold.js';
import { renderStory } from './docs/events/render-text.js';
import { sayHi } from './docs/events/reply-end.js';
import { oneReplyTwoViews } from './docs/events/share.js';
import { finalMessage } from './docs/events/to-msg.js';

/** Resolves once `done()` holds (polling), for examples that subscribe instead of returning. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

const collect = (events$: ReturnType<Agent['reply']>): Promise<AgentEvent[]> => lastValueFrom(events$.pipe(toArray()));

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  readOnly: true,
  execute: ({ a, b }) => String(a + b),
});
const wait = defineTool({
  name: 'wait',
  description: 'Waits for a number of milliseconds',
  input: z.object({ ms: z.number().int().min(0) }),
  readOnly: true,
  execute: ({ ms }) => timer(ms).pipe(map(() => `waited ${ms} ms`)),
});

/** The reply the page describes: it thinks, calls `wait` and `add` in parallel, then answers. */
const parallelAgent = () =>
  new Agent({
    tools: [wait, add],
    model: new ScriptedChatModel([
      {
        thinking: 'Two additions; they can run in parallel.',
        toolCalls: [
          { name: 'wait', input: { ms: 30 } },
          { name: 'add', input: { a: 1, b: 2 } },
        ],
      },
      { text: ['Both ', 'done.'] },
    ]),
  });

describe('docs/events.md', () => {
  it('folding the events gives the message the agent stored, results in call order', async () => {
    const agent = parallelAgent();
    const rendered: Msg[] = [];
    showReply(agent, (msg) => rendered.push(msg));
    await until(() => agent.context.length === 2);
    const msg = rendered.at(-1)!;
    expect(
      msg.content.map((b) => (b.type === 'tool_call' || b.type === 'tool_result' ? `${b.type}(${b.name})` : b.type)),
    ).toEqual(['thinking', 'tool_call(wait)', 'tool_call(add)', 'tool_result(wait)', 'tool_result(add)', 'text']);
    expect(msg.content).toEqual(agent.context[1]!.content);
    expect(rendered.length).toBeGreaterThan(5); // a snapshot per event, as the reply streams
  });

  it('toMsg() folds a whole reply', async () => {
    const { text, results } = await finalMessage(parallelAgent());
    expect(text).toBe('Both done.');
    expect(results.map((r) => r.output)).toEqual([
      [{ type: 'text', text: 'waited 30 ms' }],
      [{ type: 'text', text: '3' }],
    ]);
  });

  it('renders the text as it streams', async () => {
    const agent = new Agent({
      model: new ScriptedChatModel([{ text: ['Once ', 'upon ', 'a time.'] }], { delayMs: 1 }),
    });
    const shown: string[] = [];
    const view = {
      set textContent(text: string) {
        shown.push(text);
      },
    } as unknown as HTMLElement;
    renderStory(agent, view);
    await until(() => shown.length === 3);
    expect(shown).toEqual(['Once ', 'Once upon ', 'Once upon a time.']);
  });

  it('shows tool activity and the answer as lines; parallel `add` ends first', async () => {
    expect(await lastValueFrom(activityLines(parallelAgent()).pipe(toArray()))).toEqual([
      'call wait',
      'call add',
      'result success',
      'result success',
      'Both ',
      'done.',
    ]);
  });

  it('waits for REPLY_END and reports why a reply failed', async () => {
    expect(await sayHi(new Agent({ model: new ScriptedChatModel([{ text: 'hi' }]) }))).toBe('completed');

    const error = jest.spyOn(console, 'error').mockImplementation(() => {});
    const failing = new Agent({ model: new ScriptedChatModel([{ error: new ModelError('upstream unavailable') }]) });
    expect(await sayHi(failing)).toBe('error');
    expect(error.mock.calls).toEqual([['upstream unavailable']]);
  });

  it('share() gives one reply to two consumers', async () => {
    // delayMs: like a real model, events arrive after both consumers subscribed.
    const model = new ScriptedChatModel([{ text: ['sha', 'red'] }], { delayMs: 1 });
    const deltas: string[] = [];
    const ends: string[] = [];
    oneReplyTwoViews(
      new Agent({ model }),
      (e) => deltas.push(e.delta),
      (e) => ends.push(e.finishReason),
    );
    await until(() => ends.length > 0);
    expect(deltas).toEqual(['sha', 'red']);
    expect(ends).toEqual(['completed']);
    expect(model.requests).toHaveLength(1);
  });

  it('events survive JSON and are recognised by isAgentEvent', async () => {
    const events = await collect(parallelAgent().reply('go'));
    const back = events.map((e) => JSON.parse(JSON.stringify(e)) as unknown);
    expect(back.every(isAgentEvent)).toBe(true);
    expect(back).toEqual(events);
    expect(isAgentEvent({ type: 'TEXT_DELTA', id: 'x', replyId: 'r', createdAt: 1, source: 's' })).toBe(false);
  });

  it('streams tool progress as TOOL_PROGRESS and the output as deltas; TOOL_RESULT_END carries the full output', async () => {
    const search = defineTool({
      name: 'search',
      description: 'Searches the docs',
      input: z.object({ query: z.string() }),
      readOnly: true,
      execute: ({ query }, toolCtx) => {
        toolCtx.emit(`searching for "${query}"...`);
        return of('result 1; ', 'result 2');
      },
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'search', input: { query: 'retry' } }] },
      { text: 'Found two.' },
    ]);
    const events = await collect(new Agent({ model, tools: [search] }).reply('search'));
    expect(events.filter(isEvent('TOOL_PROGRESS')).map((e) => e.message)).toEqual(['searching for "retry"...']);
    expect(events.filter(isEvent('TOOL_RESULT_DELTA')).map((e) => e.delta)).toEqual(['result 1; ', 'result 2']);
    expect(events.find(isEvent('TOOL_RESULT_END'))!.output).toEqual([{ type: 'text', text: 'result 1; result 2' }]);
  });
});
