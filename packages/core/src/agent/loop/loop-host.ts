import type { Observable } from 'rxjs';
import type { ExternalExecutionResultEvent, UserConfirmResultEvent } from '../../event/events.js';
import type { Msg, ToolCallBlock } from '../../message/blocks.js';
import type { Chain } from '../../middleware/chain.js';
import { runPermissionChain, type PermissionChain } from '../../middleware/permission-chain.js';
import type { ActingInput, ModelCallInput, ReasoningInput, ShutdownResume } from '../../middleware/middleware.js';
import type { ChatModel, ModelOptions, ToolChoice } from '../../model/chat-model.js';
import { decidePermission, type PermissionDecision } from '../../permission/engine.js';
import type { PendingReply } from '../../state/snapshot.js';
import type { Tool } from '../../tool/tool.js';
import type { AgentHandle } from '../../middleware/agent-handle.js';
import type { AgentTools } from '../agent-tools.js';
import type { AgentOptions } from '../agent-options.js';
import type { AgentChains } from './chains.js';
import type { ReplyContext } from './reply-context.js';
import type { SessionState } from '../session-state.js';

/** A validated resume: the suspended reply and the answer to its pending calls (none after a shutdown). */
export interface ResumeRequest {
  readonly pending: PendingReply;
  readonly event: UserConfirmResultEvent | ExternalExecutionResultEvent | ShutdownResume;
}

/** The parts of an agent its loop host is built from. */
export interface LoopHostParts {
  readonly agent: AgentHandle;
  readonly options: AgentOptions;
  readonly state: SessionState;
  readonly tools: AgentTools;
  readonly chains: AgentChains;
  readonly maxIters: number;
  systemPrompt(ctx: ReplyContext): string | Observable<string>;
  persist(): Promise<void> | undefined;
  reportError(error: unknown): void;
}

/** One object for every agent without model options: the model adapter describes a request once per options object. */
const NO_OPTIONS: ModelOptions = Object.freeze({});

/**
 * What a reply needs from its agent, resolved once per agent: the composed chains, the tools
 * (read again at each step: a middleware's `tools()` may change), the loop settings, and access
 * to the state the agent keeps between replies.
 *
 * A class, not an object literal with getters: a literal's getters are new closures per agent,
 * which gives every host a hidden class of its own; V8 keeps those reachable through the shared
 * parent's transitions until a full GC, and with them everything the closures hold (the agent,
 * its state, its tools), so each agent's graph was promoted to the old generation and every
 * scavenge in a busy service copied it.
 */
export class LoopHost {
  readonly agent: AgentHandle;
  readonly model: ChatModel;
  readonly reasoningChain: Chain<ReasoningInput>;
  readonly actingChain: Chain<ActingInput>;
  readonly modelCallChain: Chain<ModelCallInput>;
  readonly permissionChain: PermissionChain | undefined;
  readonly maxIters: number;
  readonly toolChoice: ToolChoice;
  readonly resetToolChoice: boolean;
  readonly modelOptions: ModelOptions;
  readonly maxConcurrentTools: number;
  private readonly state: SessionState;

  constructor(private readonly parts: LoopHostParts) {
    const { options, chains } = parts;
    this.agent = parts.agent;
    this.state = parts.state;
    this.model = options.model;
    this.reasoningChain = chains.reasoning;
    this.actingChain = chains.acting;
    this.modelCallChain = chains.modelCall;
    this.permissionChain = chains.permission;
    this.maxIters = parts.maxIters;
    this.toolChoice = options.toolChoice ?? 'auto';
    this.resetToolChoice = options.resetToolChoice ?? true;
    this.modelOptions = options.modelOptions ?? NO_OPTIONS;
    this.maxConcurrentTools = Math.max(1, options.maxConcurrentTools ?? 8);
  }

  get tools(): ReadonlyMap<string, Tool> {
    return this.parts.tools.map;
  }

  get toolList(): readonly Tool[] {
    return this.parts.tools.list;
  }

  /** The system prompt after the `onSystemPrompt` layers: a string when every layer answered synchronously. */
  systemPrompt(ctx: ReplyContext): string | Observable<string> {
    return this.parts.systemPrompt(ctx);
  }

  context(): readonly Msg[] {
    return this.state.context;
  }

  /** Appends messages to the conversation. */
  append(messages: readonly Msg[]): void {
    this.state.append(messages);
  }

  /** Replaces the conversation (an edit through `ctx.conversation`). */
  setContext(messages: readonly Msg[]): void {
    this.state.context = [...messages];
  }

  /** Records (or clears) the suspended reply. */
  setPending(pending: PendingReply | undefined): void {
    this.state.pending = pending;
  }

  /** The messages sent with `agent.send()` since they were last taken, oldest first (the inbox empties). */
  takeSent(): readonly Msg[] {
    return this.state.inbox.take();
  }

  /** True when messages sent with `agent.send()` wait to join the reply. */
  hasSent(): boolean {
    return this.state.inbox.size > 0;
  }

  /**
   * Permission verdict for a validated call: the engine's, through the `onCheckPermission` layers
   * when there are any (synchronous unless a tool's own check is async or layers run).
   */
  decide(
    ctx: ReplyContext,
    call: ToolCallBlock,
    tool: Tool,
    input: unknown,
  ): PermissionDecision | Promise<PermissionDecision> {
    const decision = decidePermission(tool, input, this.state.permissions.state, ctx.userId);
    const chain = this.permissionChain;
    if (!chain) return decision;
    return Promise.resolve(decision).then((d) =>
      runPermissionChain(chain, this.agent, ctx, { toolCall: call, tool, input, decision: d }),
    );
  }

  /** Adds an allow rule for a tool ("always allow" in a confirmation). */
  alwaysAllow(toolName: string): void {
    this.state.permissions.addRule({ behavior: 'allow', tool: toolName });
  }

  /** Saves the state to the session store; `undefined` when there is no store (nothing to wait for). */
  persist(): Promise<void> | undefined {
    return this.parts.persist();
  }

  /** Reports an error that has no stream left to travel on (a save after cancellation). */
  reportError(error: unknown): void {
    this.parts.reportError(error);
  }
}

/** The loop host of an agent: its settings resolved once, its state reached through `state`. */
export function createLoopHost(parts: LoopHostParts): LoopHost {
  return new LoopHost(parts);
}
