import type { AgentEvent, PendingToolCall, ReplyFinishReason } from '../../event/events.js';
import type { ToolCallBlock } from '../../message/blocks.js';
import type { Tool } from '../../tool/tool.js';
import type { LoopHost, ResumeRequest } from './loop-host.js';
import type { ReplyContext } from './reply-context.js';
import type { ReplyConversation } from './reply-conversation.js';
import type { StructuredOutput } from '../structured-output.js';

/**
 * The steps of a reply's state machine. A step's stream emits events and, as its last value,
 * the next step; a reply starts with `reason` (or `resume`) and its steps end with `done`.
 * Steps have a `kind` and no `type`, which tells them apart from the events they travel with.
 */
export type ReplyStep =
  /** One reasoning step; `final`: the extra call without tools once `maxIters` is reached. */
  | { readonly kind: 'reason'; readonly final: boolean }
  /** One acting step: the tool calls the last reasoning step made. */
  | { readonly kind: 'act'; readonly calls: readonly ToolCallBlock[] }
  /** The continuation of a suspended reply with the answer to its pending calls. */
  | { readonly kind: 'resume'; readonly request: ResumeRequest }
  /** Calls wait for a person or an external executor: the reply asks for them, then ends. */
  | {
      readonly kind: 'suspend';
      readonly confirm: readonly PendingToolCall[];
      readonly external: readonly PendingToolCall[];
    }
  /** The steps are over; `reason` is the reply's finish reason unless it was cut off. */
  | { readonly kind: 'done'; readonly reason: ReplyFinishReason };

/** What travels on a step's stream: the reply's events, then the next step. */
export type StepOutput = AgentEvent | ReplyStep;

/** True for a step, false for an event (every event has a `type`). */
export const isStep = (value: StepOutput): value is ReplyStep => !('type' in value);

export const reasonStep = (final: boolean): ReplyStep => ({ kind: 'reason', final });
export const doneStep = (reason: ReplyFinishReason): ReplyStep => ({ kind: 'done', reason });
export const suspendStep = (confirm: readonly PendingToolCall[], external: readonly PendingToolCall[]): ReplyStep => ({
  kind: 'suspend',
  confirm,
  external,
});

/** What the reasoning and acting steps use of the reply they run in. */
export interface StepScope {
  readonly host: LoopHost;
  readonly ctx: ReplyContext;
  /** The reply's conversation (`ctx.conversation`); its reducer folds the reply message. */
  readonly conversation: ReplyConversation;
  /** The structured output asked of this reply (`reply(input, {output})`). */
  readonly output?: StructuredOutput | undefined;
  /** The agent's tools, plus the `final_output` tool when the reply asks for structured output. */
  readonly tools: ReadonlyMap<string, Tool>;
  readonly toolList: readonly Tool[];
  /** Reasoning steps of this reply that ended in tool calls (counted against `maxIters`). */
  readonly toolSteps: number;
  /** A shutdown asked the reply to stop at its next safe point: no tool call starts any more. */
  readonly draining: boolean;
  /** Folds one event into the reply (message, nested replies, usage). */
  apply(e: AgentEvent): void;
}
