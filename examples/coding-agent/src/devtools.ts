import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import type { DevtoolsRecorder } from '@rxscope/devtools';
import { createDevtoolsHandler } from '@rxscope/devtools/node';

/** The devtools of the coding agent: a server on 127.0.0.1 (loopback clients only) at `/_devtools/`. */
export async function startDevtools(
  recorder: DevtoolsRecorder,
  port: number,
): Promise<{ url: string; untilEnter(): Promise<void>; close(): Promise<void> }> {
  // A terminal program the user starts with --devtools: serving them is the point, also with NODE_ENV=production.
  const handler = createDevtoolsHandler({ recorder, enabled: true, basePath: '/_devtools' });
  const server = createServer((req, res) =>
    handler(req, res, () => {
      res.writeHead(302, { location: '/_devtools/' });
      res.end();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/_devtools/`,
    untilEnter: () =>
      new Promise<void>((resolve) => {
        const rl = createInterface({ input: process.stdin });
        rl.once('line', () => rl.close());
        rl.once('close', resolve); // Enter, or stdin closed
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
