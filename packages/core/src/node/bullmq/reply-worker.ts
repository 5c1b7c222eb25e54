import { type ConnectionOptions, DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import { concatMap, from, lastValueFrom, map, tap } from 'rxjs';
import type { Agent } from '../../agent/agent.js';
import { AgentShutdownError, AgentUsageError } from '../../agent/errors.js';
import { createEvent } from '../../event/create.js';
import type { AgentEvent, ReplyFinishReason } from '../../event/events.js';
import { ReplyTracker } from '../reply-tracker.js';
import { ReplyLeaseError } from '../../state/journal.js';
import type { SessionEventBus } from '../sessions/session-event-bus.js';
import { RecoveredReplySplice } from '../sessions/recovered-reply-splice.js';
import { shutdownAgents, type ShutdownAgentsOptions, type ShutdownReport } from '../shutdown-agents.js';
import { DEFAULT_REPLY_QUEUE, isReplyJobProgress, type ReplyJobData, type ReplyJobResult } from './reply-job.js';
import { SessionTurns } from './session-turns.js';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';

/** Options of {@link ReplyWorker}. */
export interface ReplyWorkerOptions {
  /** BullMQ's connection: ioredis options or an ioredis client (with `maxRetriesPerRequest: null`). */
  readonly connection: ConnectionOptions;
  /**
   * The agent that runs one job, **new for every job**, with the session's id and a shared
   * `SessionStore`: it loads the session when the reply starts and saves it when the reply ends
   * or suspends, so the next job — on any worker — continues from there.
   */
  readonly agent: (sessionId: string) => Agent | Promise<Agent>;
  /** Where the replies' events go (a `RedisSessionEventBus` for listeners in other processes). */
  readonly bus: SessionEventBus;
  /** The queue's name (the producers' {@link ReplyQueue} uses the same). Default `'rxscope-replies'`. */
  readonly name?: string;
  /** BullMQ's key prefix. Default BullMQ's. */
  readonly prefix?: string;
  /** Replies this worker runs at once. Default 1. */
  readonly concurrency?: number;
  /**
   * How long a job's lock lasts without renewal (ms, default 30,000): a worker that died stops
   * renewing it, and once it expired another worker's stalled-job check gives the job to a worker again.
   */
  readonly lockDuration?: number;
  /** How often this worker checks for stalled jobs (ms, default 30,000). */
  readonly stalledInterval?: number;
  /** How many times a job may stall (its worker dying) before it fails for good. Default 1. */
  readonly maxStalledCount?: number;
  /** Failures with no caller to report to (the bus failing while closing a dead attempt). Default `console.error`. */
  readonly onError?: (error: unknown) => void;
  /**
   * How long a job whose session has an earlier reply still running (or waiting) goes back to
   * the queue (delayed) before it looks again (ms). Default 250.
   */
  readonly turnPollMs?: number;
}

// Every option, typed against ReplyWorkerOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<ReplyWorkerOptions>({
  connection: true,
  agent: true,
  bus: true,
  name: true,
  prefix: true,
  concurrency: true,
  lockDuration: true,
  stalledInterval: true,
  maxStalledCount: true,
  onError: true,
  turnPollMs: true,
});

/**
 * Runs the replies enqueued with {@link ReplyQueue} as BullMQ jobs: for each job, a new agent
 * of the session (which loads the session from its store), the reply to the job's input, every
 * event appended to the session's {@link SessionEventBus}, the state saved by the agent when
 * the reply ends or suspends. Run several, in several processes, on the same Redis: BullMQ
 * gives each job to one worker, limits each worker to `concurrency` replies, and hands the job
 * of a worker that died to another one (stalled-job recovery), which runs the reply again from
 * the last saved state. The replies of one session run one at a time, in the order
 * `ReplyQueue.enqueue` added them: a job taken while an earlier reply of its session has not
 * finished goes back to the queue, delayed by `turnPollMs`, without using an attempt.
 *
 * @example
 * ```ts
 * const worker = new ReplyWorker({
 *   connection: new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null }),
 *   agent: (sessionId) => new Agent({ model, tools, sessionId, store }),
 *   bus: new RedisSessionEventBus({ redis }),
 *   concurrency: 4,
 * });
 * process.once('SIGTERM', async () => { await worker.shutdown({ graceMs: 10_000 }); process.exit(0); });
 * ```
 */
