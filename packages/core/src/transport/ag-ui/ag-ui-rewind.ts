import type { Message } from '@ag-ui/core';
import type { Agent } from '../../agent/agent.js';
import type { Msg } from '../../message/blocks.js';
import { anchorsOfMessage, anchorsOfMsg, reconcileHistory } from './ag-ui-history.js';

/**
 * The client's history with the server's conversation made to agree by a rewind, for the two
 * edits AG-UI frontends make (CopilotKit's "regenerate" and "edit"): the client sends the thread
 * cut short, or with a user message changed, and then what is new. The conversation is rewound
 * to the last message both hold — before the first server message the client lacks or whose user
 * message it changed or replaced — and the reply continues from the client's messages there.
 * A client whose history ends with a user message the server holds, with nothing new after it,
 * regenerates the answer to it: rewound to before that message, which is sent again.
 * A history that claims other tool calls than the session's is not an edit: it is refused
 * ({@link reconcileHistory}). Returns the index of the first client message the agent does not hold.
 */
export function reconcileByRewind(history: readonly Message[], agent: Agent): number {
  const conversation = conversationOf(agent);
  const at = firstEditedMessage(history, conversation);
  if (at !== undefined) rewindBefore(agent, at);
  const from = reconcileHistory(history, conversationOf(agent));
  const last = history.at(-1);
  if (from < history.length || last?.role !== 'user') return from;
  // Everything is held: regenerate the answer to the client's last user message.
  const held = conversationOf(agent).findIndex((m) => m.role === 'user' && m.id === last.id);
  if (held < 0) return from;
  rewindBefore(agent, held);
  return reconcileHistory(history, conversationOf(agent));
}

function conversationOf(agent: Agent): readonly Msg[] {
  return agent.pending ? [...agent.context, agent.pending.message] : agent.context;
}

function rewindBefore(agent: Agent, index: number): void {
  const context = agent.context;
  // The message of a suspended reply is not in the context: keeping everything before it drops the reply.
  if (index >= context.length) agent.rewind({ to: context.at(-1)!.id });
  else agent.rewind({ before: context[index]!.id });
}

/**
 * The index of the first server message the client edited: one the client's history lacks (cut
 * short), or a user message it changed or replaced by a new one. `undefined` when the client
 * holds the whole conversation, or differs in a way that is not an edit (other tool calls).
 */
function firstEditedMessage(history: readonly Message[], conversation: readonly Msg[]): number | undefined {
  const server = conversation.flatMap((m, index) => anchorsOfMsg(m).map((anchor) => ({ anchor, index })));
  const client = history.flatMap(anchorsOfMessage);
  for (let i = 0; i < server.length; i++) {
    const theirs = server[i]!;
    const ours = client[i];
    if (!ours) return theirs.index;
    if (ours.kind === 'user' && theirs.anchor.kind === 'user') {
      if (ours.text === theirs.anchor.text) continue; // the same message (ids differ for messages the server created)
      return theirs.index;
    }
    if (ours.kind === 'call' && theirs.anchor.kind === 'call' && ours.id === theirs.anchor.id) continue;
    // A new user message where the session has the agent's turn: that turn was removed (regenerate, then a new message).
    return ours.kind === 'user' ? theirs.index : undefined;
  }
  return undefined;
}
