// The Redis bus against a real redis-server: the same contract as the in-memory bus (bounded
// log, replay after Last-Event-ID, gap notice, the reply in progress), live delivery across
// connections, and a second Node process serving the stream of a reply that runs in this one.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { filter, firstValueFrom, lastValueFrom, take, takeWhile, toArray } from 'rxjs';
import { Agent, fromAgentEventStream, REPLAY_GAP, type AgentEvent } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { assertReplyGrammar } from '../../testing/index.js';
import {
  startOpenAITestServer,
  startRedisServer,
  type OpenAITestServer,
  type RedisTestServer,
} from '../../testing/node/index.js';
import { AgentSessions, RedisSessionEventBus } from '../index.js';
import { waitFor } from './helpers.js';

const untilEnd = takeWhile((e: AgentEvent) => e.type !== 'REPLY_END', true);
const TSX = require.resolve('tsx/cli');

describe('RedisSessionEventBus on a real redis-server', () => {
  let redisServer: RedisTestServer;
  let redis: Redis;
  let model: OpenAITestServer;
  let prefix: string;
  let buses: RedisSessionEventBus[];
  let sessions: AgentSessions;

  beforeAll(async () => {
    redisServer = await startRedisServer();
  }, 20_000);
  afterAll(async () => {
    await redisServer?.stop();
  });
  beforeEach(async () => {
    redis = new Redis(redisServer.url);
    prefix = `test:${Math.random().toString(36).slice(2)}:`;
    buses = [];
  });
  afterEach(async () => {
    await sessions?.close();
    for (const bus of buses) await bus.close();
    await model?.close();
    redis.disconnect();
  });
  const newBus = (maxEvents = 1000) => {
    const bus = new RedisSessionEventBus({ redis, prefix, maxEvents });
    buses.push(bus);
    return bus;
  };
  async function setUp(options: Parameters<typeof startOpenAITestServer>[0], maxEvents = 1000) {
    model = await startOpenAITestServer(options);
    const chat = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url });
    sessions = new AgentSessions({ agent: (id) => new Agent({ model: chat, sessionId: id }), bus: newBus(maxEvents) });
  }

  it('delivers a detached reply live to a listener on another bus (another connection), and replays after an event id', async () => {
    await setUp({ script: [{ text: Array.from({ length: 12 }, (_, i) => `t${i} `) }], chunkDelayMs: 10 });
    const other = newBus();
    const live = lastValueFrom(other.events('s1').pipe(untilEnd, toArray()));
    await new Promise((r) => setTimeout(r, 50));
    await sessions.start('s1', 'Go');
    const all = await live;
    expect(assertReplyGrammar(all).finishReason).toBe('completed');
    expect(all[0]!.type).toBe('REPLY_START');

    // Replay after the 5th event: exactly the rest, in order.
    const rest = await firstValueFrom(
      other.events('s1', { lastEventId: all[4]!.id }).pipe(take(all.length - 5), toArray()),
    );
    expect(rest).toEqual(all.slice(5));
    // The reply ended: a new listener without an id starts empty (the next event is live).
    const keys = await redis.keys(`${prefix}s1:*`);
    expect(keys.sort()).toEqual([`${prefix}s1:log`]);
  });

  it('joins the reply in progress from its REPLY_START, with no event missed or repeated between replay and live', async () => {
    await setUp({ script: [{ text: Array.from({ length: 40 }, (_, i) => `${i} `) }], chunkDelayMs: 5 });
    const witness = lastValueFrom(newBus().events('s2').pipe(untilEnd, toArray()));
    await new Promise((r) => setTimeout(r, 50));
    await sessions.start('s2', 'Count');
    await new Promise((r) => setTimeout(r, 60));
    const joined = await lastValueFrom(newBus().events('s2').pipe(untilEnd, toArray()));
    expect(joined).toEqual(await witness);
  });

  it('keeps maxEvents per session and starts a too-old replay with the gap notice', async () => {
    await setUp({ script: [{ text: Array.from({ length: 20 }, (_, i) => `${i}`) }] }, 8);
    const all = lastValueFrom(sessions.events('s3').pipe(untilEnd, toArray()));
    await new Promise((r) => setTimeout(r, 50));
    await sessions.start('s3', 'Count');
    const events = await all;
    expect(await redis.xlen(`${prefix}s3:log`)).toBe(8);
    const replay = await firstValueFrom(sessions.events('s3', { lastEventId: events[0]!.id }).pipe(take(9), toArray()));
    expect(replay[0]).toMatchObject({ type: 'CUSTOM', name: REPLAY_GAP, value: { lastEventId: events[0]!.id } });
    expect(replay.slice(1)).toEqual(events.slice(-8));
    expect(await redis.ttl(`${prefix}s3:log`)).toBeGreaterThan(3600);
  });

  it('lets a second Node process serve the stream of a reply running in this one, with Last-Event-ID', async () => {
    await setUp({ script: [{ text: Array.from({ length: 30 }, (_, i) => `w${i} `) }], chunkDelayMs: 15 });
    const relay: ChildProcess = spawn(process.execPath, [TSX, join(__dirname, 'fixtures', 'sse-relay.ts')], {
      env: { ...process.env, REDIS_URL: redisServer.url, REDIS_PREFIX: prefix },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      let err = '';
      relay.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
      relay.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
      await waitFor(() => out.includes('listening'), 20_000, `the relay process to listen (stderr: ${err})`);
      const relayUrl = /listening (\S+)/.exec(out)![1]!;

      const witness = lastValueFrom(sessions.events('s4').pipe(untilEnd, toArray()));
      const firstPart = firstValueFrom(
        fromAgentEventStream(`${relayUrl}/sessions/s4/events`).pipe(
          filter((e) => e.type === 'TEXT_BLOCK_DELTA'),
          take(4),
          toArray(),
        ),
      );
      await new Promise((r) => setTimeout(r, 150));
      await sessions.start('s4', 'Talk'); // runs here; the relay process has no agent
      const seen = await firstPart; // ... then that client disconnects
      const rest = await lastValueFrom(
        fromAgentEventStream(`${relayUrl}/sessions/s4/events`, { lastEventId: seen[3]!.id }).pipe(untilEnd, toArray()),
      );
      const all = await witness;
      expect(rest).toEqual(all.slice(all.findIndex((e) => e.id === seen[3]!.id) + 1));
      expect(assertReplyGrammar(all).finishReason).toBe('completed');
    } finally {
      relay.kill('SIGTERM');
    }
  }, 30_000);
});
