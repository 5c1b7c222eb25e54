import { lastValueFrom } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { createEvent } from '../event/create.js';
import { isAgentEvent, isBlockEnd, isBlockStart, isEvent } from '../event/guards.js';
import { toMsg } from '../operators/to-msg.js';
import { createReplyReducer } from '../event/reducer.js';
import { defineTool } from '../tool/tool.js';
import { AgentStateError, parseAgentState } from '../state/snapshot.js';
import { ScriptedChatModel } from '../testing/index.js';
import { addTool, runReply } from './helpers.js';

describe('reply reducer', () => {
  it('a consumer folding the events it received gets exactly the message the agent stored', async () => {
    const slowRead = defineTool({
      name: 'read',
      description: '',
      input: z.object({ ms: z.number() }),
      readOnly: true,
      execute: async ({ ms }, ctx) => {
        ctx.emit('reading… ');
        await new Promise((r) => setTimeout(r, ms));
        return `read after ${ms}ms`;
      },
    });
    const model = new ScriptedChatModel([
      {
        thinking: ['Need ', 'two reads.'],
        text: 'Reading.',
        toolCalls: [
          { name: 'read', input: { ms: 20 } },
          { name: 'read', input: { ms: 1 } },
        ],
      },
      { toolCalls: [{ name: 'add', arguments: '{"a":1}' }] },
      { text: ['All ', 'done.'] },
    ]);
    const agent = new Agent({ name: 'reader', model, tools: [slowRead, addTool] });
    const events = await runReply(agent, agent.reply('read twice'));

    const reducer = createReplyReducer();
    for (const e of events) reducer.apply(e);
    const stored = agent.context[1]!;
    expect(reducer.message()).toEqual(stored);
    expect(stored.id).toBe(events[0]!.replyId);
    expect(stored.content.map((b) => b.type)).toEqual([
      'thinking',
      'text',
      'tool_call',
      'tool_call',
      'tool_result',
      'tool_result',
      'tool_call',
      'tool_result',
      'text',
    ]);
  });

  it('toMsg() folds a stream into the reply message', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([{ text: ['a', 'b', 'c'] }]) });
    const msg = await lastValueFrom(agent.reply('x').pipe(toMsg()));
    expect(msg).toMatchObject({ role: 'assistant', name: 'assistant', content: [{ type: 'text', text: 'abc' }] });
  });

  it('skips events of other sources when asked (forwarded subagent events)', () => {
    const reducer = createReplyReducer({ source: 'main' });
    const origin = { replyId: 'r', source: 'sub' };
    reducer.apply(createEvent('TEXT_BLOCK_START', { blockId: 'b' }, origin));
    reducer.apply(createEvent('TEXT_BLOCK_DELTA', { blockId: 'b', delta: 'sub text' }, origin));
    expect(reducer.message().content).toEqual([]);
  });
});

describe('event constructors and guards', () => {
  it('createEvent fills the base fields, and the guards narrow', () => {
    const e = createEvent('TEXT_BLOCK_DELTA', { blockId: 'b1', delta: 'hi' }, { replyId: 'r1', source: 'bot' });
    expect(e).toMatchObject({ type: 'TEXT_BLOCK_DELTA', blockId: 'b1', delta: 'hi', replyId: 'r1', source: 'bot' });
    expect(typeof e.id).toBe('string');
    expect(typeof e.createdAt).toBe('number');
    expect(isEvent('TEXT_BLOCK_DELTA')(e)).toBe(true);
    expect(isEvent('TEXT_BLOCK_START', 'TEXT_BLOCK_END')(e)).toBe(false);
    expect(
      isBlockStart(
        createEvent('TOOL_CALL_START', { blockId: 'x', toolCallId: 'c', name: 'n' }, { replyId: 'r', source: 's' }),
      ),
    ).toBe(true);
    expect(isBlockStart(createEvent('MODEL_CALL_START', { model: 'm' }, { replyId: 'r', source: 's' }))).toBe(false);
    expect(isBlockEnd(createEvent('REPLY_END', { finishReason: 'completed' }, { replyId: 'r', source: 's' }))).toBe(
      false,
    );
    expect(isAgentEvent(JSON.parse(JSON.stringify(e)))).toBe(true);
    expect(isAgentEvent({ ...e, type: 'NOPE' })).toBe(false);
  });
});

describe('state snapshots', () => {
  it('round-trips through JSON: a restored agent continues the conversation', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
      { text: '3' },
      { text: 'still 3' },
    ]);
    const agent = new Agent({ model, tools: [addTool], sessionId: 's-1' });
    await runReply(agent, agent.reply('1+2'));
    const snapshot = JSON.parse(JSON.stringify(agent.saveState())) as unknown;
    const restored = new Agent({ model, tools: [addTool], state: snapshot });
    expect(restored.sessionId).toBe('s-1');
    expect(restored.context).toEqual(agent.context);
    await runReply(restored, restored.reply('and now?'));
    expect(model.requests[2]!.messages).toHaveLength(3);
  });

  it('rejects a corrupt snapshot with an error naming the bad path', () => {
    const model = new ScriptedChatModel([]);
    const good = new Agent({ model }).saveState();
    const corrupt = {
      ...good,
      context: [{ id: 'm', role: 'user', name: 'u', createdAt: 1, content: [{ type: 'text', text: 42 }] }],
    };
    expect(() => new Agent({ model, state: corrupt })).toThrow(AgentStateError);
    try {
      parseAgentState(corrupt);
    } catch (e) {
      expect((e as AgentStateError).path).toBe('context.0.content.0.text');
      expect((e as Error).message).toMatch(/context\.0\.content\.0\.text/);
    }
    expect(() => parseAgentState({ ...good, version: 99 })).toThrow(/version 99 is newer/);
    expect(() => parseAgentState('not a snapshot')).toThrow(AgentStateError);
  });
});
