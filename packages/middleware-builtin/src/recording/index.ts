// @rxscope/middleware-builtin/recording — record a reply against a real model once, replay it
// offline as a deterministic test: RecordingMiddleware, ReplayChatModel and the cassette format.
// Explicit named exports only. Browser-safe: the cassette file helpers (cassetteFile,
// loadCassette) are in @rxscope/middleware-builtin/node.

export { RecordingMiddleware } from './recording-middleware.js';
export type { RecordingOptions } from './recording-middleware.js';
export { CassetteMismatchError, ReplayChatModel } from './replay-chat-model.js';
export type { ReplayChatModelOptions } from './replay-chat-model.js';
export { CASSETTE_VERSION, stableEvents } from './cassette.js';
export type { Cassette, RecordedModelCall, RecordedModelRequest, RecordedReply } from './cassette.js';
