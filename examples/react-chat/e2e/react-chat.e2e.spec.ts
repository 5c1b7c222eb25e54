// End to end in Debian's Chromium: the React page (useChat of @ai-sdk/react), built by Vite,
// served with its chat endpoint by the Hono server, the model being the OpenAI test server.
// Fails (never skips) without Chromium.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createApp } from '../src/app.js';

const APP = join(__dirname, '..');
const WEB = join(APP, 'dist', 'web');
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
jest.setTimeout(90_000);

let model: OpenAITestServer;
let server: ServerType;
let context: BrowserContext;
let page: Page;
let profile: string;
let url: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with "apt-get install -y --no-install-recommends chromium".`,
    );
  execFileSync(
    process.execPath,
    [join(APP, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'error'],
    {
      cwd: APP,
      stdio: 'pipe',
    },
  );
  model = await startOpenAITestServer({
    script: [
      {
        toolCalls: [{ id: 'l1', name: 'lookup_order', input: { order: 'A-1' } }],
        usage: { inputTokens: 10, outputTokens: 2 },
      },
      { text: ['A-1 has ', 'shipped.'], usage: { inputTokens: 20, outputTokens: 4 } },
      { toolCalls: [{ id: 'r1', name: 'refund_order', input: { order: 'A-1' } }] },
      { text: 'Refunded A-1.' },
    ],
  });
  const chat = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: createApp(chat, WEB).fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/index.html`;
  profile = mkdtempSync(join(tmpdir(), 'react-chat-e2e-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    viewport: { width: 900, height: 720 },
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(msg.text());
  });
  await page.goto(url);
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await model?.close();
});

async function send(text: string, p: Page = page): Promise<void> {
  await p.getByLabel('Message').fill(text);
  await p.getByLabel('Message').press('Enter');
}

describe('react-chat in Chromium (useChat)', () => {
  it("streams the answer with the tool's call, output and progress, the shared state and the usage", async () => {
    await send('Where is A-1?');
    await page.locator('.message.assistant .text', { hasText: 'A-1 has shipped.' }).waitFor();
    await page.locator('main[data-status="ready"]').waitFor();
    const assistant = page.locator('.message.assistant').last();
    await expect(assistant.locator('.tool').first().getAttribute('data-state')).resolves.toBe('output-available');
    await expect(assistant.locator('.output').first().textContent()).resolves.toContain('"status":"shipped"');
    await expect(assistant.locator('.progress').textContent()).resolves.toBe('looking up A-1');
    await expect(assistant.locator('.usage').textContent()).resolves.toBe('36 tokens');
    await expect(page.locator('.shared-state').textContent()).resolves.toBe('{"order":"A-1","status":"shipped"}');
    expect(pageErrors).toEqual([]);
  });

  it('asks for approval, and the approved call runs and the reply goes on', async () => {
    await send('Refund A-1');
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor();
    await approve.click();
    await page.locator('.message.assistant .text', { hasText: 'Refunded A-1.' }).waitFor();
    await expect(page.locator('.shared-state').textContent()).resolves.toBe(
      '{"order":"A-1","status":"shipped","refunded":"A-1"}',
    );
    await expect(page.locator('.tool[data-state="output-available"]').last().textContent()).resolves.toContain(
      'Refunded A-1',
    );
    await page.screenshot({ path: join(APP, '..', '..', 'test-results', 'react-chat.png') });
    expect(pageErrors).toEqual([]);
  });
});
