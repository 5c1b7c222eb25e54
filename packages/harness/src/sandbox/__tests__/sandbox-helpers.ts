// Helpers of the sandbox specs: collect a command's exit, wait for a condition, find the processes
// a command left behind, and run the agent-like process of agent-process.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lastValueFrom, type Observable, toArray } from 'rxjs';
import type { ExecEvent } from '../sandbox.js';

export type Exit = Extract<ExecEvent, { type: 'exit' }>;

/** The exit event of a command run to its end. */
export const exitOf = async (run: Observable<ExecEvent>): Promise<Exit> => {
  const events = await lastValueFrom(run.pipe(toArray()));
  return events.find((e): e is Exit => e.type === 'exit')!;
};

/** Polls `check` until true; fails after `ms`. */
export const waitFor = async (check: () => boolean, ms = 5000, what = 'condition'): Promise<void> => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const read = (file: string) => {
  try {
    return readFileSync(file, 'latin1');
  } catch {
    return '';
  }
};

/**
 * Host pids of the running processes (zombies left out) whose command line or environment holds
 * `marker`: a command that starts with `export MARK=<marker>` marks every process it starts,
 * through `exec` and `setsid` too; its wrappers carry the marker in their command lines.
 */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const stat = read(`/proc/${entry}/stat`);
    if (stat === '' || stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
    if (read(`/proc/${entry}/cmdline`).includes(marker) || read(`/proc/${entry}/environ`).includes(marker)) {
      found.push(Number(entry));
    }
  }
  return found;
}

/**
 * tsx's loader (a dev dependency of @rxscope/core), which lets node run agent-process.ts in the
 * node process itself: the `tsx` command would run it in a child, and a SIGKILL would miss it.
 */
const TSX_LOADER = pathToFileURL(
  require.resolve('tsx/esm', { paths: [dirname(require.resolve('@rxscope/core/package.json'))] }),
).href;

/** The agent-like process: runs `command` in a sandbox of `kind`; its stdout holds the exec events as NDJSON. */
export function startAgentProcess(
  kind: 'local' | 'bubblewrap',
  workspace: string,
  command: string,
  options: { readonly env?: Record<string, string>; readonly isolation?: string } = {},
): { child: ChildProcess; events: () => ExecEvent[]; stderr: () => string } {
  const args = ['--import', TSX_LOADER, join(__dirname, 'agent-process.ts'), kind, workspace, command];
  if (options.isolation) args.push(options.isolation);
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const events = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ExecEvent);
  return { child, events, stderr: () => err };
}
