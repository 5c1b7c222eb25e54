// End to end in Debian's Chromium: the devtools UI served by the node-service at /_devtools,
// watching a real reply (two tool calls, a subagent, a confirmation) of its offline model, then
// the service restarting under it. Fails (never skips) without Chromium.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { RecordedEvent, ReplyRecord, ReplySummary } from '@rxscope/devtools';
import { ensureUiBuilt } from './build';
import { type Browser, launchChromium } from './chromium';
import { type NodeService, buildNodeService, startNodeService } from './node-service';

const ROOT = join(__dirname, '..', '..', '..', '..');
/** Where the run leaves its screenshot; `DEVTOOLS_SCREENSHOT=docs` also refreshes the one in the docs. */
const SCREENSHOTS = [join(ROOT, 'test-results', 'devtools-ui.png')];
if (process.env['DEVTOOLS_SCREENSHOT'] === 'docs') SCREENSHOTS.push(join(ROOT, 'docs', 'images', 'devtools-ui.png'));

jest.setTimeout(60_000);

let service: NodeService;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium(); // first: without Chromium, fail before building anything
  ensureUiBuilt();
  buildNodeService();
  service = await startNodeService();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    // While the service is down (the restart test), the browser logs the feed's cut and refused connections.
    if (msg.type() === 'error' && !msg.location().url.endsWith('/api/feed'))
      pageErrors.push(`${msg.text()} (${msg.location().url})`);
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

afterEach(() => expect(pageErrors.splice(0)).toEqual([]));

