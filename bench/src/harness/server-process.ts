/** Child process of `startServerProcess`: runs the test server until the parent disconnects. */
import { startOpenAITestServer } from '@rxscope/core/testing/node';
import type { ServerProcessOptions } from './server.js';

process.once('message', (options: ServerProcessOptions) => {
  void startOpenAITestServer({ handler: () => options.turn, chunkDelayMs: options.chunkDelayMs ?? 0, keepAlive: true }).then((server) => {
    process.once('disconnect', () => {
      void server.close().then(() => process.exit(0));
    });
    process.send!({ url: server.url });
  });
});
