import type { ExternalExecutionResultEvent, UserConfirmResultEvent } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import type { Middleware } from '../middleware/middleware.js';
import type { ChatModel, ModelOptions, ToolChoice } from '../model/chat-model.js';
import type { PermissionState } from '../permission/rules.js';
import type { SessionStore } from '../state/session-store.js';
import type { Tool } from '../tool/tool.js';

/**
 * What `reply()` and `call()` accept. Resume events need only `type` and `results` (the agent
 * fills the other fields; a `replyId`, if given, must match the suspended reply).
 *
 * @example
 * ```ts
 * agent.reply('Hello');
 * agent.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 'call_1', confirmed: true }] });
 * agent.reply({ type: 'RESUME_REPLY' }); // a reply suspended by a shutdown
 * ```
 */
export type ReplyInput =
  | string
  | Msg
  | readonly Msg[]
  | ResumeInput<UserConfirmResultEvent>
  | ResumeInput<ExternalExecutionResultEvent>
  | ResumeReplyInput
  | RecoverReplyInput;

/**
 * Continues a reply whose process stopped before it ended (a crash, SIGKILL, a deploy without
 * grace): its journal is folded over the saved state and the reply goes on from its last
 * checkpoint under the same `replyId`, emitting `CUSTOM {name: 'reply_recovered', value:
 * {fromStep}}` after its `REPLY_START`. Needs a session store that keeps a journal. Refused with
 * a `ReplyLeaseError` while another process still runs the reply (it holds the lease), with an
 * `AgentUsageError` when there is nothing to recover (see `agent.recoverable()`).
 *
 * @example
 * ```ts
 * if (await agent.recoverable()) agent.reply({ type: 'RECOVER_REPLY' }).subscribe(render);
 * ```
 */
export interface RecoverReplyInput {
  readonly type: 'RECOVER_REPLY';
  readonly replyId?: string;
}

/**
 * Step checkpoints (`AgentOptions.checkpoints`): how long the lease of a running reply lasts
 * without renewal. A process that dies stops renewing it; its reply can be recovered elsewhere
 * once it expired.
 *
 * @example
 * ```ts
 * new Agent({ model, store, sessionId: 's1', checkpoints: { leaseMs: 5_000 } });
 * ```
 */
export interface CheckpointOptions {
  /** Default 15,000 ms; renewed every third of it while the reply runs. */
  readonly leaseMs?: number;
}

/**
 * Continues a reply that a shutdown suspended (`REPLY_END {finishReason: 'shutdown'}`): the
 * tool calls it had not started run, then the reply goes on with its next reasoning step,
 * under the same `replyId`. A `replyId`, if given, must match the suspended reply.
 *
 * @example
 * ```ts
 * if (agent.pending?.shutdown) agent.reply({ type: 'RESUME_REPLY' }).subscribe(render);
 * ```
 */
export interface ResumeReplyInput {
  readonly type: 'RESUME_REPLY';
  readonly replyId?: string;
}

/**
 * A resume event with only the fields a caller must give.
 *
 * @example
 * ```ts
 * const resume: ResumeInput<ExternalExecutionResultEvent> = { type: 'EXTERNAL_EXECUTION_RESULT', results: [{ toolCallId: 'call_1', output: '42' }] };
 * ```
 */
export type ResumeInput<E extends UserConfirmResultEvent | ExternalExecutionResultEvent> = Pick<E, 'type' | 'results'> &
  Partial<Omit<E, 'type' | 'results'>>;

/**
 * Options of an `Agent`.
 *
 * @example
 * ```ts
 * const options: AgentOptions = { name: 'assistant', sysPrompt: 'You are helpful.', model, tools: [add], maxIters: 10 };
 * ```
 */
export interface AgentOptions {
  /** Name of the agent; the `source` of its events. Default `'assistant'`. */
  readonly name?: string;
  /** System prompt (transformed by `onSystemPrompt` middlewares once per reasoning step). */
  readonly sysPrompt?: string;
  /** The model every reasoning step calls (middlewares may swap it per call). */
  readonly model: ChatModel;
  /** Tools offered to the model, besides those the middlewares register. */
  readonly tools?: readonly Tool[];
  /** First = outermost on every hook. */
  readonly middlewares?: readonly Middleware[];
  /** Reasoning steps that may end in tool calls before one final call without tools. Default 20. */
  readonly maxIters?: number;
  /**
   * Tool choice sent to the model. `'auto'` and `'none'` apply to every reasoning step; a forced
   * choice (`'required'` or a tool name) applies to the first step of each reply only, unless
   * `resetToolChoice` is false. Default `'auto'`.
   */
  readonly toolChoice?: ToolChoice;
  /** Use `'auto'` after the first reasoning step of a reply when `toolChoice` is forced. Default true. */
  readonly resetToolChoice?: boolean;
  /** Sampling options sent with every model call. */
  readonly modelOptions?: ModelOptions;
  /** Concurrency-safe calls running at once. Default 8. */
  readonly maxConcurrentTools?: number;
  /** Session id exposed as `ctx.sessionId`, saved with the state, and the key in `store`. */
  readonly sessionId?: string;
  /** A snapshot from `saveState()`, validated here (throws `AgentStateError`). */
  readonly state?: unknown;
  /** Initial permission mode and rules (a restored state's settings win). */
  readonly permissions?: Partial<PermissionState>;
  /**
   * What a plain message does while a reply waits for confirmation or external results:
   * `'reject-pending'` (default) answers the pending calls as rejected and starts a new reply;
   * `'refuse'` refuses the message with an {@link AgentUsageError}.
   */
  readonly whilePending?: 'reject-pending' | 'refuse';
  /**
   * Where the state lives between replies: loaded when a reply starts, saved on every
   * suspension and every end (errors and interruptions included). Requires `sessionId`.
   */
  readonly store?: SessionStore;
  /**
   * With a store that keeps a journal (the in-memory, file and Redis stores do), every step of a
   * reply is checkpointed so that `RECOVER_REPLY` continues it after a crash (see
   * docs/deployment.md). On by default; `false` turns it off (a crash then loses the reply back to
   * the last save).
   */
  readonly checkpoints?: boolean | CheckpointOptions;
  /** Receives errors that have no stream to travel on (a save after cancellation). Default: console.error. */
  readonly onBackgroundError?: (error: unknown) => void;
}
