import { z } from 'zod';
import { Agent, type AgentEvent, defineTool, type ModelRequest, textOfMsg, toolResultsOf } from '@rxscope/core';
import { ScriptedChatModel, type ScriptedTurn } from '@rxscope/core/testing';
import { customValues, hints, run } from '../__tests__/helpers.js';
import { ToolCallLimitMiddleware } from './index.js';

function fixture() {
  const ran: string[] = [];
  const tool = (name: string, concurrencySafe = false) =>
    defineTool({
      name,
      description: name,
      input: z.object({ q: z.string() }),
      concurrencySafe,
      execute: ({ q }) => (ran.push(`${name} ${q}`), `${name}: ${q}`),
    });
  return { ran, add: tool('add', true), search: tool('search'), fsRead: tool('fs_read'), fsWrite: tool('fs_write') };
}

const limitEvents = (events: readonly AgentEvent[]) => customValues(events, 'tool_call_limit');
const offered = (r: ModelRequest) => r.tools.map((t) => t.name);

/** Calls `name` until tools are switched off or it is no longer offered, then answers. */
const callsUntilStopped = (...names: string[]) =>
  new ScriptedChatModel((request, i): ScriptedTurn => {
    const available = names.filter((n) => request.tools.some((t) => t.name === n));
    if (request.toolChoice === 'none' || !available.length) return { text: 'Final answer.' };
    return { toolCalls: [{ name: available[0]!, input: { q: String(i) } }] };
  });

