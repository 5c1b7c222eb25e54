import { EventType, type RunAgentInput } from '@ag-ui/core';
import { firstValueFrom, lastValueFrom, timeout, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../../agent/agent.js';
import { createEvent } from '../../event/create.js';
import type { AgentEvent } from '../../event/events.js';
import { ScriptedChatModel } from '../../testing/scripted-model.js';
import { defineTool } from '../../tool/tool.js';
import { InMemorySessionEventBus } from '../sessions/in-memory-session-event-bus.js';
import type { SessionEventBus } from '../sessions/session-event-bus.js';
import { connectEvents } from './ag-ui-connect.js';

const origin = { replyId: 'r1', source: 'assistant' };
const input: RunAgentInput = {
  threadId: 't1',
  runId: 'run-2',
  messages: [],
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
};
const reply: AgentEvent[] = [
  createEvent('REPLY_START', { sessionId: 't1' }, origin),
  createEvent('TEXT_BLOCK_START', { blockId: 'b1' }, origin),
  createEvent('TEXT_BLOCK_DELTA', { blockId: 'b1', delta: 'Hello' }, origin),
  createEvent('TEXT_BLOCK_END', { blockId: 'b1' }, origin),
  createEvent('REPLY_END', { finishReason: 'completed' }, origin),
];

describe('connectEvents: a reconnecting AG-UI client', () => {
  const agent = new Agent({ name: 'assistant', model: new ScriptedChatModel([]) });

  it('gets the running reply whole even when it ends between the check and the subscription', async () => {
    const inner = new InMemorySessionEventBus();
    for (const e of reply.slice(0, 3)) await inner.append('t1', e);
    // The reply ends right after the handler asked which reply runs: the race a reconnect meets.
    const endTheReply = async () => {
      for (const e of reply.slice(3)) await inner.append('t1', e);
    };
    const bus: SessionEventBus = Object.assign(Object.create(inner) as SessionEventBus, {
      openReply: async (id: string) => {
        const open = await inner.openReply(id);
        await endTheReply();
        return open;
      },
      openReplyEvents: async (id: string) => {
        const open = await inner.openReplyEvents(id);
        await endTheReply();
        return open;
      },
    });
    const events = await firstValueFrom(connectEvents(agent, input, bus).pipe(toArray(), timeout(2_000)));
    expect(events.map((e) => e.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.MESSAGES_SNAPSHOT,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
  });

  it('gets the thread as it is when no reply runs', async () => {
    const bus = new InMemorySessionEventBus();
    for (const e of reply) await bus.append('t1', e);
    const events = await firstValueFrom(connectEvents(agent, input, bus).pipe(toArray(), timeout(2_000)));
    expect(events.map((e) => e.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.MESSAGES_SNAPSHOT,
      EventType.STATE_SNAPSHOT,
      EventType.RUN_FINISHED,
    ]);
  });
});

describe('connectEvents: a thread waiting for a confirmation', () => {
  it('sends the run as it ended again: its messages, state and the same interrupts', async () => {
    const refund = defineTool({
      name: 'refund',
      description: 'Refunds an order.',
      input: z.object({ order: z.string() }),
      needsApproval: true,
      execute: ({ order }) => `refunded ${order}`,
    });
    const agent = new Agent({
      name: 'assistant',
      model: new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'refund', input: { order: 'A-1' } }] }]),
      tools: [refund],
    });
    await lastValueFrom(agent.reply('Refund A-1'));
    const events = await firstValueFrom(
      connectEvents(agent, input, new InMemorySessionEventBus()).pipe(toArray(), timeout(2_000)),
    );
    const end = events.at(-1) as { type: string; outcome?: { type: string; interrupts: { toolCallId?: string }[] } };
    expect(end.type).toBe(EventType.RUN_FINISHED);
    expect(end.outcome?.type).toBe('interrupt');
    expect(end.outcome?.interrupts.map((i) => i.toolCallId)).toEqual(['c1']);
    expect(events.map((e) => e.type)).toContain(EventType.MESSAGES_SNAPSHOT);
  });
});
