// @rxscope/core/testing/node — Node-only test doubles (they import node: modules).
export { startOpenAITestServer } from './openai-test-server.js';
export { TEST_EMBEDDING_DIMENSIONS, testEmbedding } from './embeddings-route.js';
export { TEST_SPEECH_SAMPLE_RATE, testSpeechWav } from './speech-route.js';
export type {
  OpenAITestServer,
  OpenAITestServerOptions,
  RecordedBody,
  RecordedContentPart,
  RecordedRequest,
  RecordedWireMessage,
  ServerFault,
  ServerToolCall,
  ServerTurn,
} from './openai-test-server.js';
