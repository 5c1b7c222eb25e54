import type { JsonObject } from '../../util/json-patch.js';

/**
 * One chunk of the AI SDK's UI message stream protocol (the `ai` 6 line: what `useChat` of
 * `@ai-sdk/react` 3 and `readUIMessageStream` read), as {@link toUIMessageStream} produces it:
 * the subset of the AI SDK's `UIMessageChunk` an rxscope reply maps to.
 *
 * @example
 * ```ts
 * const chunk: UIMessageChunk = { type: 'text-delta', id: 'blk_1', delta: 'Hel' };
 * ```
 */
export type UIMessageChunk =
  | { readonly type: 'start'; readonly messageId?: string; readonly messageMetadata?: RxscopeMessageMetadata }
  | { readonly type: 'start-step' }
  | { readonly type: 'finish-step' }
  | { readonly type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; readonly id: string }
  | { readonly type: 'text-delta' | 'reasoning-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'tool-input-start'; readonly toolCallId: string; readonly toolName: string }
  | { readonly type: 'tool-input-delta'; readonly toolCallId: string; readonly inputTextDelta: string }
  | {
      readonly type: 'tool-input-available';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
    }
  | {
      readonly type: 'tool-input-error';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
      readonly errorText: string;
    }
  | { readonly type: 'tool-approval-request'; readonly approvalId: string; readonly toolCallId: string }
  | { readonly type: 'tool-output-available'; readonly toolCallId: string; readonly output: unknown }
  | { readonly type: 'tool-output-error'; readonly toolCallId: string; readonly errorText: string }
  | { readonly type: 'tool-output-denied'; readonly toolCallId: string }
  | { readonly type: 'file'; readonly url: string; readonly mediaType: string }
  | { readonly type: `data-${string}`; readonly id?: string; readonly data: unknown }
  | { readonly type: 'message-metadata'; readonly messageMetadata: RxscopeMessageMetadata }
  | { readonly type: 'error'; readonly errorText: string }
  | { readonly type: 'abort'; readonly reason?: string }
  | {
      readonly type: 'finish';
      readonly finishReason?: 'stop' | 'length' | 'tool-calls' | 'error' | 'other';
      readonly messageMetadata?: RxscopeMessageMetadata;
    };

/**
 * The message metadata an rxscope reply carries in a UI message stream (`message.metadata` in
 * `useChat`): its reply id, how it ended, and its token usage.
 *
 * @example
 * ```ts
 * const { messages } = useChat<UIMessage<RxscopeMessageMetadata>>();
 * messages.at(-1)?.metadata?.usage?.outputTokens;
 * ```
 */
export interface RxscopeMessageMetadata {
  readonly replyId?: string;
  readonly finishReason?: string;
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number; readonly totalTokens: number };
  readonly [key: string]: unknown;
}

/**
 * The `data-*` part carrying the session's shared state (replaced in place: one id).
 *
 * @example
 * ```ts
 * const part = message.parts.find((p): p is SharedStateDataPart => p.type === 'data-shared-state');
 * ```
 */
export interface SharedStateDataPart {
  readonly type: 'data-shared-state';
  readonly id: 'shared-state';
  readonly data: JsonObject;
}
