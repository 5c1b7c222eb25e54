/**
 * rxscope coding agent: a terminal coding assistant built with @rxscope/harness. It works on a
 * small project in a temporary workspace: plans the fix in plan mode (you approve the plan),
 * edits the code, runs the tests in a sandbox (you approve the command), keeps a task list, and
 * compacts its history before the next task.
 *
 *   node examples/coding-agent/dist/main.js            offline: a scripted model on a local test server
 *   OPENAI_API_KEY=sk-... node examples/coding-agent/dist/main.js
 *
 * Options: --yes (approve every request), --sandbox local|bubblewrap (default: bubblewrap when
 * installed), --keep (keep the workspace), --devtools (record every reply and serve the devtools
 * on 127.0.0.1; the URL is printed, and the program waits for Enter before it exits so the
 * timeline can be read; also RXSCOPE_DEVTOOLS=1). Environment: OPENAI_API_KEY, OPENAI_BASE_URL,
 * OPENAI_MODEL (default gpt-4o-mini), DEVTOOLS_PORT (default: any free port), NO_COLOR.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { lastValueFrom, tap } from 'rxjs';
import type { Agent, AgentEvent, ReplyEndEvent, ReplyInput } from '@rxscope/core';
import { DevtoolsMiddleware, DevtoolsRecorder } from '@rxscope/devtools';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { createHarnessAgent, describeHarness, presets } from '@rxscope/harness';
import { startOfflineModel } from './offline.js';
import { renderEvent } from './render.js';
import { startDevtools } from './devtools.js';
import { TASKS, writeProject } from './project.js';

const hasBwrap = () => {
  try {
    execFileSync('bwrap', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

async function main(argv: readonly string[]): Promise<number> {
  const env = process.env;
  const color = Boolean(process.stdout.isTTY) && !env['NO_COLOR'];
  const out = (s: string) => process.stdout.write(s);
  const yes = argv.includes('--yes');
  const sandboxArg = argv[argv.indexOf('--sandbox') + 1];
  const sandbox = argv.includes('--sandbox')
    ? (sandboxArg as 'local' | 'bubblewrap')
    : hasBwrap()
      ? 'bubblewrap'
      : 'local';
  const workspace = mkdtempSync(join(tmpdir(), 'rxscope-coding-agent-'));
  writeProject(workspace);

  let model: OpenAIChatModel;
  let stop = async () => {};
  const offline = !env['OPENAI_API_KEY'];
  if (!offline) {
    const name = env['OPENAI_MODEL'] || 'gpt-4o-mini';
    const baseURL = env['OPENAI_BASE_URL'] || undefined;
    model = new OpenAIChatModel({ model: name, apiKey: env['OPENAI_API_KEY'], ...(baseURL ? { baseURL } : {}) });
    out(`rxscope coding agent · ${name}\n`);
  } else {
    const server = await startOfflineModel();
    stop = () => server.close();
    model = new OpenAIChatModel({ model: 'offline-scripted', apiKey: 'offline', baseURL: server.url });
    out(
      'rxscope coding agent · offline scripted model (set OPENAI_API_KEY for a real one); the tools, sandbox and harness are real\n',
    );
  }

  const devtools = argv.includes('--devtools') || env['RXSCOPE_DEVTOOLS'] === '1';
  // The harness description goes into every reply's record (which parts are on, in chain order).
  const recorder = devtools ? new DevtoolsRecorder({ describe: (a) => describeHarness(a as Agent) }) : undefined;
  const devtoolsServer = recorder ? await startDevtools(recorder, Number(env['DEVTOOLS_PORT'] ?? 0)) : undefined;
  if (devtoolsServer) out(`devtools: ${devtoolsServer.url}\n`);

  const agent = createHarnessAgent({
    ...presets.coding(),
    ...(recorder ? { middlewares: [new DevtoolsMiddleware({ recorder })] } : {}),
    name: 'coder',
    model,
    workspace,
    sandbox,
    maxIters: 30,
    // Small on purpose, so the demo shows a compaction before the second task.
    compaction: { triggerMessages: 2, keepTokens: 400 },
  });
  out(`workspace: ${workspace} · sandbox: ${sandbox}\n`);
  for (const part of describeHarness(agent).parts)
    out(`  ${part.enabled ? 'on ' : 'off'} ${part.name}: ${part.reason}\n`);

  // Approvals: asked on a terminal, automatic offline or with --yes, refused otherwise.
  const ask = async (question: string): Promise<boolean> => {
    if (yes || (offline && !process.stdin.isTTY)) {
      out(`  (approved${yes ? ': --yes' : ': offline demo'})\n`);
      return true;
    }
    if (!process.stdin.isTTY) return false;
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
    } finally {
      rl.close();
    }
  };

  process.once('SIGINT', () => agent.interrupt('stopped with Ctrl-C'));
  try {
    for (const task of TASKS) {
      out(`\n› ${task}\n`);
      let end = await runReply(agent, task, color);
      while (end?.finishReason === 'awaiting_confirmation') {
        const pending = agent.pending!.confirm;
        const results = [];
        for (const call of pending) results.push({ toolCallId: call.id, confirmed: await ask(`Allow ${call.name}?`) });
        end = await runReply(agent, { type: 'USER_CONFIRM_RESULT', results }, color);
      }
      if (end?.finishReason !== 'completed') return 1;
    }
    const check = execFileSync('node', ['test.js'], { cwd: workspace, encoding: 'utf8' });
    out(`\nnode test.js in the workspace: ${check}`);
    return 0;
  } finally {
    if (devtoolsServer) {
      out(`\ndevtools still on ${devtoolsServer.url}: press Enter to exit\n`);
      await devtoolsServer.untilEnter();
      await devtoolsServer.close();
    }
    await stop();
    if (!argv.includes('--keep')) rmSync(workspace, { recursive: true, force: true });
  }
}

function runReply(agent: Agent, input: ReplyInput, color: boolean): Promise<ReplyEndEvent | undefined> {
  let end: ReplyEndEvent | undefined;
  return lastValueFrom(
    agent.reply(input).pipe(
      tap((e: AgentEvent) => {
        if (e.source !== agent.name) return;
        process.stdout.write(renderEvent(e, color));
        if (e.type === 'REPLY_END') end = e;
      }),
    ),
    { defaultValue: undefined },
  ).then(() => end);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`coding agent failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
