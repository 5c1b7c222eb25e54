import type { Observable, ObservableInput } from 'rxjs';
import type { AgentEvent, ExternalExecutionResultEvent, UserConfirmResultEvent } from '../event/events.js';
import type { Msg, ToolCallBlock } from '../message/blocks.js';
import type { ChatModel, ModelOptions, ModelRequest, ResponseFormat, ToolChoice } from '../model/chat-model.js';
import type { PermissionDecision } from '../permission/engine.js';
import type { Tool } from '../tool/tool.js';
import type { ToolAnswer } from '../tool/tool-question.js';
import type { AgentHandle } from './agent-handle.js';
import type { RuntimeContext } from './context.js';

/**
 * The rest of the chain: call it with the (possibly replaced) input to run the inner layers.
 * It may be called several times (retry, fallback, fan-out); not calling it short-circuits.
 */
export type Next<I, O = AgentEvent> = (input: I) => Observable<O>;

/**
 * `AgentInput.resume` of a reply continued after a shutdown (`agent.reply({type: 'RESUME_REPLY'})`).
 *
 * @example
 * ```ts
 * if (input.resume?.type === 'RESUME_REPLY') log(`reply ${input.resume.replyId} continues after a restart`);
 * ```
 */
export interface ShutdownResume {
  readonly type: 'RESUME_REPLY';
  /** The reply that continues (its `replyId` is kept). */
  readonly replyId: string;
}

/** Input of `onAgent`: one whole reply. */
export interface AgentInput {
  /** The new messages of this reply (empty when resuming a suspended reply). */
  readonly messages: readonly Msg[];
  /** The resume event, when this reply continues a suspended one (`RESUME_REPLY`: suspended by a shutdown). */
  readonly resume?: UserConfirmResultEvent | ExternalExecutionResultEvent | ShutdownResume;
}

/** Input of `onReasoning`: one reasoning step (assemble input, call the model, decode). */
export interface ReasoningInput {
  /** The conversation the model will see, without the system prompt (the reply so far last). */
  readonly messages: readonly Msg[];
  readonly tools: readonly Tool[];
  readonly toolChoice: ToolChoice;
  readonly options: ModelOptions;
  readonly model: ChatModel;
  /** Structured output asked natively (a reply with `output` on a model that supports it). */
  readonly responseFormat?: ResponseFormat;
}

/** Input of `onActing`: the execution of ONE validated, permitted tool call. */
export interface ActingInput {
  readonly toolCall: ToolCallBlock;
  readonly tool: Tool;
  /** The validated arguments (what `execute` receives). */
  readonly input: unknown;
  /** A person's answer to the question the call's last run asked (`toolCtx.answer`). */
  readonly answer?: ToolAnswer;
}

/**
 * Input of `onCheckPermission`: the permission decision for ONE validated tool call, made by the
 * rules, the mode and the tool's own check (`decision`). The innermost `next` answers
 * `input.decision`; pass another to `next`, or answer without calling it, to change it.
 */
export interface PermissionCheckInput {
  readonly toolCall: ToolCallBlock;
  readonly tool: Tool;
  /** The validated arguments (what `execute` would receive). */
  readonly input: unknown;
  /** What the engine decided (deny rules, ask rules, read-only, mode, the tool's check, allow rules). */
  readonly decision: PermissionDecision;
}

/** Input of `onModelCall`: one call of one model (once per attempt). */
export interface ModelCallInput extends ModelRequest {
  /** The model to call; a fallback middleware passes another one to `next`. */
  readonly model: ChatModel;
  /**
   * Which call of the model this is within the reasoning step: 1 for the first; a layer that
   * calls `next` again (retry, fallback) passes the next number. Absent means 1.
   */
  readonly attempt?: number;
}

/**
 * A middleware: optional hooks around each phase of the agent loop. Instances are stateless
 * and may be shared by many agents; per-reply data lives in the context.
 *
 * @example
 * ```ts
 * const timing: Middleware = {
 *   key: 'timing',
 *   onModelCall: (agent, ctx, input, next) => defer(() => {
 *     const t0 = performance.now();
 *     return next(input).pipe(finalize(() => console.log(`${input.model.modelName}: ${performance.now() - t0} ms`)));
 *   }),
 * };
 * ```
 */
