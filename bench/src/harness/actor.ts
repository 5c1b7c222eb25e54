import { type ChildProcess, fork } from 'node:child_process';

/**
 * A child process driven by requests over IPC, for scenarios that need to talk to their children
 * while they run (take a memory snapshot now, release the model, close the streams), which
 * `runInChild`'s one call cannot. The child module calls {@link serveActor} with its handlers; the
 * parent {@link forkActor}s it and `ask`s.
 *
 * @example
 * ```ts
 * const service = await forkActor(new URL('./service-process.js', import.meta.url));
 * const { url } = await service.ask<{ url: string }>('start', { port: 0 });
 * await service.exit();
 * ```
 */
export interface Actor {
  readonly pid: number;
  /** Calls the child's handler `type` with `args`; resolves with what it returned (plain data), rejects with its error. */
  ask<R>(type: string, args?: unknown, timeoutMs?: number): Promise<R>;
  /** Clock offset of the child against this process (child clock − this clock, ms), from the round trip with the lowest delay. */
  clockOffset(samples?: number): Promise<{ offsetMs: number; rttMs: number }>;
  /** Asks the child to exit and waits for it. */
  exit(): Promise<void>;
}

/** A wall clock with sub-millisecond resolution, comparable between processes of one machine. */
export const wallNow = (): number => performance.timeOrigin + performance.now();

interface Request {
  readonly id: number;
  readonly type: string;
  readonly args: unknown;
}
interface Reply {
  readonly id: number;
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: string;
}

/** Forks `moduleUrl` (with `--expose-gc`) and resolves once it serves requests. */
export async function forkActor(moduleUrl: URL, execArgv: readonly string[] = ['--expose-gc']): Promise<Actor> {
  const child: ChildProcess = fork(moduleUrl, [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...execArgv],
  });
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let next = 0;
  let exited = false;
  child.on('message', (m: Reply | { ready: true }) => {
    if (!('id' in m)) return;
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.ok) p?.resolve(m.result);
    else p?.reject(new Error(`${moduleUrl.pathname.split('/').pop()}: ${m.error}`));
  });
  child.on('exit', (code) => {
    exited = true;
    for (const p of pending.values()) p.reject(new Error(`the child process exited (code ${code})`));
    pending.clear();
  });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the child process exited early (code ${code})`)));
    child.once('message', () => resolve());
  });
  const ask = <R>(type: string, args?: unknown, timeoutMs = 600_000) =>
    new Promise<R>((resolve, reject) => {
      if (exited) return reject(new Error(`${type}: the child process has exited`));
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${type} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as R);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.send({ id, type, args } satisfies Request);
    });
  return {
    pid: child.pid!,
    ask,
    clockOffset: async (samples = 20) => {
      let best = { offsetMs: 0, rttMs: Number.POSITIVE_INFINITY };
      for (let i = 0; i < samples; i++) {
        const t0 = wallNow();
        const theirs = await ask<number>('__clock');
        const t1 = wallNow();
        if (t1 - t0 < best.rttMs) best = { offsetMs: theirs - (t0 + t1) / 2, rttMs: t1 - t0 };
      }
      return best;
    },
    exit: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.send({ id: -1, type: '__exit', args: undefined } satisfies Request);
      }),
  };
}

/** In the child: answers the parent's requests with `handlers` (plus the clock and exit requests). */
export function serveActor(handlers: Record<string, (args: never) => unknown>): void {
  process.on('message', (m: Request) => {
    if (m.type === '__exit') return process.exit(0);
    if (m.type === '__clock') return process.send!({ id: m.id, ok: true, result: wallNow() } satisfies Reply);
    void (async () => {
      try {
        const handler = handlers[m.type];
        if (!handler) throw new Error(`no handler ${m.type}`);
        const result = await (handler as (args: unknown) => unknown)(m.args);
        process.send!({ id: m.id, ok: true, result } satisfies Reply);
      } catch (e) {
        process.send!({
          id: m.id,
          ok: false,
          error: e instanceof Error ? (e.stack ?? e.message) : String(e),
        } satisfies Reply);
      }
    })();
  });
  process.once('disconnect', () => process.exit(0));
  process.send!({ ready: true });
}
