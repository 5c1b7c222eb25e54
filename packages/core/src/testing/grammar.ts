import type { AgentEvent } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import { unansweredToolCalls } from '../message/msg.js';

const FINISH_REASONS = new Set([
  'completed',
  'interrupted',
  'max_iters',
  'awaiting_confirmation',
  'awaiting_external_execution',
  'stopped',
  'shutdown',
  'error',
]);

/**
 * Checks the stream grammar every reply obeys (docs/events.md, "The stream grammar") and throws a
 * descriptive error on the first violation:
 * - one `REPLY_START` first, one `REPLY_END` last with a valid `finishReason`, one reply id;
 * - every block `*_START` has exactly one `*_END` with the same block id, deltas in between;
 * - every block opened during a model call closes before its `MODEL_CALL_END`;
 * - `TOOL_PROGRESS` comes only inside an open tool result block;
 * - `TOOL_CALL_DELTA` and `TOOL_CALL_END` carry the `toolCallId` of their `TOOL_CALL_START`;
 * - a `STATE_DELTA` comes only after a `STATE_SNAPSHOT` of the same reply;
 * - every tool call of the reply gets exactly one result.
 *
 * Events of other agents forwarded through the reply (an agent used as a tool) are checked as
 * their own replies, one per `source` and `replyId`. Returns the `REPLY_END` event.
 *
 * @example
 * ```ts
 * const events = await lastValueFrom(agent.reply('hi').pipe(toArray()));
 * expect(assertReplyGrammar(events).finishReason).toBe('completed');
 * ```
 */
