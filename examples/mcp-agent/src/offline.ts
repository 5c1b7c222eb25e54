/**
 * The offline scripted model: rxscope's OpenAI-compatible test server on 127.0.0.1. The agent
 * talks to it through the real OpenAIChatModel; it asks for the two MCP tools, then answers from
 * their results.
 */
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedContentPart,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';

export function startOfflineModel(): Promise<OpenAITestServer> {
  return startOpenAITestServer({ handler: scriptedTurn, chunkDelayMs: 15 });
}

function scriptedTurn(request: RecordedRequest): ServerTurn {
  const messages = request.body.messages ?? [];
  const sum = messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_sum');
  if (!sum) {
    return {
      toolCalls: [
        { id: 'call_sum', name: 'everything__get-sum', input: { a: 2, b: 3 } },
        { id: 'call_logo', name: 'everything__get-tiny-image', input: {} },
      ],
    };
  }
  const sawImage = messages.some(
    (m) =>
      Array.isArray(m.content) && (m.content as readonly RecordedContentPart[]).some((p) => p.type === 'image_url'),
  );
  const sumText = typeof sum.content === 'string' ? sum.content : '';
  return {
    text: `${sumText} ${sawImage ? 'I can see the MCP logo: a small black and white emblem.' : ''}`.split(/(?<= )/),
  };
}
