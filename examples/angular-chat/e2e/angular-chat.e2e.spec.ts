// End to end in Debian's Chromium: the built Angular app, served by the node-service with its
// offline scripted model, used the way a person would. Fails (never skips) without Chromium.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startOpenAITestServer, testSpeechWav, type OpenAITestServer } from '@rxscope/core/testing/node';
import { APP_DIST, ensureAppBuilt } from './build';
import { type Browser, launchChromium } from './chromium';
import { type NodeService, startNodeService } from './node-service';

const ROOT = join(__dirname, '..', '..', '..');
const SCREENSHOT = join(ROOT, 'test-results', 'angular-chat.png');

jest.setTimeout(60_000);

let service: NodeService;
/** The speech server the service speaks its replies with (an OpenAI-compatible /v1/audio/speech). */
let speech: OpenAITestServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium(); // first: without Chromium, fail before building anything
  ensureAppBuilt();
  speech = await startOpenAITestServer();
  service = await startNodeService(APP_DIST, { TTS_BASE_URL: speech.url });
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(msg.text());
  });
  await page.goto(service.url);
  await page.locator('.chat-status[data-state="idle"]').waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await speech?.close();
});

/** The last turn of the transcript. */
const lastTurn = () => page.locator('chat-turn').last();

async function send(text: string): Promise<void> {
  const before = await page.locator('chat-turn').count();
  await page.getByLabel('Message').fill(text);
  await page.getByLabel('Message').press('Enter');
  // Until the new turn is on the page, lastTurn() is the previous, already completed one.
  await page.waitForFunction((n) => document.querySelectorAll('chat-turn').length > n, before);
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
    }).observe(document.querySelector('main')!, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  });
}

const snapshots = () =>
  page.evaluate(() => (window as unknown as { snapshots: { status: string; text: string }[] }).snapshots);

