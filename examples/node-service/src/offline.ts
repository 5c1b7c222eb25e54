/**
 * The offline scripted model: rxscope's OpenAI-compatible test server on 127.0.0.1, answering
 * from the conversation it receives. The agents talk to it through the real `OpenAIChatModel`
 * over HTTP/SSE, so cancelling a reply really aborts an HTTP request (the server records it).
 *
 * - a message containing "refund" → a `refund_order` call (order id like `A-17`, amount like
 *   `80 EUR` taken from the message), then an answer from the tool's result;
 * - a message containing "story" → a long answer, one word every 100 ms (to try cancel);
 * - a message containing "plan" → a task list (`write_todos`) written, then ticked off, then a
 *   short answer — the Angular app shows the list as it changes;
 * - a message containing "audit" (order id like `A-17`) → `order_status` and the `order_auditor`
 *   subagent called together, then a `refund_order` call (80 EUR) that waits for a person's
 *   confirmation, then an answer: one reply with every kind of step, to look at in the devtools;
 *   the auditor subagent (its own system prompt) answers with a short finding;
 * - anything else → a short answer quoting the message.
 */
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';

const WORD_DELAY_MS = 30;
const STORY_DELAY_MS = 100;

export function startOfflineModel(): Promise<OpenAITestServer> {
  return startOpenAITestServer({ handler: scriptedTurn, chunkDelayMs: WORD_DELAY_MS });
}

export function scriptedTurn(request: RecordedRequest): ServerTurn {
  const messages = request.body.messages ?? [];
  const lastUser = messages
    .map((m, i) => ({ m, i }))
    .filter(({ m }) => m.role === 'user')
    .at(-1);
  const text = lastUser ? contentText(lastUser.m.content) : '';
  const after = lastUser ? messages.slice(lastUser.i + 1) : [];
  const toolResult = after.find((m) => m.role === 'tool');
  const system = contentText(messages.find((m) => m.role === 'system')?.content);

  if (system.startsWith(AUDITOR_PROMPT_START)) {
    const orderId = /\b([A-Z]-\d+)\b/.exec(text)?.[1] ?? 'A-17';
    return { text: words(`Order ${orderId} was delivered and paid 80 EUR; a refund of 80 EUR is allowed.`) };
  }
  if (/\baudit\b/i.test(text)) return auditTurn(text, after);

  if (/refund/i.test(text)) {
    const orderId = /\b([A-Z]-\d+)\b/.exec(text)?.[1] ?? 'A-17';
    const amount = Number(/(\d+(?:\.\d+)?)\s*(?:EUR|€|euros?)/i.exec(text)?.[1] ?? 80);
    if (!toolResult) {
      return {
        text: words('Let me refund that for you.'),
        toolCalls: [{ name: 'refund_order', input: { orderId, amount } }],
      };
    }
    const result = contentText(toolResult.content);
    return {
      text: words(
        result.startsWith('Refunded')
          ? `Done: refunded ${amount} EUR on order ${orderId}.`
          : `OK, I did not refund order ${orderId}.`,
      ),
    };
  }
  if (/\bplan\b/i.test(text)) {
    const written = after.filter((m) => m.role === 'tool').length;
    if (written < PLAN.length) return { toolCalls: [{ name: 'write_todos', input: { todos: PLAN[written] } }] };
    return { text: words('Your move is planned: boxes packed, van booked, address changed.') };
  }
  if (/story/i.test(text)) {
    return { text: words(STORY), chunkDelayMs: STORY_DELAY_MS };
  }
  return {
    text: words(`You said: "${text}". I am the offline scripted model; set OPENAI_API_KEY to talk to a real one.`),
  };
}

/** How the auditor subagent's system prompt starts (the service sets it; the script recognises it). */
export const AUDITOR_PROMPT_START = 'You audit orders';

/** The "audit" script: status and auditor together, then the refund (confirmed by a person), then the answer. */
function auditTurn(text: string, after: readonly { role: string; content?: unknown }[]): ServerTurn {
  const orderId = /\b([A-Z]-\d+)\b/.exec(text)?.[1] ?? 'A-17';
  const results = after.filter((m) => m.role === 'tool');
  if (results.length === 0) {
    return {
      text: words(`Let me audit order ${orderId}.`),
      toolCalls: [
        { name: 'order_status', input: { orderId } },
        { name: 'order_auditor', input: { message: `Audit order ${orderId}: may it be refunded?` } },
      ],
    };
  }
  if (results.length === 2) return { toolCalls: [{ name: 'refund_order', input: { orderId, amount: 80 } }] };
  const refunded = contentText(results.at(-1)?.content).startsWith('Refunded');
  return {
    text: words(
      refunded ? `Audit done: order ${orderId} was refunded 80 EUR.` : `Audit done: order ${orderId} was not refunded.`,
    ),
  };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p: { text?: unknown }) => (typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

/** Splits text into word chunks (each keeps its trailing space), as a model streams it. */
function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

/** The task list as the scripted model writes it, then ticks it off. */
const PLAN = [
  [
    { content: 'Pack the boxes', status: 'in_progress' },
    { content: 'Book the van', status: 'pending' },
    { content: 'Change the address', status: 'pending' },
  ],
  [
    { content: 'Pack the boxes', status: 'completed' },
    { content: 'Book the van', status: 'completed' },
    { content: 'Change the address', status: 'completed' },
  ],
];

const STORY = Array.from(
  { length: 10 },
  (_, i) =>
    `Chapter ${i + 1}. The little stream ran down the hill, carrying every event it met to the sea; ` +
    'some were small deltas, some were whole tool results, and none of them was ever lost on the way.',
).join(' ');
