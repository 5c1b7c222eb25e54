import type { Context, Message, RunAgentInput } from '@ag-ui/core';
import type { JsonObject } from '../../util/json-patch.js';
import type { Agent, ReplyInput } from '../../agent/agent.js';
import { AgentUsageError } from '../../agent/errors.js';
import type { ExternalResult } from '../../event/events.js';
import type { ContentBlock, Msg, ToolResultBlock } from '../../message/blocks.js';
import { createMsg } from '../../message/msg.js';
import { confirmResultsOf } from './confirm-results-of.js';
import { reconcileHistory, textOf } from './ag-ui-history.js';
import { reconcileByRewind } from './ag-ui-rewind.js';

/**
 * How a run's `messages` reach the rxscope agent. `'seed'` (default): the client's history is
 * checked against the agent's conversation — messages the client holds beyond it (a new thread,
 * a server restarted without a store) are given to the agent before the new message; a thread
 * cut short or with a user message edited (a frontend's "regenerate" and "edit") rewinds the
 * conversation to what both hold (`agent.rewind()`) and continues from the client's messages
 * there; a history that claims other tool calls than the session's refuses the run with
 * `RUN_ERROR {code: 'history_diverged'}` ({@link AgUiHistoryDivergedError}).
 * `'agent'`: only the new messages, unchecked — for agents whose conversation is loaded from a
 * `SessionStore` when the reply starts (the agent does not hold it before).
 *
 * @example
 * ```ts
 * new RxscopeAgUiAgent({ agent: (threadId) => new Agent({ model, store, sessionId: threadId }), history: 'agent' });
 * ```
 */
export type AgUiHistoryMode = 'seed' | 'agent';

/**
 * A frontend tool (`RunAgentInput.tools`) named like one of the agent's own tools: the run is a
 * `RUN_ERROR {code: 'tool_name_clash'}` and nothing runs.
 *
 * @example
 * ```ts
 * agUi.runAgent({ tools }, { onRunErrorEvent: ({ event }) => event.code === 'tool_name_clash' && console.error(event.message) });
 * ```
 */
export class AgUiToolNameClashError extends AgentUsageError {
  override readonly code = 'tool_name_clash';
}

/** An input the agent cannot take while it waits for answers to interrupts. */
export class AgUiInterruptPendingError extends AgentUsageError {
  override readonly code = 'interrupt_pending';
}

/**
 * What the rxscope agent receives for an AG-UI run: `resume` entries answer its tool-call
 * interrupts; tool messages answer calls left to the client; otherwise the trailing user
 * messages start a reply (after the client's messages the agent does not hold yet, and with the
 * input's `context` as grounding). The client's history is checked against the agent's
 * conversation first (mode `'seed'`). Refusals throw {@link AgentUsageError} before anything runs.
 */
/**
 * The client's `state` folded into the reply: a non-empty object replaces the session's shared
 * state; an empty or missing one (what a client that has no state sends) keeps the session's.
 * Either way the run starts with a `STATE_SNAPSHOT` of the state it runs with.
 */
export function sharedStateOf(input: RunAgentInput): (current: JsonObject) => JsonObject {
  const client = input.state as JsonObject | null | undefined;
  return (current) => (client && Object.keys(client).length ? client : current);
}