describe('angular-chat in Chromium', () => {
  it('streams a reply into the page as it arrives and shows its token usage', async () => {
    await recordLastTurn();
    await send('hello there');

    await lastTurn().and(page.locator('[data-status="completed"]')).waitFor();
    const final = 'You said: "hello there". I am the offline scripted model; set OPENAI_API_KEY to talk to a real one.';
    await expect(lastTurn().locator('.text').textContent()).resolves.toBe(final);
    await expect(lastTurn().locator('.usage').textContent()).resolves.toMatch(/\d+ in · \d+ out tokens/);

    // Text was on screen, incomplete, while the reply was still streaming.
    const partial = (await snapshots()).filter(
      (s) => s.status === 'streaming' && s.text.length > 0 && s.text.length < final.length,
    );
    expect(partial.length).toBeGreaterThan(0);
    expect(final.startsWith(partial[0]!.text)).toBe(true);
  });

  it('speaks the reply: an audio element plays the WAV joined from its audio data blocks', async () => {
    await send('say it aloud');
    await lastTurn().and(page.locator('[data-status="completed"]')).waitFor();
    const text = (await lastTurn().locator('.text').textContent())!;
    const audio = lastTurn().locator('chat-audio audio');
    await expect(audio.count()).resolves.toBe(1);
    const played = await audio.evaluate(async (el: HTMLAudioElement) => {
      if (el.readyState < 1) {
        await new Promise((resolve, reject) => {
          el.addEventListener('loadedmetadata', resolve, { once: true });
          el.addEventListener('error', () => reject(new Error(`audio error ${el.error?.code}`)), { once: true });
        });
      }
      await el.play();
      const playing = !el.paused;
      el.pause();
      const bytes = new Uint8Array(await (await fetch(el.src)).arrayBuffer());
      return { src: el.src, duration: el.duration, playing, bytes: [...bytes] };
    });
    expect(played.src).toMatch(/^blob:/);
    expect(played.playing).toBe(true);
    // The page plays exactly what the speech server produced for the reply's text.
    const spoken = speech.requests.filter((r) => r.path === '/v1/audio/speech').at(-1)!;
    expect(spoken.body['input']).toBe(text);
    const wav = testSpeechWav(text);
    expect(Buffer.from(played.bytes).equals(wav)).toBe(true);
    expect(played.duration).toBeCloseTo((wav.length - 44) / 2 / wav.readUInt32LE(24), 2);
  });

  it('asks for confirmation in a dialog, and the approved tool call runs and the reply resumes', async () => {
    await send('Please refund order A-17 (80 EUR)');

    const dialog = page.locator('dialog[open]');
    await dialog.waitFor();
    await expect(dialog.locator('.name').textContent()).resolves.toBe('refund_order');
    await expect(dialog.locator('.input').textContent()).resolves.toContain('A-17');
    await expect(lastTurn().getAttribute('data-status')).resolves.toBe('awaiting_confirmation');
    await expect(lastTurn().locator('chat-tool-call').getAttribute('data-status')).resolves.toBe(
      'awaiting_confirmation',
    );
    await page.screenshot({ path: join(ROOT, 'test-results', 'angular-chat-confirm.png') });

    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page.locator('dialog[open]').waitFor({ state: 'hidden' });

    await lastTurn().and(page.locator('[data-status="completed"]')).waitFor();
    const tool = lastTurn().locator('chat-tool-call');
    await expect(tool.getAttribute('data-status')).resolves.toBe('success');
    await expect(tool.locator('.output').textContent()).resolves.toBe('Refunded 80 EUR on order A-17.');
    await expect(lastTurn().locator('.text').last().textContent()).resolves.toBe(
      'Done: refunded 80 EUR on order A-17.',
    );
    // The tool really ran on the server, once.
    expect((await service.diagnostics()).refunds).toEqual([expect.objectContaining({ orderId: 'A-17', amount: 80 })]);
  });

  it('rejecting in the dialog denies the call: the tool does not run and the model is told', async () => {
    await send('Refund order B-2 (15 EUR)');
    const dialog = page.locator('dialog[open]');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Reject' }).click();

    await lastTurn().and(page.locator('[data-status="completed"]')).waitFor();
    await expect(lastTurn().locator('chat-tool-call').getAttribute('data-status')).resolves.toBe('denied');
    await expect(lastTurn().locator('chat-tool-call .output').textContent()).resolves.toBe(
      'The user rejected this call.',
    );
    await expect(lastTurn().locator('.text').last().textContent()).resolves.toBe('OK, I did not refund order B-2.');
    expect((await service.diagnostics()).refunds.map((r) => r.orderId)).toEqual(['A-17']);
  });

  it('shows the task list the agent writes, updated as it ticks tasks off', async () => {
    await send('Help me plan my move');

    await lastTurn().and(page.locator('[data-status="completed"]')).waitFor();
    const tasks = lastTurn().locator('chat-task-list');
    const texts = await tasks.locator('.todo').allTextContents();
    expect(texts.map((t) => t.replace(/^\s*[○◐✓]\s*/u, '').trim())).toEqual([
      'Pack the boxes',
      'Book the van',
      'Change the address',
    ]);
    // The list shown is the last one written: every task ticked off.
    await expect(tasks.locator('.todo[data-status="completed"]').count()).resolves.toBe(3);
    await expect(tasks.locator('.count').textContent()).resolves.toBe('3/3');
    await expect(lastTurn().locator('chat-tool-call').count()).resolves.toBe(2);
    await expect(lastTurn().locator('.text').last().textContent()).resolves.toBe(
      'Your move is planned: boxes packed, van booked, address changed.',
    );
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
    const before = await service.diagnostics();
    expect(before.running).toHaveLength(1);
    const storyRequest = before.modelRequests.at(-1)!;
    expect(storyRequest).toMatchObject({ completed: false, clientClosed: false });

    await page.getByRole('button', { name: 'Cancel' }).click();
    await lastTurn().and(page.locator('[data-status="cancelled"]')).waitFor();
    const cut = await lastTurn().locator('.text').textContent();

    // The server stopped the reply: no session runs, and the offline model server saw its
    // streaming request closed by the client (the agent aborted it) before it completed.
    await waitFor(async () => {
      const after = await service.diagnostics();
      return after.running.length === 0 && after.modelRequests[storyRequest.index]?.clientClosed === true;
    });
    expect((await service.diagnostics()).modelRequests[storyRequest.index]).toMatchObject({
      completed: false,
      clientClosed: true,
    });
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
