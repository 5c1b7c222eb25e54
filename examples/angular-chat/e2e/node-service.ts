import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** What `GET /api/diagnostics` reports (docs/node-services.md). */
export interface Diagnostics {
  readonly model: string;
  readonly modelRequests: readonly {
    readonly index: number;
    readonly completed: boolean;
    readonly clientClosed: boolean;
  }[];
  readonly running: readonly string[];
  readonly refunds: readonly { readonly orderId: string; readonly amount: number }[];
}

export interface NodeService {
  readonly url: string;
  diagnostics(): Promise<Diagnostics>;
  /** Everything the process wrote to stdout and stderr. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Builds and starts `examples/node-service` as a child process — offline scripted model (no
 * `OPENAI_API_KEY`), any free port, serving `staticDir`, with `extraEnv` (e.g. `TTS_BASE_URL`) —
 * and resolves once it listens.
 */
export async function startNodeService(staticDir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<NodeService> {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'examples/node-service'],
    { cwd: ROOT, stdio: 'pipe' },
  );
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', STATIC_DIR: staticDir };
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'REDIS_URL', 'TTS_BASE_URL'])
    delete env[name];
  Object.assign(env, extraEnv);
  const child = spawn(process.execPath, [join(ROOT, 'examples', 'node-service', 'dist', 'main.js')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node-service did not start in 15 s:\n${output}`)), 15_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`node-service exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    diagnostics: async () => (await (await fetch(`${url}/api/diagnostics`)).json()) as Diagnostics,
    output: () => output,
    stop: () => stop(child),
  };
}

/** SIGTERM (the service closes its sessions and exits), SIGKILL if it is still there after 5 s. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
