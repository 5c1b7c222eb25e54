// @rxscope/core/ui-message-stream — the AI SDK UI message stream (useChat), for fetch-style servers.
export { toUIMessageStream } from './to-ui-message-stream.js';
export type { RxscopeMessageMetadata, SharedStateDataPart, UIMessageChunk } from './ui-message-chunk.js';
export { toUIMessageStreamResponse } from './to-ui-message-stream-response.js';
export type { UIMessageStreamResponseOptions } from './to-ui-message-stream-response.js';
export { createUIMessageStreamHandler } from './create-ui-message-stream-handler.js';
export type { UIMessageStreamHandlerOptions } from './create-ui-message-stream-handler.js';
export type { UIChatRequest, UIMessageLike, UIPartLike } from './ui-chat-request.js';
