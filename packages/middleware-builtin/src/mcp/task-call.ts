import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type Progress,
  type Tool as McpToolInfo,
} from '@modelcontextprotocol/sdk/types.js';

/** What a task-run call needs besides the tool and its arguments. */
export interface McpTaskCallOptions {
  readonly server: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?: ((progress: Progress) => void) | undefined;
}

/**
 * True when a tool runs as an MCP task (`execution.taskSupport` `'required'` or `'optional'`)
 * and the server accepts task-augmented `tools/call`.
 *
 * @example
 * ```ts
 * runsAsTask(info, client.getServerCapabilities()); // true for server-everything's simulate-research-query
 * ```
 */
export function runsAsTask(
  info: McpToolInfo | undefined,
  capabilities: ReturnType<Client['getServerCapabilities']>,
): boolean {
  const support = info?.execution?.taskSupport;
  return (support === 'required' || support === 'optional') && capabilities?.tasks?.requests?.tools?.call !== undefined;
}

/**
 * True when a tool cannot be called by this client: it requires a task and the server accepts no
 * task-augmented calls. Such a tool is never offered to the model.
 *
 * @example
 * ```ts
 * cannotRun({ name: 'x', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }, {}); // true
 * ```
 */
export function cannotRun(info: McpToolInfo, capabilities: ReturnType<Client['getServerCapabilities']>): boolean {
  return info.execution?.taskSupport === 'required' && !runsAsTask(info, capabilities);
}

/**
 * Calls a tool through the SDK's task API: the task's status messages become progress reports,
 * and the whole call (creation, polling, result) is bounded by `timeoutMs` — a task still
 * unfinished then is cancelled on the server (`tasks/cancel`) and the call fails saying so. The
 * signal cancels the task too.
 *
 * @example
 * ```ts
 * const result = await callToolAsTask(client, 'simulate-research-query', { topic: 'rivers' }, { server: 'everything', timeoutMs: 60_000 });
 * ```
 */
export async function callToolAsTask(
  client: Client,
  tool: string,
  args: Record<string, unknown>,
  options: McpTaskCallOptions,
): Promise<CallToolResult> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timed out'));
  }, options.timeoutMs);
  let taskId: string | undefined;
  let step = 0;
  let lastStatus = '';
  try {
    const stream = client.experimental.tasks.callToolStream({ name: tool, arguments: args }, CallToolResultSchema, {
      signal: controller.signal,
      timeout: options.timeoutMs,
      task: {},
      ...(options.onProgress ? { onprogress: options.onProgress } : {}),
    });
    for await (const message of stream) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      else if (message.type === 'taskStatus') {
        const status = message.task.statusMessage ?? message.task.status;
        // Polling repeats the status: report changes only.
        if (status !== lastStatus) options.onProgress?.({ progress: ++step, message: status });
        lastStatus = status;
      } else if (message.type === 'result') return message.result;
      else throw message.error;
    }
    throw new McpError(ErrorCode.InternalError, `task of tool "${tool}" ended without a result`);
  } catch (e) {
    if (controller.signal.aborted && taskId !== undefined) {
      await client.experimental.tasks.cancelTask(taskId, { timeout: 5_000 }).catch(() => undefined);
    }
    if (timedOut) {
      throw new McpError(
        ErrorCode.RequestTimeout,
        `task ${taskId ?? '(not created)'} of tool "${tool}" on MCP server "${options.server}" did not complete within ${options.timeoutMs} ms; it was cancelled`,
      );
    }
    throw e;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
