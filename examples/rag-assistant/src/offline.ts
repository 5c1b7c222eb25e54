/**
 * The offline model: rxscope's OpenAI-compatible test server on 127.0.0.1. Embeddings are its
 * deterministic word vectors; the "chat model" searches the knowledge with the user's question,
 * then answers with the best passage it got back, citing it — a stand-in that shows the whole
 * RAG path (real embeddings client, real search, real tool call over HTTP) without a key.
 */
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p: { text?: string }) => p.text ?? '').join('')
      : '';

/** The words of `text`, as streamed chunks. */
const words = (text: string) => text.match(/\S+\s*/g) ?? [text];

export function startOfflineModel(): Promise<OpenAITestServer> {
  return startOpenAITestServer({ handler: answer, chunkDelayMs: 15 });
}

function answer(request: RecordedRequest): ServerTurn {
  const messages = request.body.messages ?? [];
  const last = messages.at(-1);
  const searches = (request.body.tools ?? []).some((t) => t.function.name === 'search_knowledge');
  const question = textOf(messages.filter((m) => m.role === 'user').at(-1)?.content);
  if (searches && last?.role !== 'tool') {
    return {
      text: words('Let me look that up. '),
      toolCalls: [{ name: 'search_knowledge', input: { query: question } }],
    };
  }
  // The passages: the tool result (agentic mode) or the hint in the request (static mode).
  const context = last?.role === 'tool' ? textOf(last.content) : messages.map((m) => textOf(m.content)).join('\n');
  const best = /\[1\] (\S+) \([^)]*\)\n([\s\S]*?)(?:\n\n\[2\]|$)/.exec(context);
  if (!best) return { text: words("I could not find anything about that in the knowledge base, so I won't guess.") };
  const [, citation, passage] = best;
  const sentences = passage!
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .slice(0, 2)
    .join(' ');
  return { text: words(`${sentences} [${citation}]`) };
}
