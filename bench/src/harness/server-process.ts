/** Child process of `startServerProcess`: runs the test server until the parent disconnects. */
import { startOpenAITestServer, type RecordedRequest, type ServerTurn } from '@rxscope/core/testing/node';
import type { ServerProcessOptions } from './server.js';

/** The turn of a request: by its model name, else after a tool result, else the default. */
function turnOf(options: ServerProcessOptions, request: RecordedRequest): ServerTurn {
  const model = request.body.model;
  const byModel = typeof model === 'string' ? options.byModel?.[model] : undefined;
  if (byModel) return byModel;
  const last = request.body.messages?.at(-1);
  if (options.afterToolTurn && last?.role === 'tool') return options.afterToolTurn;
  return options.turn;
}

process.once('message', (options: ServerProcessOptions) => {
  void startOpenAITestServer({ handler: (request) => turnOf(options, request), chunkDelayMs: options.chunkDelayMs ?? 0, keepAlive: true }).then(
    (server) => {
      process.on('message', (msg: { type?: string }) => {
        if (msg.type === 'connections') process.send!({ type: 'connections', open: server.openConnections({ includeUnused: true }), requests: server.requests.length });
      });
      process.once('disconnect', () => {
        void server.close().then(() => process.exit(0));
      });
      process.send!({ url: server.url });
    },
  );
});
