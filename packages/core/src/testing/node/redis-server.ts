import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection, createServer } from 'node:net';

/** Options of {@link startRedisServer}. */
export interface RedisTestServerOptions {
  /** The server program. Default `'redis-server'` (found on the PATH). */
  readonly command?: string;
}

/** A redis-server started by {@link startRedisServer}. */
export interface RedisTestServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM) and resolves when it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts a real `redis-server` (Debian's package: `apt-get install -y redis-server`) on a free
 * loopback port, without persistence, for one test file, and resolves once it answers `PING`.
 * Rejects with a message that says how to install it when it is missing: tests of Redis-backed
 * parts fail, never skip, without it.
 *
 * @example
 * ```ts
 * let server: RedisTestServer;
 * beforeAll(async () => { server = await startRedisServer(); });
 * afterAll(() => server.stop());
 * it('...', () => { const redis = new Redis(server.url); ... });
 * ```
 */
export async function startRedisServer(options: RedisTestServerOptions = {}): Promise<RedisTestServer> {
  const port = await freePort();
  const command = options.command ?? 'redis-server';
  const child: ChildProcess = spawn(
    command,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (e) =>
      reject(
        new Error(
          `${command} could not start (install it: apt-get install -y redis-server; npm test does when it may): ${e.message}`,
        ),
      ),
    );
    child.once('exit', (code) =>
      reject(new Error(`redis-server exited with code ${code} before it answered on port ${port}`)),
    );
  });
  failed.catch(() => undefined); // observed through the race below; after a start, an exit is stop()'s business
  const url = `redis://127.0.0.1:${port}`;
  // Set when the start failed: the polling below stops (it would poll an absent server for 5 s).
  let abandoned = false;
  const ready = (async () => {
    for (let attempt = 0; attempt < 200 && !abandoned; attempt++) {
      if (await pongs(port)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    if (!abandoned) throw new Error(`redis-server did not answer on ${url}`);
  })();
  ready.catch(() => undefined); // observed through the race below
  try {
    await Promise.race([ready, failed]);
  } catch (e) {
    abandoned = true;
    child.kill('SIGKILL');
    throw e;
  }
  return {
    url,
    port,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** True when a server on `port` answers a RESP `PING` with `+PONG` (no Redis client needed). */
function pongs(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}