export class ReplyWorker {
  /** The BullMQ worker (for its events and API). */
  readonly worker: Worker<ReplyJobData, ReplyJobResult>;
  private readonly running = new Map<string, Agent>();
  private readonly onError: (error: unknown) => void;
  private readonly turns: SessionTurns;
  private closing: string | undefined;

  constructor(private readonly options: ReplyWorkerOptions) {
    checkOptionKeys('ReplyWorker', options, OPTION_KEYS, { foreign: { redis: 'connection', queueName: 'name' } });
    this.onError = options.onError ?? ((error) => console.error('[rxscope] reply job:', error));
    this.worker = new Worker<ReplyJobData, ReplyJobResult>(
      options.name ?? DEFAULT_REPLY_QUEUE,
      (job, token, signal) => this.run(job, token, signal),
      {
        connection: options.connection,
        concurrency: options.concurrency ?? 1,
        ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
        ...(options.lockDuration !== undefined ? { lockDuration: options.lockDuration } : {}),
        ...(options.stalledInterval !== undefined ? { stalledInterval: options.stalledInterval } : {}),
        ...(options.maxStalledCount !== undefined ? { maxStalledCount: options.maxStalledCount } : {}),
      },
    );
    // BullMQ reports connection and lock failures as 'error' events; unobserved they would throw.
    this.worker.on('error', (error) => this.onError(error));
    this.turns = new SessionTurns(() => this.worker.getBackend().client, this.worker.toKey('rxscope-turns'));
  }

  /** Ids of the sessions whose reply runs on this worker now. */
  runningSessions(): string[] {
    return [...this.running.values()].map((agent) => agent.sessionId ?? '');
  }

  /**
   * Graceful shutdown (SIGTERM): takes no new job, stops the running replies at a safe point
   * within `graceMs` and saves each to its store as a reply `{type: 'RESUME_REPLY'}` continues
   * (their jobs complete with `finishReason: 'shutdown'`; enqueue the resume where it suits you,
   * e.g. from the report's `suspended` sessions), then closes the worker.
   */
  async shutdown(options: Omit<ShutdownAgentsOptions, 'signal'> = {}): Promise<ShutdownReport> {
    const reason = (this.closing ??= options.reason ?? 'the worker is shutting down');
    const pausing = this.worker.pause(true);
    const report = await shutdownAgents([...this.running.values()], { ...options, reason });
    await pausing;
    await this.worker.close();
    return report;
  }

  /** Closes the worker after its running jobs finish (BullMQ's `close()`). */
  close(): Promise<void> {
    return this.worker.close();
  }

