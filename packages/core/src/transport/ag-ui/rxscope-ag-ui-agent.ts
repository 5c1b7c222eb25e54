import { AbstractAgent, type AgentConfig } from '@ag-ui/client';
import { EventType, PROTOCOL_VERSION, type AgentCapabilities, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { defer, of, tap, type Observable } from 'rxjs';
import type { AgentEvent } from '../../event/events.js';
import { assertSessionOwner, checkUserId } from '../../agent/user-identity.js';
import type { Agent, ReplyInput } from '../../agent/agent.js';
import { externalTool } from '../../tool/external-tool.js';
import type { Tool } from '../../tool/tool.js';
import { AgUiHistoryDivergedError } from './ag-ui-history.js';
import {
  AgUiInterruptPendingError,
  AgUiToolNameClashError,
  replyInputOf,
  sharedStateOf,
  type AgUiHistoryMode,
} from './ag-ui-run-input.js';
import { toAgUiEvents } from './to-ag-ui-events.js';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';

/** Options of {@link RxscopeAgUiAgent}. */
export interface RxscopeAgUiAgentOptions extends AgentConfig {
  /** The rxscope agent that runs, or a factory called with the AG-UI thread id (one agent per thread). */
  readonly agent: Agent | ((threadId: string) => Agent);
  /** How the run's `messages` reach the agent (see {@link AgUiHistoryMode}). Default `'seed'`. */
  readonly history?: AgUiHistoryMode;
}

// Every option, typed against RxscopeAgUiAgentOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<RxscopeAgUiAgentOptions>({
  agent: true,
  history: true,
  agentId: true,
  description: true,
  threadId: true,
  initialMessages: true,
  initialState: true,
  debug: true,
});

