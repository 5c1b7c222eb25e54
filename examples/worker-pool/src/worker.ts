/**
 * A reply worker: runs the replies the front enqueues (BullMQ jobs), for any session, with the
 * session's state from the shared store and its events to the Redis event bus. Run several.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 MODEL_URL=http://127.0.0.1:PORT/v1 WORKER_NAME=w1 node dist/worker.js
 *
 * Prints "worker <name> ready", then "job <id> <sessionId> on <name>" for each job it starts.
 * SIGTERM: graceful shutdown (running replies saved for RESUME_REPLY), then exit 0.
 */
import { ReplyWorker } from '@rxscope/core/node/bullmq';
import { sessionAgent } from './agent.js';
import { shared } from './config.js';

const name = process.env['WORKER_NAME'] ?? `worker-${process.pid}`;
const pool = shared();
const model = pool.model();
const worker = new ReplyWorker({
  connection: pool.connect(),
  name: pool.queueName,
  bus: pool.events,
  agent: (sessionId) =>
    sessionAgent(
      {
        model,
        store: pool.store,
        bus: pool.messages,
        workDir: pool.workDir,
        stockCheckMs: Number(process.env['STOCK_MS'] ?? 1500),
      },
      sessionId,
    ),
  lockDuration: pool.lockMs,
  stalledInterval: pool.stalledMs,
});
worker.worker.on('active', (job) => process.stdout.write(`job ${job.id} ${job.data.sessionId} on ${name}\n`));
void worker.worker.waitUntilReady().then(() => process.stdout.write(`worker ${name} ready\n`));

process.once('SIGTERM', () => {
  void (async () => {
    const report = await worker.shutdown({ graceMs: 10_000, reason: `worker ${name} received SIGTERM` });
    process.stdout.write(
      `worker ${name} stopped; replies saved for RESUME_REPLY: ${JSON.stringify(report.suspended)}\n`,
    );
    await pool.close();
    process.exit(0);
  })();
});
