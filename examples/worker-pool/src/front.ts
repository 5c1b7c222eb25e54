/**
 * The HTTP front: takes requests, enqueues replies, pushes messages into running replies, and
 * streams every session's events (SSE) from Redis. It never runs an agent. Run several.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 PORT=3000 node dist/front.js      prints "front on http://HOST:PORT"
 *
 * POST /api/sessions/:id/messages  {message}        → 202 {jobId}  a reply, run by some worker
 * POST /api/sessions/:id/confirm   {results}        → 202 {jobId}  answers the suspended reply
 * POST /api/sessions/:id/resume                     → 202 {jobId}  continues a reply saved by a shutdown
 * POST /api/sessions/:id/inbox     {text}           → 202          joins the running reply's next step
 * GET  /api/sessions/:id/events    (Last-Event-ID)  → SSE          the session's events, from any worker
 * GET  /api/sessions/:id                            → {version, messages}  the saved conversation
 * GET  /api/jobs/:id                                → {state, result?, failedReason?}
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReplyInput } from '@rxscope/core';
import { createAgentSseHandler, HttpError, readJsonBody, sendHttpError } from '@rxscope/core/node';
import { ReplyQueue } from '@rxscope/core/node/bullmq';
import { pushToInbox } from '@rxscope/harness';
import { shared } from './config.js';

const pool = shared();
const replies = new ReplyQueue({ connection: pool.connect(), name: pool.queueName });
const sessionOf = (req: IncomingMessage) => /^\/api\/sessions\/([\w-]+)/.exec(req.url ?? '')?.[1] ?? '';
const events = createAgentSseHandler({
  retryMs: 1000,
  events: (req, { lastEventId }) => pool.events.events(sessionOf(req), lastEventId ? { lastEventId } : {}),
});

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function enqueue(res: ServerResponse, sessionId: string, input: ReplyInput): Promise<void> {
  const job = await replies.enqueue(sessionId, input);
  json(res, 202, { jobId: job.id });
}

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://front');
  const session = /^\/api\/sessions\/([\w-]+)(?:\/(\w+))?$/.exec(url.pathname);
  const job = /^\/api\/jobs\/(\w+)$/.exec(url.pathname);
  if (session && req.method === 'POST') {
    const [, id, action] = session as unknown as [string, string, string];
    const body = action === 'resume' ? {} : ((await readJsonBody(req)) as Record<string, unknown>);
    if (action === 'messages' && typeof body['message'] === 'string') return enqueue(res, id, body['message']);
    if (action === 'confirm' && Array.isArray(body['results'])) {
      return enqueue(res, id, { type: 'USER_CONFIRM_RESULT', results: body['results'] as never });
    }
    if (action === 'resume') return enqueue(res, id, { type: 'RESUME_REPLY' });
    if (action === 'inbox' && typeof body['text'] === 'string') {
      await pushToInbox(pool.messages, id, { text: body['text'], from: 'front' });
      return json(res, 202, {});
    }
    throw new HttpError(400, `POST ${url.pathname}: unknown action or missing field`);
  }
  if (session?.[2] === 'events' && req.method === 'GET') return void (await events(req, res));
  if (session && !session[2] && req.method === 'GET') {
    const stored = await pool.store.load(session[1]!);
    return json(res, 200, { version: stored?.version ?? 0, messages: stored?.state.context ?? [] });
  }
  if (job && req.method === 'GET') {
    // The state first, then the job: read the other way round, a job completing between the two
    // reads shows as 'completed' without its result.
    const state = await replies.queue.getJobState(job[1]!);
    const found = await replies.queue.getJob(job[1]!);
    if (!found || state === 'unknown') throw new HttpError(404, `no job ${job[1]}`);
    return json(res, 200, {
      state,
      ...(found.returnvalue ? { result: found.returnvalue } : {}),
      ...(found.failedReason ? { failedReason: found.failedReason } : {}),
    });
  }
  throw new HttpError(404, `${req.method} ${url.pathname}: not found`);
}

const server = createServer((req, res) => void route(req, res).catch((error: unknown) => sendHttpError(res, error)));
server.listen(Number(process.env['PORT'] ?? 3000), process.env['HOST'] ?? '127.0.0.1', () => {
  const { address, port } = server.address() as AddressInfo;
  process.stdout.write(`front on http://${address}:${port}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(
    () =>
      void replies
        .close()
        .then(() => pool.close())
        .then(() => process.exit(0)),
  );
});
