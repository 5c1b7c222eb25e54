// Where the MCP servers the specs run live, and small helpers to watch them from a test.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import type { McpStdioServer } from '../server-config.js';

const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** The published reference server with every protocol feature (progress, images, resources...). */
export const EVERYTHING = join(packageDir('@modelcontextprotocol/server-everything'), 'dist', 'index.js');
/** The published filesystem server (a realistic tool set confined to the folders it is given). */
export const FILESYSTEM = join(packageDir('@modelcontextprotocol/server-filesystem'), 'dist', 'index.js');
/** Our probe server (records cancellations, exits mid-call, adds tools), run with tsx. */
export const PROBE = join(__dirname, 'probe-server.ts');
export const TSX = require.resolve('tsx/cli');

export const everythingStdio = (): McpStdioServer => ({
  command: process.execPath,
  args: [EVERYTHING, 'stdio'],
  stderr: 'ignore',
});
export const filesystemStdio = (root: string): McpStdioServer => ({
  command: process.execPath,
  args: [FILESYSTEM, root],
  stderr: 'ignore',
});
export const probeStdio = (log: string): McpStdioServer => ({
  command: process.execPath,
  args: [TSX, PROBE],
  env: { PROBE_LOG: log },
  stderr: 'ignore',
});

/** Polls until `check` holds (generous default: CI machines may be loaded). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The lines a probe server wrote to its log so far. */
export const probeLog = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

/** A free TCP port on 127.0.0.1 (for servers that take a fixed PORT). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A server process started by the test; `url` once it said where it listens. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts a server process and waits until `ready` matches its output (the match's first group is its URL). */
export async function startServerProcess(
  args: readonly string[],
  ready: RegExp,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = ready.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before it was ready:\n${out}`)));
    setTimeout(() => reject(new Error(`server not ready after 20 s:\n${out}`)), 20_000).unref();
  });
  return {
    child,
    url,
    exited,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
