// An MCP server with task-based tools (MCP 2025-11-25 tasks), built on the official SDK's
// McpServer and its experimental task API, over stdio; run with tsx.
//   TASK_LOG  file to which it appends one line per event the test wants to see
//   TASKS=0   declare no `tasks` capability (its task tools then cannot be called)
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const log = (line: string) => {
  if (process.env['TASK_LOG']) appendFileSync(process.env['TASK_LOG'], `${line}\n`);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const withTasks = process.env['TASKS'] !== '0';
const taskStore = new InMemoryTaskStore();

const server = new McpServer(
  { name: 'tasks', version: '1.0.0' },
  {
    capabilities: {
      tools: {},
      ...(withTasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
    },
    ...(withTasks ? { taskStore } : {}),
  },
);

server.experimental.tasks.registerToolTask(
  'count',
  {
    description: 'Counts to n, one step every 100 ms, as a task.',
    inputSchema: { n: z.number().int().min(1).max(20) },
    execution: { taskSupport: 'required' },
  },
  {
    createTask: async ({ n }, extra) => {
      const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 50 });
      void (async () => {
        for (let i = 1; i <= n; i++) {
          await sleep(100);
          await extra.taskStore.updateTaskStatus(task.taskId, 'working', `counted ${i} of ${n}`);
        }
        await extra.taskStore.storeTaskResult(task.taskId, 'completed', {
          content: [{ type: 'text', text: `counted to ${n}` }],
        });
      })();
      return { task };
    },
    getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
    getTaskResult: (_args, extra) => extra.taskStore.getTaskResult(extra.taskId) as Promise<CallToolResult>,
  },
);

server.experimental.tasks.registerToolTask(
  'never',
  { description: 'Starts a task that never completes.', inputSchema: {}, execution: { taskSupport: 'optional' } },
  {
    createTask: async (_args, extra) => {
      const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 50 });
      log(`created ${task.taskId}`);
      // Watches its own status: a client's tasks/cancel shows up here.
      void (async () => {
        for (;;) {
          await sleep(50);
          const now = await extra.taskStore.getTask(task.taskId);
          if (now?.status === 'cancelled') return log(`cancelled ${task.taskId}`);
        }
      })();
      return { task };
    },
    getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
    getTaskResult: (_args, extra) => extra.taskStore.getTaskResult(extra.taskId) as Promise<CallToolResult>,
  },
);

server.registerTool('plain', { description: 'An ordinary tool.' }, () => ({
  content: [{ type: 'text', text: 'plain result' }],
}));

void server.connect(new StdioServerTransport());
