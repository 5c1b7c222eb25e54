import type { TaskInfo } from '../../tasks/index.js';

/** What `task_output` says about a task. */
export function describeTask(info: TaskInfo): string {
  const { id } = info;
  const what = `${info.kind === 'tool' ? 'tool call' : 'subagent'} "${info.name}"`;
  const seconds = Math.round(((info.endedAt ?? Date.now()) - info.startedAt) / 1000);
  if (info.status === 'queued')
    return `Task ${id} (${what}) is waiting for a worker (${seconds} s so far). Its result will arrive as a message.`;
  if (info.status === 'running')
    return `Task ${id} (${what}) is still running (${seconds} s so far). Its result will arrive as a message.`;
  const head = `Task ${id} (${what}) ${info.status} after ${seconds} s.`;
  return info.result ? `${head}\n\n${info.status === 'completed' ? 'Result' : 'Reason'}:\n${info.result}` : head;
}
