import { fork } from 'node:child_process';

/**
 * Calls `fn(args)` exported by the module at `moduleUrl` in a fresh Node process (with
 * `--expose-gc`) and resolves with what it returns (sent over IPC, so plain data only). When
 * `whileAlive` is given it runs after the result arrived and before the child exits (e.g. to ask
 * a server how many of the child's connections are still open); its value is resolved alongside.
 * `inProcess` calls the function in this process instead (for smoke runs, where a fresh process
 * and its imports cost more than the measurement).
 *
 * @example
 * ```ts
 * const { result, alive } = await runInChild(import.meta.url, 'leakChild', { url: server.url }, () => server.connections());
 * ```
 */
export async function runInChild<R, A = undefined>(
  moduleUrl: string,
  fn: string,
  args: unknown,
  whileAlive?: (result: R) => Promise<A>,
  options: {
    readonly inProcess?: boolean;
    readonly timeoutMs?: number;
    /** Node flags of the child besides `--expose-gc` (e.g. `--max-old-space-size=8192`). */
    readonly execArgv?: readonly string[];
  } = {},
): Promise<{ result: R; alive: A | undefined }> {
  if (options.inProcess) {
    // A smoke run (--quick): the same function in this process, without a fork and its imports.
    const mod = (await import(moduleUrl)) as Record<string, (a: unknown) => Promise<R>>;
    const result = await mod[fn]!(args);
    return { result, alive: whileAlive ? await whileAlive(result) : undefined };
  }
  const timeoutMs = options.timeoutMs ?? 600_000;
  const child = fork(new URL('./child.js', import.meta.url), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: ['--expose-gc', ...(options.execArgv ?? [])],
  });
  const result = await new Promise<R>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      child.kill();
      finish(() => reject(new Error(`${fn} did not finish within ${timeoutMs} ms`)));
    }, timeoutMs);
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    child.once('error', (e) => finish(() => reject(e)));
    child.once('message', (msg: { ok: boolean; result?: R; error?: string }) => {
      finish(() =>
        msg.ok ? resolve(msg.result as R) : reject(new Error(`${fn} failed in its child process: ${msg.error}`)),
      );
    });
    child.once('exit', (code) =>
      finish(() => reject(new Error(`${fn}: the child process exited (code ${code}) without a result`))),
    );
    child.send({ module: moduleUrl, fn, args });
  });
  try {
    return { result, alive: whileAlive ? await whileAlive(result) : undefined };
  } finally {
    await new Promise<void>((done) => {
      if (child.exitCode !== null) return done();
      child.once('exit', () => done());
      child.send({ type: 'exit' });
    });
  }
}
