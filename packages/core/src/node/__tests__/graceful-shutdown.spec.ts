// Graceful shutdown with real processes: a Node service receives SIGTERM while a tool runs, lets
// the tool finish, saves the reply to a FileSessionStore and exits 0; a second process resumes the
// session with RESUME_REPLY and completes the reply. Against the OpenAI-compatible test server
// through the real OpenAIChatModel; no tool call is lost or run twice.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent } from '../../event/events.js';
import type { Msg } from '../../message/blocks.js';
import { toolResultsOf } from '../../message/msg.js';
import { parseAgentState } from '../../state/snapshot.js';
import { assertConsistentConversation, assertReplyGrammar } from '../../testing/index.js';
import { startOpenAITestServer, type OpenAITestServer, type ServerTurn } from '../../testing/node/index.js';

const WORKER = join(__dirname, 'fixtures', 'shutdown-worker.ts');
const TSX = require.resolve('tsx/cli');

interface WorkerRun {
  events: AgentEvent[];
  notes: Array<{ type: string; [key: string]: unknown }>;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs the worker; `termOn` sends it SIGTERM as soon as it prints that marker. */
function runWorker(env: Record<string, string>, termOn?: string): Promise<WorkerRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, WORKER], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let stderr = '';
    let termed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (termOn && !termed && out.includes(termOn)) {
        termed = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const lines = out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; [key: string]: unknown });
      const notes = lines.filter((l) => l.type.startsWith('WORKER_'));
      const events = lines.filter((l) => !l.type.startsWith('WORKER_')) as unknown as AgentEvent[];
      resolve({ events, notes, code, signal, stderr });
    });
  });
}

const SCRIPT: ServerTurn[] = [
  {
    text: ['Packing both ', 'orders.'],
    toolCalls: [
      { id: 'call_1', name: 'pack_order', arguments: { order: 1 } },
      { id: 'call_2', name: 'pack_order', arguments: { order: 2 } },
    ],
  },
  { text: ['Both orders ', 'are packed.'] },
];

describe('graceful shutdown across processes', () => {
  jest.setTimeout(60_000);
  let dir: string;
  let server: OpenAITestServer;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rxscope-shutdown-'));
  });
  afterEach(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('SIGTERM mid-tool: the tool finishes, the process exits 0 with the reply saved; the next process resumes and completes it', async () => {
    server = await startOpenAITestServer({ script: SCRIPT });
    const log = join(dir, 'tools.log');
    await writeFile(log, '');
    const store = join(dir, 'store');
    const base = {
      WORKER_BASE_URL: server.url,
      WORKER_STORE_DIR: store,
      WORKER_SESSION_ID: 'orders',
      WORKER_TOOL_LOG: log,
      WORKER_TOOL_MS: '400',
      WORKER_GRACE_MS: '20000',
      WORKER_PROMPT: 'Pack orders 1 and 2',
    };

    const first = await runWorker({ ...base, WORKER_ACTION: 'start' }, 'WORKER_TOOL_STARTED');
    expect(first.stderr).toBe('');
    expect([first.code, first.signal]).toEqual([0, null]);
    const end = assertReplyGrammar(first.events);
    expect(end).toMatchObject({
      finishReason: 'shutdown',
      stopReason: { code: 'shutdown', message: 'received SIGTERM' },
    });
    expect(first.notes.find((n) => n.type === 'WORKER_SHUTDOWN')).toMatchObject({
      report: { reason: 'received SIGTERM', suspended: ['orders'] },
    });
    // The running call finished within the grace period; the second never started.
    expect(await readFile(log, 'utf8')).toBe('start 1\ndone 1\n');
    const saved = parseAgentState(
      (JSON.parse(await readFile(join(store, 'orders.json'), 'utf8')) as { state: unknown }).state,
    );
    expect(saved.pending).toMatchObject({ replyId: end.replyId, shutdown: { reason: 'received SIGTERM' } });
    expect(toolResultsOf(saved.pending!.message).map((r) => [r.toolCallId, r.status])).toEqual([['call_1', 'success']]);

    const second = await runWorker({ ...base, WORKER_ACTION: 'resume' });
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(assertReplyGrammar(second.events)).toMatchObject({ finishReason: 'completed', replyId: end.replyId });
    const answer = second.events.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('');
    expect(answer).toBe('Both orders are packed.');
    expect(await readFile(log, 'utf8')).toBe('start 1\ndone 1\nstart 2\ndone 2\n');

    const context = (second.notes.find((n) => n.type === 'WORKER_CONTEXT')!.context ?? []) as Msg[];
    assertConsistentConversation(context);
    expect(context.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(context.flatMap(toolResultsOf).map((r) => [r.toolCallId, r.status, r.output])).toEqual([
      ['call_1', 'success', [{ type: 'text', text: 'order 1 packed' }]],
      ['call_2', 'success', [{ type: 'text', text: 'order 2 packed' }]],
    ]);
    // The model was asked twice in all: once before the shutdown, once after both results were in.
    const chats = server.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(chats).toHaveLength(2);
    const lastMessages = (chats[1]!.body as { messages: Array<{ role: string; tool_call_id?: string }> }).messages;
    expect(lastMessages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['call_1', 'call_2']);
  });

  it('a tool that outlives the grace period is cut off and answered interrupted, never run twice; the resume asks the model', async () => {
    server = await startOpenAITestServer({ script: [SCRIPT[0]!, { text: 'Order 1 was cut off; order 2 is packed.' }] });
    const log = join(dir, 'tools.log');
    await writeFile(log, '');
    const base = {
      WORKER_BASE_URL: server.url,
      WORKER_STORE_DIR: join(dir, 'store'),
      WORKER_SESSION_ID: 'cut',
      WORKER_TOOL_LOG: log,
      WORKER_TOOL_MS: '30000',
      WORKER_GRACE_MS: '200',
      WORKER_PROMPT: 'Pack orders 1 and 2',
    };
    const first = await runWorker({ ...base, WORKER_ACTION: 'start' }, 'WORKER_TOOL_STARTED');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(assertReplyGrammar(first.events).finishReason).toBe('shutdown');
    expect(first.events.find((e) => e.type === 'TOOL_RESULT_END')).toMatchObject({
      toolCallId: 'call_1',
      status: 'interrupted',
    });

    const second = await runWorker({ ...base, WORKER_ACTION: 'resume', WORKER_TOOL_MS: '10' });
    expect(second.stderr).toBe('');
    expect(assertReplyGrammar(second.events).finishReason).toBe('completed');
    expect(await readFile(log, 'utf8')).toBe('start 1\nstart 2\ndone 2\n');
    const context = (second.notes.find((n) => n.type === 'WORKER_CONTEXT')!.context ?? []) as Msg[];
    assertConsistentConversation(context);
    expect(context.flatMap(toolResultsOf).map((r) => [r.toolCallId, r.status])).toEqual([
      ['call_1', 'interrupted'],
      ['call_2', 'success'],
    ]);
  });
});
