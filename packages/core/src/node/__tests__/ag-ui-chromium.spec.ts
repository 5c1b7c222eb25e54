// The AG-UI endpoint in Debian's Chromium: @ag-ui/client's HttpAgent (RxscopeHttpAgent) bundled
// into a real page, for the shared state, the activity of a running tool, and a reconnect after
// the page reloaded mid-run. Fails (never skips) without Chromium.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { z } from 'zod';
import { Agent, defineTool } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { createAgUiHandler } from '../ag-ui/index.js';
import { InMemorySessionEventBus } from '../index.js';
import { listen, type Listening } from './helpers.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
jest.setTimeout(60_000);

let release: () => void = () => undefined;
let gate: Promise<void> = Promise.resolve();
const book = defineTool({
  name: 'book',
  description: 'Books a seat',
  input: z.object({ seat: z.string() }),
  execute: async ({ seat }, toolCtx) => {
    const state = toolCtx.sharedState!;
    state.set({ ...state.get(), seat, status: 'holding' });
    toolCtx.emit({ message: `holding seat ${seat}`, progress: 1, total: 2 });
    await gate;
    state.patch([{ op: 'replace', path: '/status', value: 'booked' }]);
    toolCtx.emit({ message: `booked seat ${seat}`, progress: 2, total: 2 });
    return `booked ${seat}`;
  },
});

let model: OpenAITestServer;
let http: Listening;
let context: BrowserContext;
let page: Page;
let profile: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with "apt-get install -y --no-install-recommends chromium".`,
    );
  const bundle = await build({
    entryPoints: [join(__dirname, 'fixtures', 'ag-ui-page.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  model = await startOpenAITestServer({
    handler: (_req, i) =>
      i % 2 === 0 ? { toolCalls: [{ name: 'book', input: { seat: '12A' } }] } : { text: 'Seat booked.' },
  });
  const chat = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url });
  const agUi = createAgUiHandler({
    heartbeatMs: 0,
    bus: new InMemorySessionEventBus(),
    disconnect: 'continue',
    agent: (threadId) => new Agent({ name: 'booking', model: chat, tools: [book], sessionId: threadId }),
  });
  http = await listen((req, res) => {
    if (req.url?.startsWith('/agui')) return agUi(req, res);
    if (req.url === '/app.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    res.writeHead(200, { 'content-type': 'text/html' });
    return res.end(
      '<!doctype html><pre id="state"></pre><pre id="activity"></pre><pre id="messages"></pre><script type="module" src="/app.js"></script>',
    );
  });
  profile = mkdtempSync(join(tmpdir(), 'ag-ui-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (err) => pageErrors.push(err.message));
}, 60_000);

afterAll(async () => {
  release();
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await http?.close();
  await model?.close();
});

const text = (id: string) => page.locator(`#${id}`).textContent();

describe('AG-UI in Chromium with @ag-ui/client', () => {
  it("shows the agent's shared state (the page's own state folded in) and the tool's activity", async () => {
    gate = Promise.resolve();
    await page.goto(`${http.url}/?thread=t1`);
    await page.evaluate(() =>
      (window as unknown as { send: (t: string, s: object) => void }).send('Book 12A', { traveller: 'Ada' }),
    );
    await page.locator('body[data-run="finished"]').waitFor();
    expect(JSON.parse((await text('state'))!)).toEqual({ traveller: 'Ada', seat: '12A', status: 'booked' });
    expect(JSON.parse((await text('activity'))!)).toEqual({
      toolCallId: expect.any(String),
      message: 'booked seat 12A',
      progress: 2,
      total: 2,
    });
    expect(await text('messages')).toContain('assistant: Seat booked.');
    expect(pageErrors).toEqual([]);
  });

  it('reconnects after a reload mid-run: the running run is replayed and followed to its end', async () => {
    gate = new Promise((resolve) => (release = resolve));
    await page.goto(`${http.url}/?thread=t2`);
    await page.evaluate(() => (window as unknown as { send: (t: string) => void }).send('Book 12A'));
    await page.waitForFunction(() => document.querySelector('#activity')!.textContent.includes('holding seat 12A'));
    await page.reload(); // the request goes away with the page; the run goes on (disconnect: 'continue')
    expect(await text('state')).toBe('{}');
    await page.evaluate(() => (window as unknown as { reconnect: () => void }).reconnect());
    await page.waitForFunction(() => document.querySelector('#state')!.textContent.includes('holding'));
    release();
    await page.locator('body[data-run="finished"]').waitFor();
    expect(JSON.parse((await text('state'))!)).toEqual({ seat: '12A', status: 'booked' });
    expect(await text('messages')).toMatch(/user: Book 12A[\s\S]*assistant: Seat booked\./);
    await page.screenshot({
      path: join(__dirname, '..', '..', '..', '..', '..', 'test-results', 'ag-ui-chromium.png'),
    });
    expect(pageErrors).toEqual([]);
  });
});