export interface Middleware {
  /**
   * The name this middleware's persisted state lives under (`ctx.state(key)`), unique within an
   * agent: the agent refuses two middlewares with one key. Declare it when the middleware
   * persists state (class names change under minification); optional otherwise.
   */
  readonly key?: string;
  onAgent?(agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent>;
  onReasoning?(
    agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent>;
  onActing?(
    agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent>;
  onModelCall?(
    agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent>;
  /**
   * Wraps the permission decision of one tool call (after validation, before it runs or is
   * asked about): allow, deny, turn an `ask` into an `allow` (per tenant: `ctx.userId`), route
   * an `ask` to another approver and answer with theirs, or audit every decision. Emits the
   * decision (the first value counts). A layer that throws or errors answers the call with an
   * error result. Not run for a call a person already confirmed.
   */
  onCheckPermission?(
    agent: AgentHandle,
    ctx: RuntimeContext,
    input: PermissionCheckInput,
    next: Next<PermissionCheckInput, PermissionDecision>,
  ): Observable<PermissionDecision>;
  /** Transforms the system prompt; applied in order, once per reasoning step. */
  onSystemPrompt?(agent: AgentHandle, ctx: RuntimeContext, prompt: string): ObservableInput<string> | string;
  /**
   * Tools this middleware contributes. The agent reads them again at each reasoning and acting
   * step, so a middleware may change them (return a new array) and existing agents offer the
   * new set at their next model request. Return the same tool objects while nothing changed.
   */
  tools?(): readonly Tool[];
  /**
   * Called once when an agent using this middleware is shut down (`agent.shutdown()`), after its
   * running reply ended: release what the middleware holds open (connections, processes).
   * `shutdown()` resolves after it settles; a failure goes to the agent's `onBackgroundError`.
   * A middleware shared by several agents is told once per agent.
   */
  onShutdown?(agent: AgentHandle): Promise<void> | void;
  /**
   * Called when the conversation is cut at a message (`agent.fork()`, `agent.rewind()`,
   * `sessions.fork()`): returns this middleware's persisted state (the value under its `key` in
   * the agent state) as it should be for the cut conversation, e.g. the workspace as it was at
   * the last message kept; `undefined` removes it. Without this hook the state is kept as it is.
   * Pure and synchronous: the effect (restoring files) happens at the next reply.
   */
  onConversationCut?(state: unknown, cut: ConversationCut): unknown;
}

/**
 * Where a conversation is cut (see `Middleware.onConversationCut`): the messages kept, those
 * dropped, and whether the cut makes a new session (`'fork'`) or changes this one (`'rewind'`).
 *
 * @example
 * ```ts
 * onConversationCut: (state, cut) => (cut.dropped.length ? { ...(state as object), notes: [] } : state),
 * ```
 */
export interface ConversationCut {
  /** `'fork'`: the state of a new agent; `'rewind'`: this agent's. */
  readonly kind: 'fork' | 'rewind';
  /** The messages kept, oldest first. */
  readonly kept: readonly Msg[];
  /** The messages dropped (those after the cut). */
  readonly dropped: readonly Msg[];
}

/**
 * A name for a middleware in logs and errors: its `key`, else its class name (`'middleware'` for
 * an object literal). Not a state key unless declared: class names change under minification.
 *
 * @example
 * ```ts
 * middlewareKey(new ReplyBudgetMiddleware({ tokenBudget: 1000 })); // 'ReplyBudgetMiddleware'
 * ```
 */
export function middlewareKey(middleware: Middleware): string {
  if (middleware.key) return middleware.key;
  const ctorName = (middleware as { constructor?: { name?: string } }).constructor?.name;
  return ctorName && ctorName !== 'Object' ? ctorName : 'middleware';
}
