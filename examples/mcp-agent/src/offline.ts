/**
 * The offline scripted model: rxscope's OpenAI-compatible test server on 127.0.0.1. The agent
 * talks to it through the real OpenAIChatModel; it asks for the two MCP tools, then answers from
 * their results (or, for `register`, calls the server's elicitation tool and reads the answer back).
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

/** What `main.js register` asks. */
export const REGISTER = 'Register me for the MCP newsletter.';

function scriptedTurn(request: RecordedRequest): ServerTurn {
  const messages = request.body.messages ?? [];
  if (messages.some((m) => m.role === 'user' && m.content === REGISTER)) return registerTurn(request);
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

/** `register`: the server's elicitation tool asks the person; the answer is read back. */
function registerTurn(request: RecordedRequest): ServerTurn {
  const result = (request.body.messages ?? []).find((m) => m.role === 'tool' && m.tool_call_id === 'call_register');
  if (!result)
    return { toolCalls: [{ id: 'call_register', name: 'everything__trigger-elicitation-request', input: {} }] };
  const text = typeof result.content === 'string' ? result.content : '';
  const name = /- Name: (.*)/.exec(text)?.[1];
  return { text: name ? `Welcome aboard, ${name}.` : 'No registration then.' };
}
