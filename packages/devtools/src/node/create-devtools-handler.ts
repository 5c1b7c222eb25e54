import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, readJsonBody } from '@rxscope/core/node';
import { streamFeed } from './feed-stream.js';
import { resolveHandlerOptions, type DevtoolsHandlerOptions } from './handler-options.js';
import { replayCassette } from './replay-cassette.js';
import { refusalOf } from './request-guard.js';
import { defaultUiDir, serveUi } from './serve-ui.js';

/**
 * A node:http-style handler: `(req, res, next?)`. Express, Fastify (its raw request and reply)
 * and plain `node:http` servers take it as it is.
 *
 * @example
 * ```ts
 * const handler: DevtoolsHandler = createDevtoolsHandler({ recorder });
 * ```
 */
export type DevtoolsHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

/**
 * Serves the devtools: the UI (from `dist-ui/`), the JSON API and the live SSE feed of a
 * `DevtoolsRecorder`. Routes under the mount path: `GET /` (the page), `GET /api/replies`,
 * `GET /api/replies/:replyId`, `GET /api/replies/:replyId/export`, `GET /api/feed`,
 * `POST /api/replay` (with the `replay` option). Only loopback clients are served unless `allow`
 * says otherwise (403; by default also a request through a proxy, or naming a host that is not a
 * loopback name, and always a cross-site request that would change something); with `NODE_ENV=production` the handler is refused at creation unless
 * `enabled` is set. Mount it in Express with `app.use('/_devtools', handler)`, in plain node:http
 * or Fastify with `basePath: '/_devtools'`.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createDevtoolsHandler } from '@rxscope/devtools/node';
 *
 * const devtools = createDevtoolsHandler({ recorder, basePath: '/_devtools' });
 * createServer((req, res) => devtools(req, res, () => app(req, res))).listen(3000);
 * ```
 */
export function createDevtoolsHandler(options: DevtoolsHandlerOptions): DevtoolsHandler {
  const o = resolveHandlerOptions(options);
  const server = { serverId: randomUUID(), startedAt: Date.now() };
  const uiDir = o.uiDir ?? defaultUiDir();

  const route = async (req: IncomingMessage, res: ServerResponse, path: string, base: string): Promise<void> => {
    const method = req.method ?? 'GET';
    if (path === '/api/replies' && method === 'GET') return sendJson(res, 200, { replies: o.recorder.replies() });
    const reply = /^\/api\/replies\/([^/]{1,200})(\/export)?$/.exec(path);
    if (reply && method === 'GET') {
      const id = decodeURIComponent(reply[1]!);
      const record = o.recorder.reply(id);
      if (!record) return sendJson(res, 404, { code: 'devtools_reply_unknown', message: `No reply "${id}" is kept.` });
      const download: Record<string, string> = reply[2]
        ? { 'content-disposition': `attachment; filename="reply-${id.replace(/[^A-Za-z0-9_-]/g, '_')}.json"` }
        : {};
      return sendJson(res, 200, record, download);
    }
    if (path === '/api/feed' && method === 'GET') return streamFeed(req, res, o.recorder, server, o);
    if (path === '/api/replay' && method === 'POST') {
      if (!o.replay)
        return sendJson(res, 404, {
          code: 'devtools_replay_off',
          message: 'Replay is off: give the handler a "replay" option.',
        });
      const body = await readJsonBody(req, o.maxBodyBytes);
      return sendJson(res, 202, { replyId: await replayCassette(body, o.replay, o.recorder) });
    }
    if (path.startsWith('/api/'))
      return sendJson(res, 404, { code: 'devtools_route_unknown', message: `No route ${method} ${path}.` });
    if (method !== 'GET' && method !== 'HEAD')
      return sendJson(res, 405, { code: 'devtools_method', message: 'The UI is served to GET only.' });
    return serveUi(res, uiDir, path, base);
  };

  return (req, res, next) => {
    const pass = () => (next ? next() : sendJson(res, 404, { code: 'devtools_route_unknown', message: 'Not found.' }));
    // Express strips its mount path into req.baseUrl; other servers hand over the whole URL.
    const baseUrl = (req as IncomingMessage & { baseUrl?: string }).baseUrl;
    const url = req.url ?? '/';
    const pathname = url.split('?')[0]!;
    let base: string;
    let path: string;
    if (baseUrl) {
      base = baseUrl;
      path = pathname;
    } else if (o.basePath && (pathname === o.basePath || pathname.startsWith(o.basePath + '/'))) {
      base = o.basePath;
      path = pathname.slice(o.basePath.length);
    } else if (!o.basePath) {
      base = '';
      path = pathname;
    } else return pass();
    if (!o.enabled) return pass();
    const refusal = refusalOf(req, o.allowed, o.widened);
    if (refusal) return sendJson(res, refusal.status, { code: refusal.code, message: refusal.message });
    if (path === '' && (req.method ?? 'GET') === 'GET') {
      // `/_devtools` → `/_devtools/`, so that the page's relative URLs resolve under the mount path.
      res.writeHead(308, { location: `${base}/` });
      res.end();
      return;
    }
    route(req, res, path || '/', base).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      const status = error instanceof HttpError ? error.status : 500;
      sendJson(res, status, {
        code: error instanceof HttpError ? error.code : 'devtools_internal',
        message: error instanceof HttpError ? error.message : 'The devtools failed to handle the request.',
      });
    });
  };
}