export function assertReplyGrammar(all: readonly AgentEvent[]): Extract<AgentEvent, { type: 'REPLY_END' }> {
  const fail = (msg: string, i?: number): never => {
    throw new Error(`Stream grammar violated${i !== undefined ? ` at event #${i}` : ''}: ${msg}\n${summarise(all)}`);
  };
  if (!all.length) fail('no events');
  const first = all[0]!;
  if (first.type !== 'REPLY_START') fail(`first event is ${first.type}, expected REPLY_START`, 0);
  const source = first.source;
  const events = all.filter((e) => e.source === source);
  const last = events[events.length - 1]!;
  if (last.type !== 'REPLY_END') fail(`last event is ${last.type}, expected REPLY_END`);
  const end = last as Extract<AgentEvent, { type: 'REPLY_END' }>;
  if (!FINISH_REASONS.has(end.finishReason)) fail(`invalid finishReason ${end.finishReason}`);
  if (end.finishReason === 'error' && !end.error) fail('REPLY_END with finishReason error carries no error');
  if (end.finishReason === 'stopped' && !end.stopReason)
    fail('REPLY_END with finishReason stopped carries no stopReason');

  const open = new Map<string, string>();
  let modelOpen: Set<string> | undefined;
  const calls = new Set<string>();
  const results = new Map<string, number>();
  const callIds = new Map<string, string>();
  let stateSeen = false;
  events.forEach((e, i) => {
    if (e.replyId !== first.replyId) fail(`event ${e.type} has replyId ${e.replyId}, expected ${first.replyId}`, i);
    if (e.type === 'REPLY_START' && i !== 0) fail('second REPLY_START', i);
    if (e.type === 'REPLY_END' && i !== events.length - 1) fail('REPLY_END before the last event', i);
    if (e.type === 'MODEL_CALL_START') {
      if (modelOpen) fail('MODEL_CALL_START inside another model call', i);
      modelOpen = new Set();
      return;
    }
    if (e.type === 'MODEL_CALL_END') {
      if (!modelOpen) fail('MODEL_CALL_END without MODEL_CALL_START', i);
      for (const id of modelOpen!) if (open.has(id)) fail(`block ${id} still open at MODEL_CALL_END`, i);
      modelOpen = undefined;
      return;
    }
    if (e.type === 'STATE_SNAPSHOT') stateSeen = true;
    if (e.type === 'STATE_DELTA' && !stateSeen) fail('STATE_DELTA before any STATE_SNAPSHOT of the reply', i);
    if (!('blockId' in e)) return;
    if ((e.type === 'TOOL_CALL_DELTA' || e.type === 'TOOL_CALL_END') && callIds.get(e.blockId) !== e.toolCallId)
      fail(`${e.type} of block ${e.blockId} carries toolCallId ${e.toolCallId}, not its TOOL_CALL_START's`, i);
    if (e.type === 'TOOL_PROGRESS') {
      if (open.get(e.blockId) !== 'TOOL_RESULT')
        fail(`TOOL_PROGRESS for block ${e.blockId} that is not an open tool result`, i);
      return;
    }
    const kind = e.type.replace(/_(START|DELTA|END)$/, '');
    if (e.type.endsWith('_START')) {
      if (open.has(e.blockId)) fail(`block ${e.blockId} opened twice`, i);
      open.set(e.blockId, kind);
      modelOpen?.add(e.blockId);
      if (e.type === 'TOOL_CALL_START') {
        calls.add(e.toolCallId);
        callIds.set(e.blockId, e.toolCallId);
      }
      if (e.type === 'TOOL_RESULT_START') results.set(e.toolCallId, (results.get(e.toolCallId) ?? 0) + 1);
    } else if (e.type.endsWith('_DELTA')) {
      if (open.get(e.blockId) !== kind) fail(`${e.type} for block ${e.blockId} that is not an open ${kind} block`, i);
    } else if (e.type.endsWith('_END')) {
      if (open.get(e.blockId) !== kind) {
        if (e.type === 'TOOL_RESULT_END' && !open.has(e.blockId)) {
          results.set(e.toolCallId, (results.get(e.toolCallId) ?? 0) + 1);
          return;
        }
        fail(`${e.type} for block ${e.blockId} that is not an open ${kind} block`, i);
      }
      open.delete(e.blockId);
    }
  });
  if (open.size) fail(`blocks never closed: ${[...open].map(([id, k]) => `${k}:${id}`).join(', ')}`);
  if (modelOpen) fail('MODEL_CALL_START without MODEL_CALL_END');
  for (const id of calls) {
    const n = results.get(id) ?? 0;
    // A suspended reply (and one a shutdown saved) keeps calls without a result for its resume.
    const reason = end.finishReason;
    const suspended =
      reason === 'awaiting_confirmation' || reason === 'awaiting_external_execution' || reason === 'shutdown';
    if (suspended ? n > 1 : n !== 1)
      fail(`tool call ${id} has ${n} results, expected ${suspended ? 'at most 1' : '1'}`);
  }
  // Replies of other agents forwarded through this one (agents used as tools) obey the same grammar.
  const nested = new Map<string, AgentEvent[]>();
  for (const e of all) {
    if (e.source === source) continue;
    const key = `${e.source} (reply ${e.replyId})`;
    const group = nested.get(key);
    if (group) group.push(e);
    else nested.set(key, [e]);
  }
  for (const [key, group] of nested) {
    try {
      assertReplyGrammar(group);
    } catch (err) {
      fail(`in the nested reply of ${key}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
  return end;
}

/**
 * Checks that a conversation holds no tool call without its result and no result twice.
 *
 * @example
 * ```ts
 * assertConsistentConversation(agent.context);
 * ```
 */
export function assertConsistentConversation(messages: readonly Msg[]): void {
  const missing = unansweredToolCalls(messages);
  if (missing.length) throw new Error(`Conversation holds tool calls without results: ${missing.join(', ')}`);
  const seen = new Set<string>();
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue;
      if (seen.has(b.toolCallId)) throw new Error(`Tool call ${b.toolCallId} has two results`);
      seen.add(b.toolCallId);
    }
  }
}

function summarise(events: readonly AgentEvent[]): string {
  return events
    .slice(0, 80)
    .map((e, i) => `  #${i} ${e.type}${'blockId' in e ? ` ${e.blockId}` : ''}`)
    .join('\n');
}
