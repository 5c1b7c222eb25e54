// Sessions that survive restarts, tested with real processes: a reply suspends in one Node
// process and resumes in another from a FileSessionStore, against the OpenAI-compatible test
// server through the real OpenAIChatModel; a process killed (SIGKILL) while a tool runs leaves a
// state the next process resumes from without duplicated results.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import { toolResultsOf } from '../message/msg.js';
import { startOpenAITestServer, type OpenAITestServer, type ServerTurn } from '../testing/node/index.js';
import { assertConsistentConversation, assertReplyGrammar } from '../testing/index.js';

const WORKER = join(__dirname, 'fixtures', 'session-worker.ts');
const TSX = require.resolve('tsx/cli');

interface WorkerRun {
  events: AgentEvent[];
  context: Msg[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs the worker; `killOn` kills it with SIGKILL as soon as it prints that marker. */
function runWorker(env: Record<string, string>, killOn?: string): Promise<WorkerRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, WORKER], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (killOn && out.includes(killOn)) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const lines = out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; context?: Msg[] });
      const context = lines.find((l) => l.type === 'WORKER_CONTEXT')?.context ?? [];
      const events = lines.filter((l) => !l.type.startsWith('WORKER_')) as unknown as AgentEvent[];
      resolve({ events, context, code, signal, stderr });
    });
  });
}

const SCRIPT: ServerTurn[] = [
  { text: ['I will ', 'send it.'], toolCalls: [{ id: 'call_t1', name: 'transfer', input: { to: 'bob', amount: 25 } }] },
  { text: ['Done: 25 ', 'sent to bob.'] },
];

/** The conversation without volatile fields (ids and timestamps differ between runs). */
const shape = (context: readonly Msg[]) => context.map((m) => ({ role: m.role, name: m.name, content: m.content }));

describe('sessions across processes', () => {
  jest.setTimeout(60_000);
  let dir: string;
  let server: OpenAITestServer;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rxscope-xproc-'));
  });
  afterEach(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('suspends in one process and resumes in another: the tool runs once, the conversation equals an auto-approved run', async () => {
    server = await startOpenAITestServer({ script: SCRIPT });
    const log = join(dir, 'tools.log');
    await writeFile(log, '');
    const base = {
      WORKER_BASE_URL: server.url,
      WORKER_STORE_DIR: join(dir, 'store'),
      WORKER_TOOL_LOG: log,
      WORKER_PROMPT: 'Send 25 to bob',
    };

    const first = await runWorker({ ...base, WORKER_ACTION: 'ask', WORKER_SESSION_ID: 'alice' });
    expect(first.stderr).toBe('');
    expect(assertReplyGrammar(first.events).finishReason).toBe('awaiting_confirmation');
    expect(await readFile(log, 'utf8')).toBe('');

    const second = await runWorker({ ...base, WORKER_ACTION: 'confirm', WORKER_SESSION_ID: 'alice' });
    expect(second.stderr).toBe('');
    expect(assertReplyGrammar(second.events).finishReason).toBe('completed');
    expect(second.events[0]!.replyId).toBe(first.events[0]!.replyId);
    expect(await readFile(log, 'utf8')).toBe('start transfer 25 to bob\ndone transfer 25 to bob\n');
    assertConsistentConversation(second.context);

    // Reference: the same exchange in one process, approved up front.
    await server.close();
    server = await startOpenAITestServer({ script: SCRIPT });
    const reference = await runWorker({
      ...base,
      WORKER_BASE_URL: server.url,
      WORKER_ACTION: 'auto',
      WORKER_SESSION_ID: 'reference',
    });
    expect(assertReplyGrammar(reference.events).finishReason).toBe('completed');
    expect(shape(second.context)).toEqual(shape(reference.context));
  });

  // With step checkpoints (the default) a call that started and has no result is never run again,
  // and the dead process's lease holds the reply until it expires: crash-recovery.spec.ts covers
  // that. Without checkpoints, the last save is all there is.
  it('without checkpoints, a process killed while a tool runs: the next process resumes from the last saved state, no duplicated results', async () => {
    server = await startOpenAITestServer({ script: [SCRIPT[0]!, SCRIPT[1]!] });
    const log = join(dir, 'tools.log');
    await writeFile(log, '');
    const base = {
      WORKER_BASE_URL: server.url,
      WORKER_STORE_DIR: join(dir, 'store'),
      WORKER_TOOL_LOG: log,
      WORKER_PROMPT: 'Send 25 to bob',
      WORKER_SESSION_ID: 'carol',
      WORKER_CHECKPOINTS: 'off',
    };
    const asked = await runWorker({ ...base, WORKER_ACTION: 'ask' });
    expect(assertReplyGrammar(asked.events).finishReason).toBe('awaiting_confirmation');

    const killed = await runWorker(
      { ...base, WORKER_ACTION: 'confirm', WORKER_HANG_IN_TOOL: '1' },
      'WORKER_TOOL_STARTED',
    );
    expect(killed.signal).toBe('SIGKILL');
    expect(await readFile(log, 'utf8')).toBe('start transfer 25 to bob\n');

    // The last saved state is the suspension: the next process confirms again and finishes.
    const resumed = await runWorker({ ...base, WORKER_ACTION: 'confirm' });
    expect(resumed.stderr).toBe('');
    expect(assertReplyGrammar(resumed.events).finishReason).toBe('completed');
    expect(resumed.events[0]!.replyId).toBe(asked.events[0]!.replyId);
    assertConsistentConversation(resumed.context);
    const results = resumed.context.flatMap(toolResultsOf);
    expect(results.map((r) => [r.toolCallId, r.status])).toEqual([['call_t1', 'success']]);
    expect(await readFile(log, 'utf8')).toBe(
      'start transfer 25 to bob\nstart transfer 25 to bob\ndone transfer 25 to bob\n',
    );
  });
});
