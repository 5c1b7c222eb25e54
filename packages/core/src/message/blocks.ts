/** Plain text written by a user or the model. */
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}

/** The model's visible reasoning ("thinking"/"reasoning content"). */
export interface ThinkingBlock {
  readonly type: 'thinking';
  readonly thinking: string;
}

/**
 * A tool call requested by the model. `arguments` keeps the raw JSON text the model produced
 * (lossless, even when malformed); `input` holds the parsed value once it parsed.
 */
export interface ToolCallBlock {
  readonly type: 'tool_call';
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** Outcome of a tool call as recorded in the conversation. */
export type ToolResultStatus = 'success' | 'error' | 'denied' | 'interrupted';

/** Content a tool result may carry. */
export type ToolResultContent = TextBlock | DataBlock;

/** The result of one tool call, always paired with the {@link ToolCallBlock} of the same id. */
export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly toolCallId: string;
  readonly name: string;
  readonly status: ToolResultStatus;
  readonly output: readonly ToolResultContent[];
}

/** A framework-authored instruction for the model (wrap-up notices, plan reminders...). */
export interface HintBlock {
  readonly type: 'hint';
  readonly text: string;
  /** The id it was added with (`ctx.conversation.addHint`), to remove it later. */
  readonly id?: string;
  /** Who it is from: `'user'` for a message sent with `agent.send()`, else what the adder named. */
  readonly source?: string;
}

/** Binary media, inline as base64 (`data`) or by reference (`url`). */
export interface DataBlock {
  readonly type: 'data';
  readonly mediaType: string;
  readonly data?: string;
  readonly url?: string;
}

/** Every kind of content a message can hold. */
export type ContentBlock = TextBlock | ThinkingBlock | ToolCallBlock | ToolResultBlock | HintBlock | DataBlock;

/** Who wrote a message. Tool results live inside the assistant reply that requested them. */
export type Role = 'system' | 'user' | 'assistant';

/**
 * One message of a conversation. An assistant reply is a single `Msg` holding every block of
 * the reply in order: thinking, text, tool calls and their results across all iterations.
 *
 * @example
 * ```ts
 * const m: Msg = { id: newId('msg'), role: 'user', name: 'user', content: [{ type: 'text', text: 'hi' }], createdAt: Date.now() };
 * ```
 */
export interface Msg {
  readonly id: string;
  readonly role: Role;
  readonly name: string;
  readonly content: readonly ContentBlock[];
  readonly createdAt: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
}