describe('ToolCallLimitMiddleware', () => {
  it("'finish' (default): once the limit is used up, the next step answers without tools", async () => {
    const { ran, add } = fixture();
    const model = callsUntilStopped('add');
    const agent = new Agent({ model, tools: [add], middlewares: [new ToolCallLimitMiddleware({ perReply: 2 })] });
    const { events, end } = await run(agent, 'go');

    expect(end.finishReason).toBe('completed');
    expect(ran).toEqual(['add 0', 'add 1']);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'none']);
    expect(hints(events)).toEqual([expect.stringContaining('The limit of 2 tool calls per reply is reached')]);
    expect(model.requests[2]!.messages.at(-1)!.content.at(-1)).toMatchObject({ type: 'hint' });
    expect(textOfMsg(agent.context.at(-1)!)).toBe('Final answer.');
    expect(limitEvents(events)).toEqual([{ action: 'finish', limits: [{ scope: 'reply', limit: 2, used: 2 }] }]);
  });

  it('answers calls over the limit with a denied result that names it, even in one parallel step', async () => {
    const { ran, add } = fixture();
    const model = new ScriptedChatModel([
      { toolCalls: ['a', 'b', 'c'].map((q, i) => ({ id: `c${i}`, name: 'add', input: { q } })) },
      { text: 'Two of three.' },
    ]);
    const agent = new Agent({ model, tools: [add], middlewares: [new ToolCallLimitMiddleware({ perReply: 2 })] });
    const { events, end } = await run(agent, 'go');

    expect(end.finishReason).toBe('completed');
    expect(ran).toEqual(['add a', 'add b']);
    const results = toolResultsOf(agent.context.at(-1)!);
    expect(results.map((r) => [r.toolCallId, r.status])).toEqual([
      ['c0', 'success'],
      ['c1', 'success'],
      ['c2', 'denied'],
    ]);
    expect(results[2]!.output).toEqual([
      {
        type: 'text',
        text: 'Tool call limit reached: at most 2 tool calls per reply (2 made). This call was not executed; do not repeat it.',
      },
    ]);
    expect(limitEvents(events)[0]).toEqual({
      action: 'deny',
      toolCallId: 'c2',
      toolName: 'add',
      scope: 'reply',
      limit: 2,
      used: 2,
    });
    expect(model.requests[1]!.toolChoice).toBe('none');
  });

  it("'end': a call over the limit is denied and the reply stops (tool_call_limit) before the next model call", async () => {
    const { ran, add } = fixture();
    const model = callsUntilStopped('add');
    const agent = new Agent({
      model,
      tools: [add],
      middlewares: [new ToolCallLimitMiddleware({ perReply: 1, onLimit: 'end' })],
    });
    const { events, end } = await run(agent, 'go');

    expect(ran).toEqual(['add 0']);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto']); // not steered
    expect(hints(events)).toEqual([]);
    expect(end).toMatchObject({ finishReason: 'stopped', stopReason: { code: 'tool_call_limit' } });
    expect(end.error).toBeUndefined();
    expect(end.stopReason!.message).toContain('at most 1 tool call per reply');
    expect(toolResultsOf(agent.context.at(-1)!).map((r) => r.status)).toEqual(['success', 'denied']);
    expect(limitEvents(events).map((v) => (v as { action: string }).action)).toEqual(['deny', 'end']);
  });

  it('limits one tool: its calls stop, it is no longer offered, other tools go on', async () => {
    const { ran, add, search } = fixture();
    const model = callsUntilStopped('search', 'add');
    const agent = new Agent({
      model,
      tools: [add, search],
      maxIters: 3,
      middlewares: [new ToolCallLimitMiddleware({ perTool: { search: { perReply: 1 } } })],
    });
    const { events, end } = await run(agent, 'go');

    expect(end.finishReason).toBe('max_iters');
    expect(ran).toEqual(['search 0', 'add 1', 'add 2']);
    expect(model.requests.map(offered)).toEqual([['add', 'search'], ['add'], ['add'], ['add']]);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'auto', 'none']); // the last is the loop's maxIters call
    expect(hints(events)).toEqual([
      'The limit of 1 call of "search" per reply is reached; search is no longer available. Continue without it.',
    ]);
  });

  it('counts the tools a glob matches together', async () => {
    const { ran, fsRead, fsWrite, add } = fixture();
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'fs_read', input: { q: 'a' } },
          { name: 'fs_write', input: { q: 'b' } },
          { name: 'add', input: { q: 'c' } },
        ],
      },
      { text: 'ok' },
    ]);
    const agent = new Agent({
      model,
      tools: [fsRead, fsWrite, add],
      middlewares: [new ToolCallLimitMiddleware({ perTool: { 'fs_*': { perReply: 1 } } })],
    });
    await run(agent, 'go');

    expect(ran).toEqual(['fs_read a', 'add c']);
    expect(offered(model.requests[1]!)).toEqual(['add']);
  });

  it('does not count calls answered before they run (unknown tool, invalid arguments)', async () => {
    const { ran, add } = fixture();
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'nope', input: {} },
          { name: 'add', input: { q: 42 } },
          { name: 'add', input: { q: 'ok' } },
        ],
      },
      { text: 'ok' },
    ]);
    const agent = new Agent({ model, tools: [add], middlewares: [new ToolCallLimitMiddleware({ perReply: 1 })] });
    await run(agent, 'go');

    expect(ran).toEqual(['add ok']);
    expect(toolResultsOf(agent.context.at(-1)!).map((r) => r.status)).toEqual(['error', 'error', 'success']);
  });

  it('counts per session, persisted with the state', async () => {
    const { ran, add } = fixture();
    const first = new Agent({
      model: new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { q: 'x' } }] }, { text: 'one' }]),
      tools: [add],
      middlewares: [new ToolCallLimitMiddleware({ perSession: 1 })],
    });
    await run(first, 'one');
    expect(first.saveState().middlewareState['ToolCallLimitMiddleware']).toMatchObject({ session: { calls: 1 } });

    // a model that keeps calling tools whatever it is told
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { q: 'y' } }] }, { text: 'two' }]);
    const second = new Agent({
      model,
      tools: [add],
      middlewares: [new ToolCallLimitMiddleware({ perSession: 1 })],
      state: first.saveState(),
    });
    const { end } = await run(second, 'two');

    expect(end.finishReason).toBe('completed');
    expect(model.requests[0]!.toolChoice).toBe('none'); // steered from the first step
    expect(ran).toEqual(['add x']); // the call it made anyway was denied
    expect(toolResultsOf(second.context.at(-1)!).map((r) => r.status)).toEqual(['denied']);
  });

  it('needs a limit', () => {
    expect(() => new ToolCallLimitMiddleware({})).toThrow(/at least one limit/);
    expect(() => new ToolCallLimitMiddleware({ perTool: { x: { perReply: -2 } } })).toThrow(/perTool\["x"\]\.perReply/);
  });
});
