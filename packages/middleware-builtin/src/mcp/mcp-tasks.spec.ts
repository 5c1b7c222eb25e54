import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type AgentEvent } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, ofType, run, start, testServerModel } from '../__tests__/helpers.js';
import { everythingStdio, probeLog, TSX, waitFor } from './__tests__/servers.js';
import { McpMiddleware } from './index.js';
import type { McpStdioServer } from './server-config.js';

const TASK_SERVER = join(__dirname, '__tests__', 'task-server.ts');
const taskServer = (log: string, env: Record<string, string> = {}, timeoutMs?: number): McpStdioServer => ({
  command: process.execPath,
  args: [TSX, TASK_SERVER],
  env: { TASK_LOG: log, ...env },
  stderr: 'ignore',
  ...(timeoutMs !== undefined ? { timeoutMs } : {}),
});
const resultOf = (events: readonly AgentEvent[]) => ofType(events, 'TOOL_RESULT_END')[0]!;
const textOf = (events: readonly AgentEvent[]) =>
  resultOf(events)
    .output.map((b) => (b.type === 'text' ? b.text : ''))
    .join('\n');

/**
 * Tools that run as MCP tasks (2025-11-25): server-everything's simulate-research-query, and a
 * task server built on the SDK's McpServer task API for a task that never completes.
 */
describe('McpMiddleware: tasks', () => {
  jest.setTimeout(60_000);
  let dir: string;
  let log: string;
  let mcp: McpMiddleware;
  let server: OpenAITestServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxscope-mcp-tasks-'));
    log = join(dir, 'tasks.log');
    mcp = await McpMiddleware.connect({
      servers: { everything: everythingStdio(), tasks: taskServer(log, {}, 1_500) },
    });
  });
  afterAll(async () => {
    await mcp?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(() => closeTestServer(server));

  const agent = () => new Agent({ model: testServerModel(server), middlewares: [mcp] });

  it("server-everything's simulate-research-query (taskSupport 'required') is offered and runs as a task, its stages as progress", async () => {
    server.enqueue(
      { toolCalls: [{ name: 'everything__simulate-research-query', input: { topic: 'rivers' } }] },
      { text: 'Here is the report.' },
    );
    const { events, end } = await run(agent(), 'Research rivers.');
    expect(end.finishReason).toBe('completed');
    expect(resultOf(events).status).toBe('success');
    expect(textOf(events)).toContain('# Research Report: rivers');
    const progress = ofType(events, 'TOOL_PROGRESS').map((e) => e.message);
    expect(progress).toEqual(expect.arrayContaining(['Gathering sources...', 'Generating report...']));
  });

  it("a task's elicitation (input_required) suspends the reply; the answer reaches the task, which completes", async () => {
    const a = agent();
    server.enqueue({
      toolCalls: [{ name: 'everything__simulate-research-query', input: { topic: 'python', ambiguous: true } }],
    });
    const first = await run(a, 'Research python.');
    expect(first.end.finishReason).toBe('awaiting_confirmation');
    const call = ofType(first.events, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls[0]!;
    expect(call.question).toMatchObject({ kind: 'mcp_elicitation', schema: { required: ['interpretation'] } });
    server.enqueue({ text: 'About snakes.' });
    const second = await run(a, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: call.id, confirmed: true, input: { interpretation: 'snake' } }],
    });
    expect(second.end.finishReason).toBe('completed');
    expect(textOf(second.events)).toContain('# Research Report: python (snake)');
  });

  it('a task that never completes is cancelled on the server when the call times out; the reply goes on', async () => {
    server.enqueue({ toolCalls: [{ name: 'tasks__never', input: {} }] }, { text: 'It timed out.' });
    const started = Date.now();
    const { events, end } = await run(agent(), 'Run it.');
    expect(end.finishReason).toBe('completed');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(resultOf(events).status).toBe('error');
    expect(textOf(events)).toMatch(
      /task \S+ of tool "never" on MCP server "tasks" did not complete within 1500 ms; it was cancelled/,
    );
    const created = probeLog(log)
      .find((l) => l.startsWith('created '))!
      .slice('created '.length);
    await waitFor(() => probeLog(log).includes(`cancelled ${created}`), 'the task cancelled on the server');
  });

  it('interrupting the reply cancels the task on the server', async () => {
    server.enqueue({ toolCalls: [{ name: 'tasks__never', input: {} }] });
    const before = probeLog(log).filter((l) => l.startsWith('created ')).length;
    const a = agent();
    const reply = start(a, 'Run it.');
    await waitFor(() => probeLog(log).filter((l) => l.startsWith('created ')).length > before, 'the task created');
    const created = probeLog(log)
      .filter((l) => l.startsWith('created '))
      .at(-1)!
      .slice('created '.length);
    a.interrupt('stop');
    await waitFor(reply.done, 'the reply ended');
    expect(ofType(reply.events, 'REPLY_END')[0]!.finishReason).toBe('interrupted');
    await waitFor(() => probeLog(log).includes(`cancelled ${created}`), 'the task cancelled on the server');
  });

  it('progress of a task tool; a tool that requires tasks on a server without them is never offered', async () => {
    server.enqueue({ toolCalls: [{ name: 'tasks__count', input: { n: 3 } }] }, { text: 'Counted.' });
    const { events } = await run(agent(), 'Count to 3.');
    expect(textOf(events)).toBe('counted to 3');
    expect(ofType(events, 'TOOL_PROGRESS').map((e) => e.message)).toEqual(
      expect.arrayContaining(['counted 1 of 3', 'counted 3 of 3']),
    );
    const without = await McpMiddleware.connect({ servers: { tasks: taskServer(log, { TASKS: '0' }) } });
    try {
      const names = without.tools().map((t) => t.name);
      expect(names).toContain('tasks__plain');
      expect(names).not.toContain('tasks__count');
    } finally {
      await without.close();
    }
  });
});
