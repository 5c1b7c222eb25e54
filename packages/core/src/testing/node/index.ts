// @rxscope/core/testing/node — Node-only test doubles (they import node: modules).
export { startOpenAITestServer } from './openai-test-server.js';
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
