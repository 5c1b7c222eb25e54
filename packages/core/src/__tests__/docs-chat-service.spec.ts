/**
 * docs/chat-service-with-approvals.md, run for real: the service and the browser code are the files
 * in ./docs/chat-service/ that the page shows through `<!-- snippet: ... -->` markers (checked by
 * scripts/doc-snippets.spec.ts). The service runs on a loopback port with the real
 * `OpenAIChatModel` against the OpenAI-compatible test server; the browser code runs in Node with
 * the real `fetch`, and the person's answers come from the test. (`main.ts` is built and run as a
 * program by scripts/consumer-install.spec.ts, from the packed packages.)
 *
 * Blocks of the page that are not run, and why:
 * - the `sh` blocks: shell commands (installing, building and starting `main.ts`, `curl`).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PendingToolCall } from '../index.js';
import type { AgentSessions } from '../node/index.js';
import { OpenAIChatModel } from '../model/openai/index.js';
import { type OpenAITestServer, type RecordedRequest, startOpenAITestServer } from '../testing/node/index.js';
import { chat } from './docs/chat-service/client.js';
import { chatService, refunds } from './docs/chat-service/service.js';

/** The test model: refunds what a message asks (`refund A-17 80`), else repeats what the session said so far. */
function supportModel(request: RecordedRequest) {
  const text = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));
  const messages = request.body.messages ?? [];
  const last = messages.at(-1)!;
  if (last.role === 'tool') {
    const denied = /denied|rejected|not confirmed/i.test(text(last.content));
    return { text: denied ? 'OK, I did not refund it.' : `Done: ${text(last.content)}` };
  }
  const said = messages.filter((m) => m.role === 'user').map((m) => text(m.content));
  const ask = /refund (\S+) (\d+)/.exec(said.at(-1)!);
  if (ask) return { toolCalls: [{ name: 'refund', input: { orderId: ask[1], amount: Number(ask[2]) } }] };
  return { text: `You said: ${said.join(' | ')}` };
}

describe('docs/chat-service-with-approvals.md', () => {
  let model: OpenAITestServer;
  let service: { server: Server; sessions: AgentSessions };
  let base: string;

  beforeEach(async () => {
    refunds.length = 0;
    model = await startOpenAITestServer({ handler: supportModel });
    service = chatService(new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'test', baseURL: model.url }));
    await new Promise<void>((r) => service.server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await service.sessions.close();
    service.server.closeAllConnections();
    await new Promise((r) => service.server.close(r));
    await model.close();
  });

  /** The page's view: the text shown last, and the calls the person was asked about (answered `answer`). */
  function view(answer: boolean) {
    const shown = { text: '', asked: [] as (readonly PendingToolCall[])[] };
    return {
      shown,
      showText: (text: string) => void (shown.text = text),
      approve: async (calls: readonly PendingToolCall[]) => {
        shown.asked.push(calls);
        return answer;
      },
    };
  }

  it('asks the person before a large refund; approved, the refund runs and the reply ends with its result', async () => {
    const alice = view(true);
    await chat(base, 'alice-1', 'Please refund A-17 80', alice);
    expect(alice.shown.asked).toEqual([
      [expect.objectContaining({ name: 'refund', input: { orderId: 'A-17', amount: 80 } })],
    ]);
    expect(refunds).toEqual(['A-17:80']);
    expect(alice.shown.text).toBe('Done: Refunded 80 EUR on A-17.');
  });

  it('rejected, nothing is refunded and the model hears it', async () => {
    const alice = view(false);
    await chat(base, 'alice-1', 'Please refund A-17 80', alice);
    expect(alice.shown.asked).toHaveLength(1);
    expect(refunds).toEqual([]);
    expect(alice.shown.text).toBe('OK, I did not refund it.');
  });

  it('a small refund goes through without asking', async () => {
    const alice = view(true);
    await chat(base, 'alice-1', 'Please refund A-18 15', alice);
    expect(alice.shown.asked).toEqual([]);
    expect(refunds).toEqual(['A-18:15']);
  });

  it('keeps one conversation per session: two users at once never see each other', async () => {
    const alice = view(true);
    const bob = view(true);
    await Promise.all([chat(base, 'alice-1', 'my card is 4111', alice), chat(base, 'bob-1', 'hello', bob)]);
    await chat(base, 'bob-1', 'again', bob);
    expect(alice.shown.text).toBe('You said: my card is 4111');
    expect(bob.shown.text).toBe('You said: hello | again');
    const bobRequests = model.requests.filter((r) => JSON.stringify(r.body.messages).includes('hello'));
    expect(bobRequests.length).toBeGreaterThan(0);
    for (const r of bobRequests) expect(JSON.stringify(r.body.messages)).not.toContain('4111');
  });

  it('refunds nothing when an answer does not fit the waiting call (409), and keeps waiting', async () => {
    let asked: readonly PendingToolCall[] = [];
    await expect(
      chat(base, 'alice-1', 'Please refund A-17 80', {
        showText: () => {},
        approve: async (calls) => {
          asked = calls;
          throw new Error('the tab was closed');
        },
      }),
    ).rejects.toThrow('the tab was closed');
    const wrong = await fetch(`${base}/sessions/alice-1/confirmations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ results: [{ toolCallId: 'not-a-call', confirmed: true }] }),
    });
    expect(wrong.status).toBe(409);
    expect(refunds).toEqual([]);
    // The right answer still resumes the reply.
    const right = await fetch(`${base}/sessions/alice-1/confirmations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ results: [{ toolCallId: asked[0]!.id, confirmed: true }] }),
    });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('Refunded 80 EUR on A-17.');
    expect(refunds).toEqual(['A-17:80']);
  });

  it('answers a wrong route with 404 and a body without message or results with 400', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('/sessions/a/b/c', { message: 'hi' })).status).toBe(404);
    expect((await post('/sessions/alice-1/messages', { text: 'hi' })).status).toBe(400);
    expect((await post('/sessions/alice-1/confirmations', { confirmed: true })).status).toBe(400);
  });
});
