import type { ConfirmResult, ReplyFinishReason, ToolResultStatus, Usage } from '@rxscope/core';

/**
 * Where a chat is: `'streaming'` while a reply streams, `'awaiting_confirmation'` while tool
 * calls wait for an answer, `'error'` after a failed reply (read `error()`), else `'idle'`.
 *
 * @example
 * ```ts
 * const busy = computed(() => chat.status() === 'streaming');
 * ```
 */
export type AgentChatStatus = 'idle' | 'streaming' | 'awaiting_confirmation' | 'error';

/**
 * Where one tool call is: its input streaming, waiting for a person, running, or ended with the
 * tool's result status (`success`, `error`, `denied`, `interrupted`).
 *
 * @example
 * ```ts
 * const done = (call: ChatToolCall) => call.status === 'success';
 * ```
 */
export type ChatToolCallStatus = 'input_streaming' | 'called' | 'awaiting_confirmation' | 'running' | ToolResultStatus;

/**
 * A tool call in an assistant message, as it goes.
 *
 * @example
 * ```ts
 * // @for (call of message.toolCalls; track call.id) { {{ call.name }}: {{ call.status }} }
 * const label = (call: ChatToolCall) => `${call.name} ${call.progress?.message ?? call.status}`;
 * ```
 */
export interface ChatToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as JSON text, growing while the model streams them. */
  readonly inputText: string;
  /** The parsed arguments once complete (`undefined` while they stream or if they are not JSON). */
  readonly input: unknown;
  readonly status: ChatToolCallStatus;
  /** The latest progress report of the running tool (`TOOL_PROGRESS`). */
  readonly progress?: { readonly message: string; readonly progress?: number; readonly total?: number };
  /** The tool's text output once it ended. */
  readonly output?: string;
}

/**
 * One message of the conversation. An assistant message is one reply: a reply resumed after a
 * confirmation goes on in the same message.
 *
 * @example
 * ```ts
 * // @for (m of chat.messages(); track m.id) { <p [class]="m.role">{{ m.text }}</p> }
 * const last = (messages: readonly ChatMessage[]) => messages.at(-1)?.text ?? '';
 * ```
 */
export interface ChatMessage {
  /** The user message's own id, or the reply's id for an assistant message. */
  readonly id: string;
  readonly role: 'user' | 'assistant';
  /** The text so far (every text block of the reply, joined). */
  readonly text: string;
  readonly toolCalls: readonly ChatToolCall[];
  /** Set when the reply ended (`awaiting_confirmation` while it waits for a person). */
  readonly finishReason?: ReplyFinishReason;
}

/**
 * A tool call waiting for a person, with the answer given so far (answers are sent together,
 * once every pending call has one).
 *
 * @example
 * ```ts
 * // @for (p of chat.pendingConfirmations(); track p.toolCallId) { <button (click)="chat.confirm(p.toolCallId)">Allow {{ p.name }}</button> }
 * const unanswered = (list: readonly PendingConfirmation[]) => list.filter((p) => !p.answer);
 * ```
 */
export interface PendingConfirmation {
  readonly toolCallId: string;
  readonly name: string;
  readonly input: unknown;
  /** Why the call needs a confirmation. */
  readonly reason?: string;
  readonly answer?: ConfirmResult;
}

/**
 * The error of a failed reply: `code` is the stream's (`http`, `not_event_stream`,
 * `invalid_event`, `network`), the agent's (the `REPLY_END` error's), `no_first_event` or
 * `stream_ended_early`.
 *
 * @example
 * ```ts
 * // @if (chat.error(); as e) { <p role="alert">{{ e.message }}</p> }
 * const retryable = (e: AgentChatError) => e.code === 'network';
 * ```
 */
export interface AgentChatError {
  /** Stable and machine-readable: branch on it, not on the message. */
  readonly code: string;
  /** What went wrong, in words for a person (the URL and what it answered, or the agent's error). */
  readonly message: string;
}

/** Everything a chat shows, folded from its events (one immutable value per change). */
export interface ChatView {
  readonly messages: readonly ChatMessage[];
  readonly pending: readonly PendingConfirmation[];
  readonly usage: Usage;
  readonly status: AgentChatStatus;
  readonly error: AgentChatError | undefined;
  readonly state: Readonly<Record<string, unknown>> | undefined;
  readonly stateStale: boolean;
  /** blockId → toolCallId of the current reply (tool-call deltas name only their block). */
  readonly blocks: Readonly<Record<string, string>>;
}

export const EMPTY_VIEW: ChatView = {
  messages: [],
  pending: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  status: 'idle',
  error: undefined,
  state: undefined,
  stateStale: false,
  blocks: {},
};
