import { lastValueFrom, type Observable, toArray } from 'rxjs';
import { z } from 'zod';
import type { Agent } from '../agent/agent.js';
import type { AgentEvent, AgentEventOf, AgentEventType } from '../event/events.js';
import { defineTool } from '../tool/tool.js';
import { assertConsistentConversation, assertReplyGrammar } from '../testing/grammar.js';

/**
 * Collects one reply and checks the stream grammar and the conversation on it: every scenario
 * test goes through here, so every scenario checks the stream grammar of docs/events.md (one
 * start and one end, nested blocks, one result per call).
 */
export async function runReply(agent: Agent, reply$: Observable<AgentEvent>): Promise<AgentEvent[]> {
  const events = await lastValueFrom(reply$.pipe(toArray()));
  assertReplyGrammar(events);
  assertConsistentConversation(agent.context);
  return events;
}

export function ofType<T extends AgentEventType>(events: readonly AgentEvent[], type: T): AgentEventOf<T>[] {
  return events.filter((e): e is AgentEventOf<T> => e.type === type);
}

export function endOf(events: readonly AgentEvent[]): AgentEventOf<'REPLY_END'> {
  const end = events[events.length - 1];
  if (end?.type !== 'REPLY_END') throw new Error('no REPLY_END');
  return end;
}

export function textOf(events: readonly AgentEvent[]): string {
  return ofType(events, 'TEXT_BLOCK_DELTA')
    .map((e) => e.delta)
    .join('');
}

export const addTool = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  readOnly: true,
  execute: ({ a, b }) => Promise.resolve(String(a + b)),
});

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
