// @rxscope/angular as a newcomer gets it before it is published: every public package is packed
// (scripts/pack-tarballs.cjs, ng-packagr for this one), the core and Angular tarballs are
// installed with plain npm into a fresh Angular app outside the workspace (Angular from the npm
// registry, the workspace's versions), the app is built with `ng build`, served beside a real
// createAgentSseHandler endpoint, and used in Debian's Chromium: a reply streams and asks for a
// confirmation, the click resumes it, the tool runs on the server. Fails, never skips.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize } from 'node:path';
import type { Page } from 'playwright-core';
import { Agent, defineTool, jsonSchemaInput } from '@rxscope/core';
import { createAgentSseHandler } from '@rxscope/core/node';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { packTarballs } from '../../../scripts/pack-tarballs.cjs';
import { type Browser, launchChromium } from './chromium';
import { catalogVersion, consumerAppFiles } from './consumer-app';

const ROOT = join(__dirname, '..', '..', '..');
const SCREENSHOT = join(ROOT, 'test-results', 'angular-consumer.png');
const REPLY = ['Order 7 ', 'is ', 'refunded ', 'to ', 'the ', 'card ', 'it ', 'was ', 'paid ', 'with.'];

jest.setTimeout(60_000);

let sandbox = '';
let browser: Browser;
let server: Server;
let url = '';
const refunds: string[] = [];
const pageErrors: string[] = [];

/** Runs a command in the app folder; its output is in the error when it fails. */
function run(command: string, args: string[], cwd: string, timeout: number): void {
  try {
    execFileSync(command, args, {
      cwd,
      timeout,
      encoding: 'utf8',
      stdio: 'pipe',
      env: { ...process.env, NG_CLI_ANALYTICS: 'false', npm_config_update_notifier: 'false' },
    });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`, {
      cause: e,
    });
  }
}

/** The built app's files, and the agent's endpoint at POST /chat. */
function serve(browserDir: string): Promise<Server> {
  const refund = defineTool({
    name: 'refund_order',
    description: 'Refunds an order.',
    input: jsonSchemaInput<{ orderId: string }>({
      type: 'object',
      properties: { orderId: { type: 'string' } },
      required: ['orderId'],
    }),
    needsApproval: true,
    execute: ({ orderId }) => {
      refunds.push(orderId);
      return `Refunded order ${orderId}.`;
    },
  });
  const model = new ScriptedChatModel(
    [
      { text: ['Let me refund that.'], toolCalls: [{ name: 'refund_order', input: { orderId: '7' } }] },
      { text: REPLY },
    ],
    { delayMs: 60 },
  );
  const agent = new Agent({ name: 'assistant', model, tools: [refund] });
  const chat = createAgentSseHandler({
    sessionId: 'consumer',
    events: async (_req, { body }) => {
      const request = (await body()) as { message?: string; confirmations?: never };
      return request.confirmations
        ? agent.reply({ type: 'USER_CONFIRM_RESULT', results: request.confirmations })
        : agent.reply(request.message ?? '');
    },
  });
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
  const s = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://app').pathname;
    if (req.method === 'POST' && path === '/chat') return void chat(req, res);
    const file = normalize(join(browserDir, path === '/' ? 'index.html' : path));
    try {
      if (!file.startsWith(browserDir)) throw new Error('outside');
      const content = readFileSync(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(content);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

beforeAll(async () => {
  browser = await launchChromium(); // first: without Chromium, fail before installing anything
  sandbox = mkdtempSync(join(tmpdir(), 'rxscope-angular-consumer-'));
  const tarballs = packTarballs(join(sandbox, 'tarballs'));
  const tarball = (name: string) => `file:${tarballs.find((t) => t.name === name)!.tarball}`;
  const yaml = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8');
  const v = (name: string) => catalogVersion(yaml, name);
  const app = join(sandbox, 'my-angular-app');
  const files = consumerAppFiles(
    {
      '@angular/common': v('@angular/common'),
      '@angular/compiler': v('@angular/compiler'),
      '@angular/core': v('@angular/core'),
      '@angular/platform-browser': v('@angular/platform-browser'),
      '@rxscope/angular': tarball('@rxscope/angular'),
      '@rxscope/core': tarball('@rxscope/core'),
      rxjs: v('rxjs'),
      tslib: v('tslib'),
    },
    {
      '@angular/build': v('@angular/build'),
      '@angular/cli': v('@angular/cli'),
      '@angular/compiler-cli': v('@angular/compiler-cli'),
      typescript: v('typescript'),
    },
  );
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(app, path)), { recursive: true });
    writeFileSync(join(app, path), content);
  }
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], app, 480_000);
  run(process.execPath, [join(app, 'node_modules', '@angular', 'cli', 'bin', 'ng.js'), 'build'], app, 300_000);
  server = await serve(join(app, 'dist', 'browser'));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}, 900_000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (sandbox) rmSync(sandbox, { recursive: true, force: true });
});

describe('@rxscope/angular from its tarball, in a fresh Angular app (Chromium)', () => {
  let page: Page;

  it('streams a reply that asks for a confirmation; approving resumes it and the tool runs', async () => {
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(msg.text());
    });
    await page.goto(url);
    await page.locator('#status', { hasText: 'idle' }).waitFor();

    await page.locator('#send').click();
    const approve = page.locator('button.approve');
    await approve.waitFor();
    await expect(approve.textContent()).resolves.toBe('Approve refund_order {"orderId":"7"}');
    await expect(page.locator('#status').textContent()).resolves.toBe('awaiting_confirmation');
    await expect(page.locator('.call').getAttribute('data-status')).resolves.toBe('awaiting_confirmation');
    expect(refunds).toEqual([]);

    await approve.click();
    // The resumed reply streams into the page: part of it is on screen before the end.
    const final = `Let me refund that.${REPLY.join('')}`;
    const partial = await page.waitForFunction((full) => {
      const text = document.querySelector('#streaming')?.textContent ?? '';
      return text.length > 'Let me refund that.'.length && text !== full ? text : false;
    }, final);
    expect(final.startsWith(String(await partial.jsonValue()))).toBe(true);

    await page.locator('#status', { hasText: 'idle' }).waitFor();
    await expect(page.locator('.message[data-role="assistant"]').textContent()).resolves.toBe(final);
    await expect(page.locator('.call').getAttribute('data-status')).resolves.toBe('success');
    await expect(page.locator('.call').textContent()).resolves.toBe('refund_order Refunded order 7.');
    await expect(page.locator('button.approve').count()).resolves.toBe(0);
    expect(refunds).toEqual(['7']);

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