/**
 * An AG-UI agent (`AbstractAgent` of `@ag-ui/client`) that runs an rxscope {@link Agent}, so AG-UI
 * frontends and their `runAgent()` machinery work unchanged. Each run sends the rxscope agent
 * what is new at the end of the AG-UI messages:
 *
 * - user messages → a new reply (text and media parts; the input's `context` as a grounding hint;
 *   the agent first receives the earlier AG-UI messages it does not hold, e.g. all of them on a
 *   new thread);
 * - `resume` entries (answers to the interrupts of a run that ended `awaiting_confirmation`) →
 *   `USER_CONFIRM_RESULT`: a call runs only on `status: 'resolved'` with `payload: {approved: true}`
 *   (`payload.editedArgs` replaces its arguments); `{approved: false}` or `status: 'cancelled'`
 *   denies it (see {@link confirmResultsOf});
 * - tool messages answering calls the reply left to the client (`awaiting_external_execution`,
 *   AG-UI frontend tools) → `EXTERNAL_EXECUTION_RESULT`.
 *
 * Regenerate and edit: a run whose thread is cut short, or has a user message edited, rewinds
 * the agent's conversation to what both hold and answers from there (files too, with workspace
 * snapshots); one whose history claims other tool calls than the session's is a `RUN_ERROR`
 * (`code: 'history_diverged'`) saying where the two differ, and nothing runs (see {@link AgUiHistoryMode}).
 * A new message while interrupts are open does not touch them: the run is a `RUN_ERROR`
 * (`code: 'interrupt_pending'`) that says which calls wait. A non-empty `state` replaces the
 * session's shared state (`ctx.sharedState`), an empty one keeps it; every run starts with a
 * `STATE_SNAPSHOT` of the state it runs with. Events are mapped by {@link toAgUiEvents}. `abortRun()` interrupts
 * the reply gracefully (the run finishes `cancelled`); detaching or unsubscribing cancels it
 * down to the model request.
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
  private readonly history: AgUiHistoryMode;

  constructor(options: RxscopeAgUiAgentOptions) {
    checkOptionKeys('RxscopeAgUiAgent', options, OPTION_KEYS);
    const { agent, history, ...config } = options;
    super(config);
    this.agentOption = agent;
    this.history = history ?? 'seed';
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

  /**
   * Runs one AG-UI run. `userId`: the user it acts for (`ctx.userId`); a thread owned by another
   * user is refused with a `SessionForbiddenError` before anything of it is read. `observe` sees
   * each rxscope event of the reply before it is mapped (`createAgUiHandler` appends them to its
   * `bus` with it, for clients that reconnect).
   */
  override run(input: RunAgentInput, userId?: string, observe?: (event: AgentEvent) => void): Observable<BaseEvent> {
    return defer(() => {
      const agent = this.agentFor(input.threadId);
      assertSessionOwner(agent.saveState().owner, input.threadId, checkUserId(userId, 'AG-UI run'));
      let reply: ReplyInput;
      let frontendTools: Tool[];
      try {
        frontendTools = frontendToolsOf(input, agent);
        reply = replyInputOf(input, agent, this.history); // may rewind the agent: refusals come first
      } catch (error) {
        if (!(
          error instanceof AgUiInterruptPendingError ||
          error instanceof AgUiHistoryDivergedError ||
          error instanceof AgUiToolNameClashError
        ))
          throw error;
        return of<BaseEvent[]>({
          type: EventType.RUN_ERROR,
          message: error.message,
          code: error.code,
          timestamp: Date.now(),
        } as BaseEvent);
      }
      const options = {
        threadId: input.threadId,
        runId: input.runId,
        source: agent.name,
        messages: input.messages,
        state: input.state as unknown,
        tools: agent.tools,
      };
      const replyOptions = {
        ...(frontendTools.length ? { tools: frontendTools } : {}),
        ...(userId ? { userId } : {}),
        sharedState: sharedStateOf(input),
      };
      const reply$ = agent.reply(reply, replyOptions);
      return (observe ? reply$.pipe(tap(observe)) : reply$).pipe(toAgUiEvents(options));
    });
  }

  override abortRun(): void {
    for (const agent of typeof this.agentOption === 'function' ? this.agents.values() : [this.agentOption])
      agent.interrupt('aborted by the AG-UI client');
    super.abortRun();
  }

  /**
   * What this agent supports, for clients that adapt their UI (AG-UI capability discovery):
   * streaming, tool-call interrupts with approve-with-edits, reasoning, subagents, and — for a
   * single agent — its tools.
   */
  override getCapabilities(): Promise<AgentCapabilities> {
    const single = typeof this.agentOption === 'function' ? undefined : this.agentOption;
    return Promise.resolve({
      identity: {
        type: 'rxscope',
        ...(single ? { name: single.name } : {}),
        metadata: { protocolVersion: PROTOCOL_VERSION },
      },
      transport: { streaming: true },
      tools: {
        supported: true,
        parallelCalls: true,
        clientProvided: false,
        ...(single
          ? {
              items: single.tools.map((t) => ({
                name: t.name,
                description: t.description,
                parameters: t.schema.parameters,
              })),
            }
          : {}),
      },
      humanInTheLoop: { supported: true, approvals: true, interrupts: true, approveWithEdits: true },
      reasoning: { supported: true, streaming: true },
      multiAgent: { supported: true, delegation: true },
      state: { snapshots: true, deltas: true, memory: true },
      multimodal: { input: { image: true, audio: true, pdf: true } },
    });
  }
}

/**
 * The run's frontend tools as external tools of this reply: the model may call them, and such a
 * call ends the run with `pendingToolCallIds` for the client to run it. A frontend tool named
 * like one of the agent's own tools is refused (which one would run is ambiguous).
 */
function frontendToolsOf(input: RunAgentInput, agent: Agent): Tool[] {
  const own = new Set(agent.tools.map((t) => t.name));
  return (input.tools ?? []).map((t) => {
    if (own.has(t.name)) {
      throw new AgUiToolNameClashError(
        `The frontend tool "${t.name}" has the name of one of the agent's own tools; rename it in the client (nothing ran).`,
      );
    }
    return externalTool({
      name: t.name,
      description: t.description,
      parameters: (t.parameters ?? {}) as Record<string, unknown>,
    });
  });
}
