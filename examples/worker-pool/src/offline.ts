/**
 * The offline scripted model: rxscope's OpenAI-compatible test server, answering from the
 * conversation it receives (workers reach it over HTTP like any OpenAI-compatible endpoint).
 *
 * - "ship <order>" → a `ship_order` call (which asks for confirmation), then an answer from its result;
 * - "stock <item>" → a `check_stock` call, then an answer from its result that also answers any
 *   message that arrived (through the inbox) while the check ran;
 * - "story" → a long answer, one word every 100 ms;
 * - anything else → a short answer quoting the message.
 *
 *   node examples/worker-pool/dist/offline.js     prints "model on http://127.0.0.1:PORT/v1"
 */
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';

const INBOX_PREFIX = '[message from';

export function startOfflineModel(): Promise<OpenAITestServer> {
  return startOpenAITestServer({ handler: scriptedTurn, chunkDelayMs: 10 });
}

export function scriptedTurn(request: RecordedRequest): ServerTurn {
  const messages = (request.body.messages ?? []).map((m) => ({ role: m.role, text: contentText(m.content) }));
  // The user's message of this reply: the last user turn that is not a message from the inbox.
  let start = messages.length - 1;
  while (start >= 0 && !(messages[start]!.role === 'user' && !messages[start]!.text.startsWith(INBOX_PREFIX))) start--;
  const text = start >= 0 ? messages[start]!.text : '';
  const after = messages.slice(start + 1);
  const toolResult = after.find((m) => m.role === 'tool')?.text;
  const arrived = after.filter((m) => m.role === 'user').map((m) => m.text);

  const ship = /\bship\s+(\S+)/i.exec(text);
  if (ship) {
    if (toolResult === undefined)
      return { text: words('Shipping it.'), toolCalls: [{ name: 'ship_order', input: { order: ship[1] } }] };
    return {
      text: words(toolResult.includes('shipped') ? `Done: ${toolResult}.` : `OK, order ${ship[1]} stays here.`),
    };
  }
  const stock = /\bstock\s+(\S+)/i.exec(text);
  if (stock) {
    if (toolResult === undefined)
      return { text: words('Checking.'), toolCalls: [{ name: 'check_stock', input: { item: stock[1] } }] };
    const noted = arrived.length
      ? ` Noted your message: ${arrived.map((a) => a.slice(a.indexOf(']') + 1).trim()).join(' / ')}`
      : '';
    return { text: words(`Stock: ${toolResult}.${noted}`) };
  }
  if (/story/i.test(text)) return { text: words(STORY), chunkDelayMs: 100 };
  return { text: words(`You said: "${text}".`) };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p: { text?: unknown }) => (typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

const STORY =
  'Once upon a time a parcel left the warehouse, crossed three cities, waited a night in a depot, ' +
  'met a friendly courier, climbed four floors and finally reached the door it was meant for.';

if (process.argv[1]?.endsWith('offline.js')) {
  void startOfflineModel().then((server) => {
    process.stdout.write(`model on ${server.url}\n`);
  });
}
