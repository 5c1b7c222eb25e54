import { spawn } from 'node:child_process';
import { Observable } from 'rxjs';
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

/**
 * Runs a program in its own process group and reports its output and its end. The whole group
 * is killed (SIGKILL) on timeout, on unsubscribe and once the program exits (so background
 * processes it started do not outlive it). Output is kept capped: the head and the tail.
 */
export function runProcess(file: string, args: readonly string[], options: RunProcessOptions): Observable<ExecEvent> {
  return new Observable<ExecEvent>((subscriber) => {
    const max = options.maxOutputChars ?? 30_000;
    const half = Math.floor(max / 2);
    let head = '';
    let tail = '';
    let total = 0;
    let timedOut = false;
    let exited = false;
    let closed = false;
    const timers: NodeJS.Timeout[] = [];

    const child = spawn(file, [...args], {
      cwd: options.cwd,
      env: { ...options.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    };
    const untrack = options.track?.(killGroup);

    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      total += text.length;
      if (head.length < half) {
        const room = half - head.length;
        head += text.slice(0, room);
        tail = (tail + text.slice(room)).slice(-half);
      } else tail = (tail + text).slice(-half);
      if (!closed) subscriber.next({ type: 'output', text });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (err: NodeJS.ErrnoException) => {
      closed = true;
      untrack?.();
      for (const t of timers) clearTimeout(t);
      subscriber.error(
        err.code === 'ENOENT'
          ? new Error(`"${file}" was not found: is it installed and on PATH?`, { cause: err })
          : err,
      );
    });
    child.once('exit', () => {
      exited = true;
      // Background processes of the command end with it; their pipes then close.
      killGroup();
      timers.push(
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
        }, PIPE_GRACE_MS),
      );
    });
    child.once('close', (code, signal) => {
      if (closed) return;
      closed = true;
      untrack?.();
      for (const t of timers) clearTimeout(t);
      const omitted = Math.max(0, total - head.length - tail.length);
      const output = omitted > 0 ? `${head}\n… [${omitted} characters of output left out] …\n${tail}` : head + tail;
      subscriber.next({ type: 'exit', exitCode: code, signal, timedOut, output, omittedChars: omitted });
      subscriber.complete();
    });
    timers.push(
      setTimeout(() => {
        timedOut = true;
        killGroup();
      }, options.timeoutMs),
    );
    return () => {
      for (const t of timers) clearTimeout(t);
      if (!closed) {
        closed = true;
        untrack?.();
        killGroup();
        if (!exited) child.kill('SIGKILL');
      }
    };
  });
}