async function api<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${service.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The page's list shows the reply with this status (the live feed updated it). */
const listed = (replyId: string, status: string) =>
  page.locator(`li[data-reply-id="${replyId}"] > button .status[data-status="${status}"]`).waitFor();

const type = (e: RecordedEvent) => String(e.event['type']);
/** The reply's own events: its agent's, and the answers that resumed it (they carry no source). */
const ownOf = (record: ReplyRecord) => (e: RecordedEvent) =>
  e.event['source'] === undefined || e.event['source'] === record.summary.agentName;

describe('devtools UI in Chromium', () => {
  let replyId: string;
  let record: ReplyRecord;

  it('lists a reply live as it runs, draws the events it gains while open, and nests its subagent reply', async () => {
    await page.goto(`${service.url}/_devtools/`);
    await page.getByText('No replies recorded yet.').waitFor();

    ({ replyId } = await api<{ replyId: string }>('/api/sessions/audit-e2e/messages', {
      text: 'Please audit order A-17',
    }));
    await listed(replyId, 'awaiting_confirmation');
    // Opened while it waits for the confirmation, the reply gains the rest of its events live.
    await page.locator(`li[data-reply-id="${replyId}"] > button`).click();
    await page.locator(`article[data-reply-id="${replyId}"][data-status="awaiting_confirmation"]`).waitFor();
    const suspended = await page.locator('g.marble').count();
    const session = await api<{ pending: { toolCalls: { id: string }[] } }>('/api/sessions/audit-e2e');
    await api('/api/sessions/audit-e2e/confirmations', {
      results: [{ toolCallId: session.pending.toolCalls[0]!.id, confirmed: true }],
    });
    await listed(replyId, 'completed');
    await page.locator(`article[data-reply-id="${replyId}"][data-status="completed"]`).waitFor();

    record = await api<ReplyRecord>(`/_devtools/api/replies/${replyId}`);
    const drawn = record.events.filter((e) => !type(e).endsWith('_DELTA'));
    await page.waitForFunction((n) => document.querySelectorAll('g.marble').length === n, drawn.length);
    expect(drawn.length).toBeGreaterThan(suspended);
    const children = (await api<{ replies: ReplySummary[] }>('/_devtools/api/replies')).replies.filter(
      (r) => r.parentReplyId === replyId,
    );
    expect(children.length).toBeGreaterThan(0);
    // Each subagent reply sits under its parent in the list, with its own agent name.
    for (const child of children) {
      const item = page.locator(`li[data-reply-id="${replyId}"] ul li[data-reply-id="${child.replyId}"]`);
      await expect(item.locator('.agent').textContent()).resolves.toBe(child.agentName);
    }
  });

  it('draws the reply’s timeline: its lanes, a marble per recorded event, a bar per tool run and subagent', async () => {
    // Opened again: the record as the server has it now, not as the page followed it.
    await page.reload();
    await page.locator(`li[data-reply-id="${replyId}"] > button`).click();
    const view = page.locator(`article[data-reply-id="${replyId}"]`);
    await view.waitFor();
    await expect(view.locator('.lane-label').allTextContents()).resolves.toEqual([
      'Reply',
      'Reasoning steps',
      'Model calls',
      'Tool calls',
      'Subagents',
    ]);
    // Every recorded event but the streamed pieces is a marble, in the recorder's order.
    const drawn = record.events.filter((e) => !type(e).endsWith('_DELTA'));
    const seqs = await view
      .locator('g.marble')
      .evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-seq'))));
    expect(seqs).toEqual(drawn.map((e) => e.seq));
    const onLane = (lane: string) =>
      view.locator(`g.marble[data-lane="${lane}"]`).evaluateAll((els) => els.map((el) => el.getAttribute('data-type')));
    const own = ownOf(record);
    const count = (t: string) => drawn.filter((e) => own(e) && type(e) === t).length;
    const tools = await onLane('tool');
    expect(tools.filter((t) => t === 'TOOL_RESULT_END')).toHaveLength(count('TOOL_RESULT_END'));
    const model = await onLane('model');
    expect(model.filter((t) => t === 'MODEL_CALL_START')).toHaveLength(count('MODEL_CALL_START'));
    expect(model.filter((t) => t === 'TOOL_CALL_START')).toHaveLength(count('TOOL_CALL_START'));
    const reply = await onLane('reply');
    expect(reply.filter((t) => t === 'REQUIRE_USER_CONFIRM')).toHaveLength(count('REQUIRE_USER_CONFIRM'));
    expect(reply.filter((t) => t === 'USER_CONFIRM_RESULT')).toHaveLength(count('USER_CONFIRM_RESULT'));
    expect(reply.filter((t) => t === 'REPLY_START')).toHaveLength(count('REPLY_START'));
    // A bar per tool run (a call that stopped for the confirmation runs twice), one per subagent reply.
    const runs = drawn.filter((e) => own(e) && type(e) === 'TOOL_RESULT_END').length;
    await expect(view.locator('rect.bar[data-lane="tool"]').count()).resolves.toBe(runs);
    await expect(view.locator('rect.bar[data-lane="subagent"]').count()).resolves.toBe(record.children.length);
  });

  it('shows an event’s fields when its marble has the keyboard focus, and arrow keys walk the events', async () => {
    const view = page.locator(`article[data-reply-id="${replyId}"]`);
    const confirm = record.events.find((e) => type(e) === 'REQUIRE_USER_CONFIRM')!;
    await view.locator(`g.marble[data-seq="${confirm.seq}"]`).focus();
    const detail = view.locator('section.detail');
    await detail.locator('strong', { hasText: 'REQUIRE_USER_CONFIRM' }).waitFor();
    await expect(detail.textContent()).resolves.toContain('"refund_order"');
    await page.keyboard.press('ArrowRight');
    const next = record.events.filter((e) => !type(e).endsWith('_DELTA') && e.seq > confirm.seq)[0]!;
    await expect(page.evaluate(() => document.activeElement?.getAttribute('data-seq'))).resolves.toBe(String(next.seq));
    await detail.locator('strong', { hasText: type(next) }).waitFor();
    await expect(detail.textContent()).resolves.toContain(`seq ${next.seq}`);
  });

  it('lists the tool calls, the confirmation and its answer, and the usage as the server recorded them', async () => {
    const view = page.locator(`article[data-reply-id="${replyId}"]`);
    const own = record.events.filter(ownOf(record));
    const calls = own.filter((e) => type(e) === 'TOOL_CALL_START');
    const lastStatus = (id: unknown) =>
      own.filter((e) => type(e) === 'TOOL_RESULT_END' && e.event['toolCallId'] === id).at(-1)!.event['status'];
    const rows = view.locator('table[aria-label="Tool calls"] tbody tr');
    await expect(rows.locator('code.name').allTextContents()).resolves.toEqual(calls.map((e) => e.event['name']));
    await expect(rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-status')))).resolves.toEqual(
      calls.map((e) => lastStatus(e.event['toolCallId'])),
    );

    const asked = own.find((e) => type(e) === 'REQUIRE_USER_CONFIRM')!.event['toolCalls'] as {
      id: string;
      name: string;
    }[];
    const confirmations = view.locator('table[aria-label="Confirmations"] tbody tr');
    await expect(confirmations.locator('code').allTextContents()).resolves.toEqual(asked.map((c) => c.name));
    await expect(confirmations.first().getAttribute('data-answer')).resolves.toBe('confirmed');

    const modelCalls = own.filter((e) => type(e) === 'MODEL_CALL_END');
    await expect(view.locator('table[aria-label="Usage and cost"] tbody tr').count()).resolves.toBe(modelCalls.length);
    const chain = view.locator('dt-chain-view dt');
    await expect(chain.allTextContents()).resolves.toEqual(record.chain.map((c) => c.hook));

    for (const file of SCREENSHOTS) {
      mkdirSync(join(file, '..'), { recursive: true });
      await page.screenshot({ path: file, fullPage: true });
    }
  });

  it('exports the reply as the JSON the server recorded', async () => {
    const link = page.getByRole('link', { name: `Export reply ${replyId} as JSON` });
    const href = await link.evaluate((a: HTMLAnchorElement) => a.href);
    expect(href).toBe(`${service.url}/_devtools/api/replies/${replyId}/export`);
    const res = await fetch(href);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
    const exported = (await res.json()) as ReplyRecord;
    expect(exported.events.map((e) => e.seq)).toEqual(record.events.map((e) => e.seq));
  });

  it('says it reconnects while the service is down, and that it restarted once it is back', async () => {
    const port = service.port;
    await service.stop();
    await page.locator('[data-notice="reconnecting"]').waitFor();
    await expect(page.locator('[data-notice="reconnecting"]').textContent()).resolves.toContain('reconnecting…');
    service = await startNodeService(port);
    const restarted = page.locator('[data-notice="restarted"]');
    await restarted.waitFor({ timeout: 20_000 });
    await expect(restarted.textContent()).resolves.toContain('The server restarted');
    await expect(page.locator('[data-notice="reconnecting"]').count()).resolves.toBe(0);
    // The list was loaded again from the new server: the old replies are gone.
    await page.getByText('No replies recorded yet.').waitFor();
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await restarted.waitFor({ state: 'detached' });
  });
});