export function replyInputOf(input: RunAgentInput, agent: Agent, mode: AgUiHistoryMode): ReplyInput {
  if (
    input.state !== undefined &&
    input.state !== null &&
    (typeof input.state !== 'object' || Array.isArray(input.state))
  ) {
    throw new AgentUsageError(
      `RunAgentInput.state is the shared state, a JSON object; got ${Array.isArray(input.state) ? 'an array' : `a ${typeof input.state}`}.`,
    );
  }
  const pending = agent.pending;
  const conversation = pending ? [...agent.context, pending.message] : agent.context;
  // Refuses a history that contradicts the agent's conversation.
  const check = (history: readonly Message[]) =>
    mode === 'seed' ? reconcileHistory(history, conversation) : history.length;
  if (input.resume?.length) {
    check(input.messages);
    return { type: 'USER_CONFIRM_RESULT', results: confirmResultsOf(input.resume) };
  }
  if (pending?.confirm.length) {
    throw new AgUiInterruptPendingError(
      `The thread has open interrupts for tool call(s) ${pending.confirm.map((c) => `${c.id} (${c.name})`).join(', ')}; ` +
        'answer them with resume entries ({interruptId, status: "resolved", payload: {approved}} or status "cancelled") before sending a new message. Nothing was run.',
    );
  }
  const tail = trailing(input.messages, (m) => m.role === 'tool');
  if (pending?.external.length && tail.length) {
    check(input.messages.slice(0, input.messages.length - tail.length));
    const results: ExternalResult[] = tail.flatMap((m) =>
      m.role === 'tool'
        ? [{ toolCallId: m.toolCallId, output: textOf(m.content), ...(m.error ? { isError: true } : {}) }]
        : [],
    );
    return { type: 'EXTERNAL_EXECUTION_RESULT', results };
  }
  const users = trailing(input.messages, (m) => m.role === 'user');
  if (!users.length) {
    throw new AgentUsageError(
      'An AG-UI run needs a new user message at the end of its messages, resume entries, or tool results for pending calls.',
    );
  }
  // The trailing user messages are new unless the agent holds them already (a run sent twice).
  const start = input.messages.length - users.length;
  // An edited or regenerated thread rewinds the conversation to what both hold.
  const from = mode === 'seed' ? reconcileByRewind(input.messages, agent) : start;
  if (from >= input.messages.length) {
    throw new AgentUsageError(
      "Every message of this AG-UI run is already in the thread's conversation: there is no new user message to answer.",
    );
  }
  const fresh = input.messages
    .slice(Math.max(from, start))
    .map((m) => createMsg('user', blocksOf(m.content), { id: m.id }));
  const grounding = contextHint(input.context);
  if (grounding) fresh[fresh.length - 1] = { ...fresh.at(-1)!, content: [...fresh.at(-1)!.content, grounding] };
  const earlier = historyOf(input.messages.slice(from, Math.max(from, start)));
  const msgs = [...earlier, ...fresh];
  return msgs.length === 1 ? msgs[0]! : msgs;
}

/** The AG-UI history as rxscope messages: user turns, assistant turns with their tool calls and results. */
function historyOf(messages: readonly Message[]): Msg[] {
  const out: Msg[] = [];
  let assistant: { id: string; blocks: ContentBlock[]; names: Map<string, string> } | undefined;
  const flush = () => {
    if (assistant) out.push(createMsg('assistant', assistant.blocks, { id: assistant.id }));
    assistant = undefined;
  };
  for (const m of messages) {
    if ((m as { subagentRunId?: unknown }).subagentRunId) continue; // a subagent's own turns are not this agent's conversation
    if (m.role === 'user') {
      flush();
      out.push(createMsg('user', blocksOf(m.content), { id: m.id }));
    } else if (m.role === 'assistant') {
      flush();
      const blocks: ContentBlock[] = [];
      if (typeof m.content === 'string' && m.content) blocks.push({ type: 'text', text: m.content });
      const names = new Map<string, string>();
      for (const call of m.toolCalls ?? []) {
        names.set(call.id, call.function.name);
        blocks.push({ type: 'tool_call', id: call.id, name: call.function.name, arguments: call.function.arguments });
      }
      assistant = { id: m.id, blocks, names };
    } else if (m.role === 'tool' && assistant?.names.has(m.toolCallId)) {
      const result: ToolResultBlock = {
        type: 'tool_result',
        toolCallId: m.toolCallId,
        name: assistant.names.get(m.toolCallId)!,
        status: m.error ? 'error' : 'success',
        output: [{ type: 'text', text: m.error ?? textOf(m.content) }],
      };
      assistant.blocks.push(result);
    }
    // system/developer (the agent has its own system prompt), reasoning and activity messages are not replayed
  }
  flush();
  return out;
}

function contextHint(context: readonly Context[] | undefined): ContentBlock | undefined {
  if (!context?.length) return undefined;
  const lines = context.map((c) => `- ${c.description}: ${c.value}`);
  return { type: 'hint', text: `Context from the application:\n${lines.join('\n')}` };
}

function blocksOf(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap(
    (part: {
      type?: unknown;
      text?: unknown;
      source?: { type?: unknown; value?: unknown; mimeType?: unknown };
    }): ContentBlock[] => {
      if (part.type === 'text' && typeof part.text === 'string') return [{ type: 'text', text: part.text }];
      const source = part.source;
      if (!source || typeof source.value !== 'string') return [];
      const mediaType = typeof source.mimeType === 'string' ? source.mimeType : 'application/octet-stream';
      return [
        source.type === 'data'
          ? { type: 'data', mediaType, data: source.value }
          : { type: 'data', mediaType, url: source.value },
      ];
    },
  );
}

function trailing(messages: readonly Message[], keep: (m: Message) => boolean): Message[] {
  let i = messages.length;
  while (i > 0 && keep(messages[i - 1]!)) i--;
  return messages.slice(i);
}
