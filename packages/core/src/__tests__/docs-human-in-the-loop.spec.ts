/**
 * The complete example of docs/human-in-the-loop.md, run for real: the server and the browser code
 * are files in ./docs/human-in-the-loop/ that the page shows through `<!-- snippet: ... -->`
 * markers (checked by scripts/doc-snippets.spec.ts). Every HTTP request builds a fresh Agent from
 * the session store, so the confirmation arrives as a new request (as it would from a browser, or
 * after a server restart) and still continues the same reply. The browser code runs in Node with
 * `fetch` pointed at the test's server and `window.confirm` answered by the test.
 *
 * Blocks of the page that are not run, and why:
 * - `chatServer(new FileSessionStore({ dir: './sessions' }), model).listen(3000)`: starting the
 *   server on a fixed port with the reader's model (the tests start it on a free port);
 * - the shorter blocks above it (permission rules, confirmation and external results,
 *   `externalTool`): fragments of an agent's set-up or of a reply's input that use an agent, tools
 *   and call ids the page does not define; they are not run.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../index.js';
import { FileSessionStore } from '../node/index.js';
import { ScriptedChatModel } from '../testing/index.js';
import { askForARefund } from './docs/human-in-the-loop/support-client.js';
import { chatServer, refunds } from './docs/human-in-the-loop/support-server.js';

/** A raw POST, as the browser code sends it, returning the NDJSON events. */
async function post(base: string, sessionId: string, body: unknown): Promise<AgentEvent[]> {
  const response = await fetch(`${base}/sessions/${encodeURIComponent(sessionId)}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  return (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AgentEvent);
}

describe('docs/human-in-the-loop.md: confirmation as a new request', () => {
  let dir: string;
  let server: Server;
  let base: string;
  const realFetch = globalThis.fetch;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rxscope-hitl-'));
    refunds.length = 0;
    const model = new ScriptedChatModel([
      {
        text: 'Let me refund that.',
        toolCalls: [{ id: 'r1', name: 'refund', input: { orderId: 'A-17', amount: 80 } }],
      },
      { text: 'Done: 80 EUR refunded.' },
    ]);
    server = chatServer(new FileSessionStore({ dir }), model);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    globalThis.fetch = realFetch;
    delete (globalThis as { window?: unknown }).window;
    await new Promise((r) => server.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  /** The browser page: relative URLs go to the server, and the person answers `answer` in the dialog. */
  function browser(answer: boolean): string[] {
    const asked: string[] = [];
    globalThis.fetch = (url, init) => realFetch(`${base}${url as string}`, init);
    (globalThis as { window?: unknown }).window = {
      confirm: (question: string) => {
        asked.push(question);
        return answer;
      },
    };
    return asked;
  }

  it('asks the person, then the confirmation continues the same reply and runs the refund', async () => {
    const asked = browser(true);
    const events = await askForARefund();
    expect(asked).toEqual(['Refund 80 EUR?']);
    expect(events[0]).toMatchObject({ type: 'REPLY_START' });
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
    expect(refunds).toEqual(['A-17:80']);
    const text = events.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('');
    expect(text).toBe('Done: 80 EUR refunded.');
  });

  it('a refusal in the dialog denies the refund', async () => {
    browser(false);
    const events = await askForARefund();
    expect(events.find((e) => e.type === 'TOOL_RESULT_END')).toMatchObject({ status: 'denied' });
    expect(refunds).toEqual([]);
  });

  it('the first request ends waiting; a wrong answer is refused and changes nothing', async () => {
    const first = await post(base, 'customer-1', { message: 'Refund order A-17 please (80 EUR)' });
    expect(first.find((e) => e.type === 'REQUIRE_USER_CONFIRM')).toMatchObject({
      toolCalls: [{ id: 'r1', name: 'refund', input: { orderId: 'A-17', amount: 80 } }],
    });
    expect(first.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'awaiting_confirmation' });

    const refused = await post(base, 'customer-1', { confirm: [{ toolCallId: 'nope', confirmed: true }] });
    expect(refused).toEqual([
      { type: 'REFUSED', message: expect.stringContaining('unknown tool call id "nope"') as string },
    ]);
    const second = await post(base, 'customer-1', { confirm: [{ toolCallId: 'r1', confirmed: true }] });
    expect(second[0]).toMatchObject({ type: 'REPLY_START', replyId: first[0]!.replyId });
    expect(refunds).toEqual(['A-17:80']);
  });
});
