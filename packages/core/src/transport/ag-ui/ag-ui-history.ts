import type { Message } from '@ag-ui/core';
import { AgentUsageError } from '../../agent/errors.js';
import type { Msg } from '../../message/blocks.js';

/**
 * A run whose `messages` contradict the thread's conversation on the server (an edited or
 * removed message, a history cut short, another tool call): the server's session is
 * authoritative, so nothing runs and the run is a `RUN_ERROR` with `code: 'history_diverged'`
 * whose message says where the two differ.
 *
 * @example
 * ```ts
 * agUi.runAgent().catch(() => undefined); // onRunErrorEvent: ({ event }) => event.code === 'history_diverged' && reloadThread()
 * ```
 */
export class AgUiHistoryDivergedError extends AgentUsageError {
  override readonly code = 'history_diverged';
}

/** What the history of a conversation is checked by: user messages and tool calls, in order. */
export type Anchor =
  | { readonly kind: 'user'; readonly id: string; readonly text: string }
  | { readonly kind: 'call'; readonly id: string; readonly name: string };

/**
 * Checks the client's history (`RunAgentInput.messages` before what is new) against the agent's
 * conversation and returns the index of the first client message the server does not hold
 * (`history.length` when it holds them all; 0 when it holds no conversation). The two agree when the server's user messages
 * (same id, or same text for messages the server created itself) and tool calls (same id) come
 * in the client's history in the same order; assistant text, reasoning and tool results are not
 * compared (the client splits a reply into several messages). What follows the last message the
 * server holds is the client's own (appended by the caller). Throws
 * {@link AgUiHistoryDivergedError} when the client's history contradicts the server's or lacks
 * part of it.
 */
export function reconcileHistory(history: readonly Message[], conversation: readonly Msg[]): number {
  const server = conversation.flatMap(anchorsOfMsg);
  if (!server.length) return 0; // a new thread for the server: all the client's history is to be given
  const client = history.flatMap((m, index) => anchorsOfMessage(m).map((anchor) => ({ anchor, index })));
  for (let i = 0; i < server.length; i++) {
    const theirs = server[i]!;
    const ours = client[i]?.anchor;
    if (!ours) {
      throw diverged(
        `the client's history ends before the session's: it lacks ${server.length - i} of its user message(s) and tool call(s), from ${describe(theirs)} on (a message removed or a history cut short, e.g. to regenerate an answer)`,
      );
    }
    if (ours.kind === 'user' && theirs.kind === 'user') {
      if (ours.id === theirs.id && ours.text !== theirs.text) {
        throw diverged(
          `user message "${ours.id}" was changed: the client has ${quote(ours.text)}, the session ${quote(theirs.text)}`,
        );
      }
      if (ours.id === theirs.id || ours.text === theirs.text) continue;
    } else if (ours.kind === 'call' && theirs.kind === 'call' && ours.id === theirs.id) continue;
    throw diverged(`where the session has ${describe(theirs)}, the client has ${describe(ours)}`);
  }
  return client[server.length]?.index ?? history.length;
}

function diverged(why: string): AgUiHistoryDivergedError {
  return new AgUiHistoryDivergedError(
    `The thread's messages differ from the conversation the server holds for it, which is authoritative: ${why}. ` +
      'Nothing was run. Send the thread with the messages the server gave it (plus new ones at the end), or start a new thread.',
  );
}

/** The anchors of a server message: its user text, or its tool calls. */
export function anchorsOfMsg(msg: Msg): Anchor[] {
  if (msg.role === 'user') {
    return [{ kind: 'user', id: msg.id, text: msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('') }];
  }
  if (msg.role !== 'assistant') return [];
  return msg.content.flatMap((b): Anchor[] =>
    b.type === 'tool_call' ? [{ kind: 'call', id: b.id, name: b.name }] : [],
  );
}

/** The anchors of a client message. */
export function anchorsOfMessage(m: Message): Anchor[] {
  if ((m as { subagentRunId?: unknown }).subagentRunId) return []; // a subagent's turns are not this agent's conversation
  if (m.role === 'user') return [{ kind: 'user', id: m.id, text: textOf(m.content) }];
  if (m.role === 'assistant')
    return (m.toolCalls ?? []).map((c) => ({ kind: 'call', id: c.id, name: c.function.name }));
  return [];
}

/** The text parts of an AG-UI message's content, joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p: { type?: unknown; text?: unknown }) => (p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
      .join('');
  return '';
}

function describe(a: Anchor): string {
  return a.kind === 'user' ? `user message "${a.id}" (${quote(a.text)})` : `tool call "${a.id}" (${a.name})`;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}
