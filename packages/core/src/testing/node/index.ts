// @rxscope/core/testing/node — Node-only test doubles (they import node: modules).
export { startOpenAITestServer } from './openai-test-server.js';
export { TEST_EMBEDDING_DIMENSIONS, testEmbedding } from './embeddings-route.js';
export { TEST_SPEECH_SAMPLE_RATE, testSpeechWav } from './speech-route.js';
export { TEST_MODERATION_TERMS } from './moderation-route.js';
export type { OpenAITestServer, OpenAITestServerOptions } from './openai-test-server.js';
export type { ServerToolCall, ServerTurn, ServerWireUsage } from './script.js';
export type { ServerFault } from './faults.js';
export type { RecordedBody, RecordedContentPart, RecordedRequest, RecordedWireMessage } from './recording.js';
export { startRedisServer } from './redis-server.js';
export type { RedisTestServer, RedisTestServerOptions } from './redis-server.js';
