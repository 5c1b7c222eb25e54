import { EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { concat, concatMap, defer, from, of, switchMap, takeWhile, type Observable } from 'rxjs';
import type { Agent } from '../../agent/agent.js';
import { createEvent } from '../../event/create.js';
import type { AgentEvent } from '../../event/events.js';
import { agUiMessagesOf } from '../../transport/ag-ui/ag-ui-messages-of.js';
import { toAgUiEvents } from '../../transport/ag-ui/to-ag-ui-events.js';
import type { SessionEventBus } from '../sessions/session-event-bus.js';

/**
 * What a reconnecting AG-UI client (`connectAgent()` of `RxscopeHttpAgent`) receives for its
 * thread. With a `bus` and a reply of the thread in progress: that reply replayed from its
 * `REPLY_START` (its `STATE_SNAPSHOT` included) and followed live to its end, as AG-UI events,
 * with a `MESSAGES_SNAPSHOT` of the conversation before it right after `RUN_STARTED`.
 * Otherwise the thread as it is: `RUN_STARTED`, `MESSAGES_SNAPSHOT` (the agent's conversation),
 * `STATE_SNAPSHOT` (the shared state), `RUN_FINISHED`.
 */
export function connectEvents(
  agent: Agent,
  input: RunAgentInput,
  bus: SessionEventBus | undefined,
): Observable<BaseEvent> {
  return defer(() => from(replyInProgress(bus, input.threadId))).pipe(
    switchMap((running) => {
      if (bus && running) {
        const ended = (e: { type: string; replyId: string; source: string }) =>
          e.type === 'REPLY_END' && e.replyId === running.replyId && e.source === agent.name;
        // The conversation before the running reply (its input included) goes right after RUN_STARTED.
        let first = true;
        return running.events.pipe(
          takeWhile((e) => !ended(e), true),
          toAgUiEvents({ threadId: input.threadId, source: agent.name }),
          concatMap((e) => {
            if (!first || e.type !== EventType.RUN_STARTED) return of(e);
            first = false;
            const messages = agUiMessagesOf(agent.context);
            return of(e, { type: EventType.MESSAGES_SNAPSHOT, messages, timestamp: e.timestamp } as BaseEvent);
          }),
        );
      }
      const waiting = waitingForAPerson(agent, input);
      if (waiting) return waiting;
      const base = { threadId: input.threadId, runId: input.runId };
      const now = Date.now();
      const messages = agUiMessagesOf(agent.context);
      return of<BaseEvent[]>(
        { type: EventType.RUN_STARTED, ...base, timestamp: now } as BaseEvent,
        { type: EventType.MESSAGES_SNAPSHOT, messages, timestamp: now } as BaseEvent,
        { type: EventType.STATE_SNAPSHOT, snapshot: agent.saveState().sharedState ?? {}, timestamp: now } as BaseEvent,
        { type: EventType.RUN_FINISHED, ...base, outcome: { type: 'success' }, timestamp: now } as BaseEvent,
      );
    }),
  );
}

/**
 * The thread's reply in progress and its events from its `REPLY_START`. With a bus that lists
 * them (`openReplyEvents`), the reply is pinned by its `REPLY_START`'s id and read after it, so a
 * reply that ends between the check and the subscription is still replayed to its end (rather
 * than awaited forever); with another bus, the reply in progress as `events()` replays it.
 */
async function replyInProgress(
  bus: SessionEventBus | undefined,
  threadId: string,
): Promise<{ readonly replyId: string; readonly events: Observable<AgentEvent> } | undefined> {
  if (!bus) return undefined;
  if (bus.openReplyEvents) {
    const [start] = await bus.openReplyEvents(threadId);
    if (start?.type !== 'REPLY_START') return undefined;
    return { replyId: start.replyId, events: concat(of(start), bus.events(threadId, { lastEventId: start.id })) };
  }
  const open = await bus.openReply?.(threadId);
  return open === undefined ? undefined : { replyId: open, events: bus.events(threadId) };
}

/**
 * A thread whose last reply waits for a confirmation: the run as it ended, again (its messages
 * and state, then `RUN_FINISHED` with the same interrupts), so a client that reconnects can
 * answer them. `undefined` when nothing waits.
 */
function waitingForAPerson(agent: Agent, input: RunAgentInput): Observable<BaseEvent> | undefined {
  const state = agent.saveState();
  const pending = state.pending;
  if (!pending?.confirm.length || pending.shutdown) return undefined;
  const origin = { replyId: pending.replyId, source: agent.name };
  return from([
    createEvent('REPLY_START', { sessionId: input.threadId }, origin),
    createEvent('REQUIRE_USER_CONFIRM', { toolCalls: pending.confirm }, origin),
    createEvent('REPLY_END', { finishReason: 'awaiting_confirmation' }, origin),
  ]).pipe(
    toAgUiEvents({
      threadId: input.threadId,
      runId: input.runId,
      source: agent.name,
      messages: agUiMessagesOf(agent.context),
      state: state.sharedState ?? {},
      tools: agent.tools,
    }),
  );
}
