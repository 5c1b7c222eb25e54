import type { RedisClient } from 'bullmq';

// One hash per session: `enqueued` (turns given out), `done` (turns finished), `job:<n>` (the job of turn n).
// Take a turn. KEYS: hash. ARGV: job id, ttl seconds. Returns the turn's number.
const TAKE = `
local n = redis.call('HINCRBY', KEYS[1], 'enqueued', 1)
redis.call('HSET', KEYS[1], 'job:' .. n, ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return n`;

// Finish turn n if it is the current one. KEYS: hash. ARGV: n. Returns 1 when it advanced.
const FINISH = `
local done = tonumber(redis.call('HGET', KEYS[1], 'done') or '0')
if done + 1 ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'done', ARGV[1])
redis.call('HDEL', KEYS[1], 'job:' .. ARGV[1])
return 1`;

/** Turns kept this long after a session's last enqueue (a day more than BullMQ's stalled checks need). */
const TTL_SECONDS = 30 * 24 * 3600;

/**
 * The order of a session's replies across workers: each enqueued reply takes the next turn of its
 * session, and a worker runs a job only in its turn, after every earlier one of the session has
 * finished (completed, failed for good, or gone). Lives in the queue's Redis, beside BullMQ's keys.
 */
export class SessionTurns {
  private defined = false;

  constructor(
    private readonly client: () => Promise<RedisClient>,
    /** The prefix of the hashes: `<bull prefix>:<queue>:rxscope-turns`. */
    private readonly prefix: string,
  ) {}

  /** Gives `jobId` the session's next turn; resolves with its number. */
  async take(sessionId: string, jobId: string): Promise<number> {
    return Number(await this.run('rxscopeTakeTurn', [this.keyOf(sessionId), jobId, TTL_SECONDS]));
  }

  /** Marks turn `n` finished if it is the current one (a later call for it changes nothing). */
  async finish(sessionId: string, n: number): Promise<boolean> {
    return Number(await this.run('rxscopeFinishTurn', [this.keyOf(sessionId), n])) === 1;
  }

  /** The session's current turn and its job's id. */
  async current(sessionId: string): Promise<{ turn: number; jobId: string | undefined }> {
    const client = await this.client();
    const done = Number((await client.hget(this.keyOf(sessionId), 'done')) ?? 0);
    const jobId = await client.hget(this.keyOf(sessionId), `job:${done + 1}`);
    return { turn: done + 1, jobId: jobId ?? undefined };
  }

  private keyOf(sessionId: string): string {
    return `${this.prefix}:${sessionId}`;
  }

  private async run(name: string, args: unknown[]): Promise<unknown> {
    const client = await this.client();
    if (!this.defined) {
      client.defineCommand('rxscopeTakeTurn', { numberOfKeys: 1, lua: TAKE });
      client.defineCommand('rxscopeFinishTurn', { numberOfKeys: 1, lua: FINISH });
      this.defined = true;
    }
    return client.runCommand(name, args);
  }
}
