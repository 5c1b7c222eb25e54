// End to end in Debian's Chromium: the built Angular app, served by the node-service with its
// offline scripted model, used the way a person would. Fails (never skips) without Chromium.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { type Browser, launchChromium } from './chromium';
import { type FakeService, startFakeService } from './fake-service';

const ROOT = join(__dirname, '..', '..', '..');
const APP = join(ROOT, 'examples', 'angular-chat');
const STATIC_DIR = join(APP, 'dist', 'browser');
const SCREENSHOT = join(ROOT, 'test-results', 'angular-chat.png');

jest.setTimeout(60_000);

let service: FakeService;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  // The app bundles @rxscope/core from its dist: build the core, then the app.
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/core'], { cwd: ROOT, stdio: 'pipe' });
  execFileSync(process.execPath, [join(APP, 'node_modules', '@angular', 'cli', 'bin', 'ng.js'), 'build'], {
    cwd: APP,
    stdio: 'pipe',
    env: { ...process.env, NG_CLI_ANALYTICS: 'false' },
  });
  service = await startFakeService(STATIC_DIR);
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(msg.text());
  });
  await page.goto(service.url);
  await page.locator('.connection[data-state="live"]').waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** The last turn of the transcript. */
const lastTurn = () => page.locator('chat-turn').last();

async function send(text: string): Promise<void> {
  await page.getByLabel('Message').fill(text);
  await page.getByLabel('Message').press('Enter');
}

/** Records, in the page, the last turn's status and text after every DOM change. */
async function recordLastTurn(): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { snapshots: { status: string; text: string }[] };
    w.snapshots = [];
    new MutationObserver(() => {
      const turns = document.querySelectorAll('chat-turn');
      const turn = turns[turns.length - 1];
      if (!turn) return;
      const text = [...turn.querySelectorAll('.text')].map((p) => p.textContent ?? '').join('');
      w.snapshots.push({ status: turn.getAttribute('data-status') ?? '', text });
    }).observe(document.querySelector('main')!, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

const snapshots = () => page.evaluate(() => (window as unknown as { snapshots: { status: string; text: string }[] }).snapshots);

describe('angular-chat in Chromium', () => {
  it('streams a reply into the page as it arrives and shows its token usage', async () => {
    await recordLastTurn();
    await send('hello there');

    await lastTurn().and(page.locator('[data-status="completed"]')).waitFor();
    const final = 'You said: "hello there"';
    await expect(lastTurn().locator('.text').textContent()).resolves.toBe(final);
    await expect(lastTurn().locator('.usage').textContent()).resolves.toMatch(/\d+ in · \d+ out tokens/);

    // Text was on screen, incomplete, while the reply was still streaming.
    const partial = (await snapshots()).filter((s) => s.status === 'streaming' && s.text.length > 0 && s.text.length < final.length);
    expect(partial.length).toBeGreaterThan(0);
    expect(final.startsWith(partial[0]!.text)).toBe(true);
  });

  it('asks for confirmation in a dialog, and the approved tool call runs and the reply resumes', async () => {
    await send('Please refund order A-17 (80 EUR)');

    const dialog = page.locator('dialog[open]');
    await dialog.waitFor();
    await expect(dialog.locator('.name').textContent()).resolves.toBe('refund_order');
    await expect(dialog.locator('.input').textContent()).resolves.toContain('A-17');
    await expect(lastTurn().getAttribute('data-status')).resolves.toBe('awaiting_confirmation');
    await expect(lastTurn().locator('chat-tool-call').getAttribute('data-status')).resolves.toBe('awaiting_confirmation');
    await page.screenshot({ path: join(ROOT, 'test-results', 'angular-chat-confirm.png') });

    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page.locator('dialog[open]').waitFor({ state: 'hidden' });

    await lastTurn().and(page.locator('[data-status="completed"]')).waitFor();
    const tool = lastTurn().locator('chat-tool-call');
    await expect(tool.getAttribute('data-status')).resolves.toBe('success');
    await expect(tool.locator('.output').textContent()).resolves.toContain('80');
    await expect(lastTurn().locator('.text').last().textContent()).resolves.toBe('Done: refunded 80 EUR on order A-17.');
  });

  it('cancels a long reply: the stream stops in the page and the server stops the reply', async () => {
    await recordLastTurn();
    await send('tell me a story');

    // Partial text while streaming, growing.
    await page.waitForFunction(() => {
      const turns = document.querySelectorAll('chat-turn');
      const text = turns[turns.length - 1]?.querySelector('.text')?.textContent ?? '';
      return text.split(' ').length > 5;
    });
    const seen = (await snapshots()).filter((s) => s.status === 'streaming' && s.text.length > 0);
    expect(new Set(seen.map((s) => s.text)).size).toBeGreaterThan(2);
    const replyId = await lastTurn().getAttribute('data-reply-id');

    await page.getByRole('button', { name: 'Cancel' }).click();
    await lastTurn().and(page.locator('[data-status="cancelled"]')).waitFor();
    const cut = await lastTurn().locator('.text').textContent();

    // The server saw the cancel and stopped the reply.
    await waitFor(() => service.cancelled.includes(replyId!));
    // Nothing more arrives in the page after the cancel.
    await page.waitForTimeout(400);
    await expect(lastTurn().locator('.text').textContent()).resolves.toBe(cut);
    await page.getByRole('button', { name: 'Send' }).waitFor();

    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
