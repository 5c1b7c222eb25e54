// End to end in Debian's Chromium: a cassette file picked in the devtools UI is replayed by the
// devtools handler (its `replay` option) and opens in the same view, with a tool output over the
// recorder's string limit shown truncated with its size. Fails (never skips) without Chromium.
import { writeFileSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { Agent, type ChatModel, defineTool } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { type Cassette, RecordingMiddleware } from '@rxscope/middleware-builtin/recording';
import { DevtoolsRecorder, instrumentMiddlewares, type ReplyRecord } from '@rxscope/devtools';
import { createDevtoolsHandler } from '@rxscope/devtools/node';
import { ensureUiBuilt } from './build';
import { type Browser, launchChromium } from './chromium';

jest.setTimeout(60_000);

/** A tool whose output (120 kB) is far over the recorder's string limit. */
const report = defineTool({
  name: 'sales_report',
  description: 'The sales report of a month.',
  input: z.object({ month: z.string() }),
  execute: ({ month }) => `Sales of ${month}\n${'row;12;34;56\n'.repeat(10_000)}`,
});
const turns = [{ toolCalls: [{ name: 'sales_report', input: { month: '2026-11' } }] }, { text: 'Sales went up.' }];

let browser: Browser;
let page: Page;
let url: string;
let close: () => Promise<void>;
let cassetteFile: string;
const recorder = new DevtoolsRecorder({ maxStringLength: 1000 });

beforeAll(async () => {
  browser = await launchChromium(); // first: without Chromium, fail before building anything
  ensureUiBuilt();
  // The cassette: one reply recorded against the scripted model, saved as a file a person would pick.
  let cassette: Cassette | undefined;
  const recording = new Agent({
    name: 'analyst',
    model: new ScriptedChatModel(turns),
    tools: [report],
    middlewares: [new RecordingMiddleware({ save: (c) => void (cassette = c) })],
  });
  await recording.call('How did sales go in November?');
  cassetteFile = join(mkdtempSync(join(tmpdir(), 'devtools-cassette-')), 'sales.cassette.json');
  writeFileSync(cassetteFile, JSON.stringify(cassette));

  const handler = createDevtoolsHandler({
    recorder,
    basePath: '/_devtools',
    replay: {
      agent: (model: ChatModel) =>
        new Agent({ name: 'analyst', model, tools: [report], middlewares: instrumentMiddlewares(recorder, []) }),
    },
  });
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await close?.();
});

describe('devtools UI replay in Chromium', () => {
  it('replays a picked cassette and opens the replayed reply, its huge tool output truncated with its size', async () => {
    await page.goto(`${url}/_devtools/`);
    await page.getByText('No replies recorded yet.').waitFor();
    await page.getByLabel('Replay a cassette file').setInputFiles(cassetteFile);

    const view = page.locator('article[data-status="completed"]');
    await view.waitFor();
    const replyId = (await view.getAttribute('data-reply-id'))!;
    // The replayed reply is in the list too, like any other.
    await page.locator(`li[data-reply-id="${replyId}"]`).waitFor();

    const record = (await (await fetch(`${url}/_devtools/api/replies/${replyId}`)).json()) as ReplyRecord;
    expect(record.summary.agentName).toBe('analyst');
    const end = record.events.find((e) => e.event['type'] === 'TOOL_RESULT_END')!;
    const [part] = end.event['output'] as { text: { $truncated: true; size: number; head: string } }[];
    expect(part!.text.$truncated).toBe(true);

    const row = view.locator('table[aria-label="Tool calls"] tbody tr');
    await expect(row.locator('code.name').allTextContents()).resolves.toEqual(['sales_report']);
    await expect(row.getAttribute('data-status')).resolves.toBe('success');
    const output = row.locator('td').nth(2);
    await expect(output.locator('.truncated').textContent()).resolves.toBe(
      `truncated, ${(part!.text.size / 1000).toFixed(1)} kB`,
    );
    await expect(output.locator('pre').textContent()).resolves.toBe(`${part!.text.head}…`);
    const marbles = await view.locator('g.marble').count();
    expect(marbles).toBe(record.events.filter((e) => !String(e.event['type']).endsWith('_DELTA')).length);
  });

  it('says so when the file is not a cassette', async () => {
    const notJson = join(mkdtempSync(join(tmpdir(), 'devtools-cassette-')), 'notes.json');
    writeFileSync(notJson, 'not json at all');
    await page.getByLabel('Replay a cassette file').setInputFiles(notJson);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('not a cassette');
    const notCassette = join(mkdtempSync(join(tmpdir(), 'devtools-cassette-')), 'other.json');
    writeFileSync(notCassette, '{"hello": 1}');
    await page.getByLabel('Replay a cassette file').setInputFiles(notCassette);
    await page.getByRole('alert').filter({ hasText: 'Replay failed' }).waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('"version"');
  });
});
