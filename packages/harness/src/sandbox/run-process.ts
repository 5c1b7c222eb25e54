import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { Observable } from 'rxjs';
import { CappedOutput } from './capped-output.js';
import type { CommandLaunch } from './command-launch.js';
import { LimitWatch } from './limit-watch.js';
import type { ExecEvent } from './sandbox.js';

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxOutputChars?: number;
  /** Called with a kill function while the process runs (a session kills what is left on release). */
  readonly track?: (kill: () => void) => () => void;
}

/** Time the output pipes get to close after the process group was killed. */
const PIPE_GRACE_MS = 200;

type Child = ChildProcessByStdio<null, Readable, Readable>;

/** SIGKILL to the child's process group and to everything in the command's cgroup. */
function killer(child: Child, launch: CommandLaunch): () => void {
  return () => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }
    launch.cgroup?.kill();
  };
}

/**
 * Runs a launch (the sandbox's wrappers around a command) in its own process group and reports
 * its output and its end. Everything it started is killed (SIGKILL: its process group and its
 * cgroup; its PID namespace dies with the wrapper) on timeout, on unsubscribe and once it exits,
 * so background processes do not outlive it. Output is kept capped: the head and the tail. The
 * exit event names the limit the command exceeded, when one did.
 *
 * @example
 * ```ts
 * runProcess({ file: '/bin/sh', args: ['-c', 'ls'], cgroup: undefined, limits }, { cwd, env: {}, timeoutMs: 5_000 })
 *   .subscribe((e) => e.type === 'exit' && console.log(e.output));
 * ```
 */
export function runProcess(launch: CommandLaunch, options: RunProcessOptions): Observable<ExecEvent> {
  return new Observable<ExecEvent>((subscriber) => {
    const output = new CappedOutput(options.maxOutputChars ?? 30_000);
    const watch = new LimitWatch(launch.limits, launch.cgroup, Date.now());
    let timedOut = false;
    let exited = false;
    let closed = false;
    const timers: NodeJS.Timeout[] = [];

    let child: Child;
    try {
      child = spawn(launch.file, [...launch.args], {
        cwd: options.cwd,
        env: { ...options.env },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      // e.g. a NUL byte in the command: nothing started
      launch.cgroup?.remove();
      subscriber.error(err);
      return;
    }
    const kill = killer(child, launch);
    const untrack = options.track?.(kill);
    const finish = () => {
      closed = true;
      untrack?.();
      for (const t of timers) clearTimeout(t);
    };

    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output.add(text);
      if (!closed) subscriber.next({ type: 'output', text });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      watch.stderr(chunk.toString('utf8'));
      onData(chunk);
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      finish();
      launch.cgroup?.remove();
      subscriber.error(
        err.code === 'ENOENT'
          ? new Error(`"${launch.file}" was not found: is it installed and on PATH?`, { cause: err })
          : err,
      );
    });
    child.once('exit', () => {
      exited = true;
      // Background processes of the command end with it; their pipes then close.
      kill();
      timers.push(
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
        }, PIPE_GRACE_MS),
      );
    });
    child.once('close', (code, signal) => {
      if (closed) return;
      finish();
      const exceeded = watch.exceeded(code, signal);
      launch.cgroup?.remove();
      subscriber.next({
        type: 'exit',
        exitCode: code,
        signal,
        timedOut,
        output: output.text,
        omittedChars: output.omitted,
        ...(exceeded ? { exceededLimit: exceeded } : {}),
      });
      subscriber.complete();
    });
    timers.push(
      setTimeout(() => {
        timedOut = true;
        kill();
      }, options.timeoutMs),
    );
    return () => {
      if (closed) return;
      finish();
      kill();
      if (!exited) child.kill('SIGKILL');
      launch.cgroup?.remove();
    };
  });
}
