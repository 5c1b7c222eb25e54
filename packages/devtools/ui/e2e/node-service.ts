import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

export interface NodeService {
  /** The service's origin, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  /** Everything the process wrote. */
  output(): string;
  stop(): Promise<void>;
}

/** Builds `examples/node-service` (and what it uses) once per test run. */
export function buildNodeService(): void {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-b', 'examples/node-service'], { cwd: ROOT, stdio: 'pipe' });
}

/**
 * Starts the built `examples/node-service` as a child process with its offline scripted model
 * and its devtools at `/_devtools` (not production), on `port` (0: any free port), and resolves
 * once it listens.
 */
export async function startNodeService(port = 0): Promise<NodeService> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    STATIC_DIR: mkdtempSync(join(tmpdir(), 'devtools-e2e-static-')),
    NODE_ENV: 'development',
  };
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'REDIS_URL', 'TTS_BASE_URL'])
    delete env[name];
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
  return { url, port: Number(new URL(url).port), output: () => output, stop: () => stop(child) };
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