  private async run(
    job: Job<ReplyJobData, ReplyJobResult>,
    token: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ReplyJobResult> {
    const { sessionId, turn } = job.data;
    if (this.closing !== undefined) throw new AgentShutdownError(`The worker is shutting down (${this.closing}).`);
    if (turn !== undefined && !(await this.isTurnOf(sessionId, turn))) {
      // An earlier reply of the session runs or waits: back to the queue for a while (BullMQ's
      // documented way: moveToDelayed with the job's token, then DelayedError; no attempt is used).
      await job.moveToDelayed(Date.now() + (this.options.turnPollMs ?? 250), token);
      throw new DelayedError();
    }
    let finished = false;
    try {
      const result = await this.runReply(job, signal);
      finished = true;
      return result;
    } catch (error) {
      if (error instanceof ReplyLeaseError) {
        // The reply is still held by the process that ran it (alive, or dead less than a lease
        // ago): never run twice; look again later, without using an attempt.
        await job.moveToDelayed(Date.now() + 4 * (this.options.turnPollMs ?? 250), token);
        throw new DelayedError();
      }
      // Failed for good (no attempt left, or unrecoverable): the session's next reply may run.
      finished = error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      throw error;
    } finally {
      if (finished && turn !== undefined) await this.turns.finish(sessionId, turn).catch(this.onError);
    }
  }

  /**
   * Whether `turn` is the session's current one. Turns whose job is gone or finished without
   * passing the turn on (removed, failed by stalled-job recovery, a producer that died between
   * taking a turn and adding its job) are passed over.
   */
  private async isTurnOf(sessionId: string, turn: number): Promise<boolean> {
    for (;;) {
      const current = await this.turns.current(sessionId);
      if (turn <= current.turn) return true;
      const state = current.jobId ? await this.worker.getBackend().getState(current.jobId) : 'unknown';
      if (state !== 'unknown' && state !== 'completed' && state !== 'failed') return false;
      await this.turns.finish(sessionId, current.turn);
    }
  }

  private async runReply(
    job: Job<ReplyJobData, ReplyJobResult>,
    signal: AbortSignal | undefined,
  ): Promise<ReplyJobResult> {
    const { sessionId } = job.data;
    const agent = await this.options.agent(sessionId);
    // A retry of a job whose worker died mid-reply continues that reply from its last checkpoint.
    const input = (await recoverable(agent, job)) ? ({ type: 'RECOVER_REPLY' } as const) : job.data.input;
    await this.closeDeadAttempt(job, input !== job.data.input);
    // A recovered reply continues, on the bus, the stream the dead worker left open.
    const splice = input !== job.data.input ? await RecoveredReplySplice.of(this.options.bus, sessionId) : undefined;
    const key = `${job.id ?? ''}:${job.attemptsStarted}`;
    this.running.set(key, agent);
    const abort = () => agent.interrupt('the job was cancelled');
    signal?.addEventListener('abort', abort, { once: true });
    const tracker = new ReplyTracker();
    let replyId: string | undefined;
    let finishReason: ReplyFinishReason | undefined;
    try {
      await lastValueFrom(
        agent.reply(input).pipe(
          tap((event) => tracker.apply(event)),
          concatMap((event) => from(this.record(job, sessionId, event, splice)).pipe(map(() => event))),
          tap((event) => {
            if (event.type === 'REPLY_START' && replyId === undefined) replyId = event.replyId;
            if (event.type === 'REPLY_END' && event.replyId === replyId) finishReason = event.finishReason;
          }),
        ),
        { defaultValue: undefined },
      );
    } catch (error) {
      if (replyId === undefined) {
        // Refused before it started (a wrong confirmation, nothing to resume): running it again changes nothing.
        throw error instanceof AgentUsageError ? new UnrecoverableError(error.message) : error;
      }
      await this.appendAll(sessionId, tracker.end('error', error, sessionId));
      throw error;
    } finally {
      signal?.removeEventListener('abort', abort);
      this.running.delete(key);
    }
    if (replyId === undefined || finishReason === undefined) throw new Error('the reply ended without REPLY_END');
    return { replyId, finishReason };
  }

  /** Appends one event; at `REPLY_START`, records the reply's id on the job first. */
  private async record(
    job: Job<ReplyJobData, ReplyJobResult>,
    sessionId: string,
    event: AgentEvent,
    splice: RecoveredReplySplice | undefined,
  ): Promise<void> {
    if (event.type === 'REPLY_START' && !isReplyJobProgress(job.progress))
      await job.updateProgress({ replyId: event.replyId, source: event.source });
    for (const e of splice ? splice.next(event) : [event]) await this.options.bus.append(sessionId, e);
  }

  /**
   * A job that ran before (its worker died mid-reply) left a reply open on the bus: end it, so
   * listeners see it ended before the new attempt's reply starts (nothing of it was saved). When
   * it is recovered instead, it is not ended: the same reply goes on from its last checkpoint, with
   * a new `REPLY_START` and `CUSTOM reply_recovered`.
   */
  private async closeDeadAttempt(job: Job<ReplyJobData, ReplyJobResult>, recovering: boolean): Promise<void> {
    if (!isReplyJobProgress(job.progress) || recovering) return;
    const tracker = new ReplyTracker();
    const { sessionId } = job.data;
    const { replyId, source } = job.progress;
    tracker.apply(createEvent('REPLY_START', { sessionId }, { replyId, source }));
    const why = 'the worker running this reply stopped before it ended; the job runs again from the last saved state';
    await this.appendAll(sessionId, tracker.end('error', new Error(why), sessionId));
    await job.updateProgress({});
  }

  private async appendAll(sessionId: string, events: readonly AgentEvent[]): Promise<void> {
    try {
      for (const event of events) await this.options.bus.append(sessionId, event);
    } catch (error) {
      this.onError(error);
    }
  }
}

/** True when the job's earlier attempt left its reply running, recoverable from the session's journal. */
async function recoverable(agent: Agent, job: Job<ReplyJobData, ReplyJobResult>): Promise<boolean> {
  if (!isReplyJobProgress(job.progress)) return false;
  const left = await agent.recoverable();
  return left !== undefined && left.replyId === job.progress.replyId;
}
