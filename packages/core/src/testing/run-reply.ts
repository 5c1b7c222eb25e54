import { isObservable, lastValueFrom, type Observable, toArray } from 'rxjs';
import type { Agent, ReplyInput } from '../agent/agent.js';
import type { AgentEvent, AgentEventOf, AgentEventType } from '../event/events.js';
import { assertConsistentConversation, assertReplyGrammar } from './grammar.js';

/**
 * Runs one whole reply and checks it the way every test should: the events follow the reply
 * grammar ({@link assertReplyGrammar}) and the agent's conversation is consistent afterwards
 * ({@link assertConsistentConversation}). Takes the reply's input, or a reply stream already made
 * (`agent.reply(...)`, a resumed reply). Resolves with every event of the reply.
 *
 * @example
 * ```ts
 * const events = await runReply(agent, 'What is 2 + 3?');
 * expect(replyEndOf(events).finishReason).toBe('completed');
 * ```
 */
export async function runReply(agent: Agent, input: ReplyInput | Observable<AgentEvent>): Promise<AgentEvent[]> {
  const reply$ = isObservable(input) ? input : agent.reply(input);
  const events = await lastValueFrom(reply$.pipe(toArray()));
  assertReplyGrammar(events);
  assertConsistentConversation(agent.context);
  return events;
}

/**
 * The events of one type, typed as such.
 *
 * @example
 * ```ts
 * const calls = ofType(events, 'TOOL_CALL_START').map((e) => e.toolName);
 * ```
 */
export function ofType<T extends AgentEventType>(events: readonly AgentEvent[], type: T): AgentEventOf<T>[] {
  return events.filter((e): e is AgentEventOf<T> => e.type === type);
}

/**
 * The `REPLY_END` that closes a reply's events; throws when the last event is not one.
 *
 * @example
 * ```ts
 * expect(replyEndOf(await runReply(agent, 'hi')).finishReason).toBe('completed');
 * ```
 */
export function replyEndOf(events: readonly AgentEvent[]): AgentEventOf<'REPLY_END'> {
  const end = events[events.length - 1];
  if (end?.type !== 'REPLY_END')
    throw new Error(`The events do not end with REPLY_END (last: ${end?.type ?? 'none'}).`);
  return end;
}
