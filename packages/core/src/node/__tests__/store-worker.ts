// The parent's side of fixtures/file-store-worker.ts: starts one worker process and sends it
// commands (one JSON line each way).
import { spawn, type ChildProcessWithoutNullStreams, type SpawnOptions } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const WORKER = join(__dirname, 'fixtures', 'file-store-worker.ts');
const TSX = require.resolve('tsx/cli');

/** A worker's answer: `version` (load, save), `pid` (hold) or the error a save rejected with. */
export interface WorkerReply {
  version?: number;
  pid?: number;
  error?: { name: string; code?: string; message: string };
}

/** A command of the worker (see the fixture). */
export interface WorkerCommand {
  op: 'load' | 'save' | 'hold';
  dir: string;
  session: string;
  tag?: string;
  lockTimeoutMs?: number;
}

/**
 * One worker process. tsx runs the fixture in a child process of its own: `pid` is that one (the
 * pid a lock file names), and `kill` kills it first.
 *
 * @example
 * ```ts
 * const worker = await StoreWorker.start();
 * const { version } = await worker.send({ op: 'load', dir, session: 's' });
 * await worker.kill();
 * ```
 */
export class StoreWorker {
  private readonly pending = new Map<number, (reply: WorkerReply) => void>();
  private next = 0;
  private readonly closed: Promise<void>;
  private stderr = '';

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly pid: number,
  ) {
    this.closed = new Promise((resolve) => child.once('close', () => resolve()));
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const reply = JSON.parse(line) as WorkerReply & { id: number };
      this.pending.get(reply.id)?.(reply);
      this.pending.delete(reply.id);
    });
  }

  /**
   * Starts a worker once it is ready. `options`: spawn's (`env`), and `bypassPermissions: false`
   * to run it, as root, without the capability to override file permissions (util-linux
   * `setpriv`), so a folder root may not write to refuses it as it would any user.
   */
  static start(
    options: Pick<SpawnOptions, 'env'> & { readonly bypassPermissions?: boolean } = {},
  ): Promise<StoreWorker> {
    const { bypassPermissions = true, ...spawnOptions } = options;
    const child = bypassPermissions
      ? spawn(process.execPath, [TSX, WORKER], { ...spawnOptions, stdio: 'pipe' })
      : spawn('setpriv', ['--bounding-set', '-dac_override,-dac_read_search', process.execPath, TSX, WORKER], {
          ...spawnOptions,
          stdio: 'pipe',
        });
    return new Promise((resolve, reject) => {
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('exit', (code) =>
        reject(new Error(`the store worker exited (${code}) before it was ready: ${stderr}`)),
      );
      child.stdout.once('data', (chunk: Buffer) => {
        const { pid } = JSON.parse(chunk.toString().split('\n')[0]!) as { pid: number };
        resolve(new StoreWorker(child, pid));
      });
    });
  }

  /** Sends a command; resolves with its answer. */
  send(command: WorkerCommand): Promise<WorkerReply> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ id, ...command })}\n`, (e) => e && reject(e));
      void this.closed.then(() => reject(new Error(`the store worker exited before answering: ${this.stderr}`)));
    });
  }

  /** SIGKILLs the worker (the fixture's process, then tsx's) and waits for it to end. */
  async kill(): Promise<void> {
    try {
      process.kill(this.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    this.child.kill('SIGKILL');
    await this.closed;
  }

  /** Ends the worker by closing its input (it exits 0). */
  async stop(): Promise<void> {
    this.child.stdin.end();
    await this.closed;
  }
}
