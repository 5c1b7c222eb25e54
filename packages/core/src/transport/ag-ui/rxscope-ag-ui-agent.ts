import { AbstractAgent, type AgentConfig } from '@ag-ui/client';
import type { BaseEvent, Message, RunAgentInput } from '@ag-ui/core';
import { defer, type Observable } from 'rxjs';
import type { Agent, ReplyInput } from '../../agent/agent.js';
import { AgentUsageError } from '../../agent/errors.js';
import type { ExternalResult } from '../../event/events.js';
import type { Msg } from '../../message/blocks.js';
import { createMsg } from '../../message/msg.js';
import { confirmResultsOf } from './confirm-results-of.js';
import { toAgUiEvents } from './to-ag-ui-events.js';

/** Options of {@link RxscopeAgUiAgent}. */
export interface RxscopeAgUiAgentOptions extends AgentConfig {
  /** The rxscope agent that runs, or a factory called with the AG-UI thread id (one agent per thread). */
  readonly agent: Agent | ((threadId: string) => Agent);
}

/**
 * An AG-UI agent (`AbstractAgent` of `@ag-ui/client`) that runs an rxscope {@link Agent}, so AG-UI
 * frontends and their `runAgent()` machinery work unchanged. The rxscope agent keeps the
 * conversation; each run sends it what is new at the end of the AG-UI messages:
 *
 * - user messages → a new reply;
 * - `resume` entries (answers to the interrupts of a run that ended `awaiting_confirmation`) →
 *   `USER_CONFIRM_RESULT`: a call runs only on `status: 'resolved'` with `payload: {approved: true}`
 *   (`payload.editedArgs` replaces its arguments); `{approved: false}` or `status: 'cancelled'`
 *   denies it (see {@link confirmResultsOf});
 * - tool messages answering calls the reply left to the client (`awaiting_external_execution`,
 *   AG-UI frontend tools) → `EXTERNAL_EXECUTION_RESULT`.
 *
 * Events are mapped by {@link toAgUiEvents}. `abortRun()` interrupts the reply gracefully (the run
 * finishes `cancelled`); detaching or unsubscribing cancels it down to the model request.
 *
 * @example
 * ```ts
 * const agUi = new RxscopeAgUiAgent({ agent: new Agent({ model, tools }) });
 * agUi.addMessage({ id: 'u1', role: 'user', content: 'Hello' });
 * const { newMessages } = await agUi.runAgent();
 * ```
 */
export class RxscopeAgUiAgent extends AbstractAgent {
  private readonly agents = new Map<string, Agent>();
  private readonly agentOption: Agent | ((threadId: string) => Agent);

  constructor(options: RxscopeAgUiAgentOptions) {
    const { agent, ...config } = options;
    super(config);
    this.agentOption = agent;
  }

  /** The rxscope agent of a thread. */
  agentFor(threadId: string): Agent {
    if (typeof this.agentOption !== 'function') return this.agentOption;
    let agent = this.agents.get(threadId);
    if (!agent) {
      agent = this.agentOption(threadId);
      this.agents.set(threadId, agent);
    }
    return agent;
  }

  override run(input: RunAgentInput): Observable<BaseEvent> {
    return defer(() => {
      const agent = this.agentFor(input.threadId);
      return agent.reply(replyInputOf(input, agent)).pipe(toAgUiEvents({ threadId: input.threadId, runId: input.runId, source: agent.name }));
    });
  }

  override abortRun(): void {
    for (const agent of typeof this.agentOption === 'function' ? this.agents.values() : [this.agentOption]) agent.interrupt('aborted by the AG-UI client');
    super.abortRun();
  }
}

/** What the rxscope agent should receive for this AG-UI run. */
function replyInputOf(input: RunAgentInput, agent: Agent): ReplyInput {
  const pending = agent.pending;
  if (input.resume?.length) return { type: 'USER_CONFIRM_RESULT', results: confirmResultsOf(input.resume) };
  const tail = trailing(input.messages, (m) => m.role === 'tool');
  if (pending?.external.length && tail.length) {
    const results: ExternalResult[] = tail.flatMap((m) =>
      m.role === 'tool' ? [{ toolCallId: m.toolCallId, output: textOf(m.content), ...(m.error ? { isError: true } : {}) }] : [],
    );
    return { type: 'EXTERNAL_EXECUTION_RESULT', results };
  }
  const users = trailing(input.messages, (m) => m.role === 'user');
  if (!users.length) {
    throw new AgentUsageError('An AG-UI run needs a new user message at the end of its messages, resume entries, or tool results for pending calls.');
  }
  const msgs: Msg[] = users.map((m) => createMsg('user', textOf((m as { content: unknown }).content)));
  return msgs.length === 1 ? msgs[0]! : msgs;
}

function trailing(messages: readonly Message[], keep: (m: Message) => boolean): Message[] {
  let i = messages.length;
  while (i > 0 && keep(messages[i - 1]!)) i--;
  return messages.slice(i);
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: { type?: unknown; text?: unknown }) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}
