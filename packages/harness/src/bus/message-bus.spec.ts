// The MessageBus contract, run against the in-memory bus and against RedisMessageBus on a real
// redis-server (the Redis half fails, never skips, without one).
import { startRedisServer, type RedisTestServer } from '@rxscope/core/testing/node';
import { Redis } from 'ioredis';
import { concatMap, firstValueFrom, take, toArray } from 'rxjs';
import { InMemoryMessageBus } from './in-memory-message-bus.js';
import type { MessageBus } from './message-bus.js';
import { RedisMessageBus } from '../redis/index.js';

let redisServer: RedisTestServer;
const clients: Redis[] = [];
beforeAll(async () => {
  redisServer = await startRedisServer();
}, 20_000);
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await redisServer?.stop();
});

/**
 * Two buses sharing one store (two processes on one Redis, or one in-memory bus seen twice), and
 * a wait until `n` connections listen on a broadcast channel (pub/sub subscribes asynchronously).
 */
type Pair = () => { a: MessageBus; b: MessageBus; listening: (channel: string, n: number) => Promise<void> };
const until = async (check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 400 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
};
const pairs: [string, Pair][] = [
  [
    'InMemoryMessageBus',
    () => {
      const bus = new InMemoryMessageBus({ maxLogEntries: 5 });
      return { a: bus, b: bus, listening: async () => undefined };
    },
  ],
  [
    'RedisMessageBus',
    () => {
      const prefix = `t${Math.random().toString(36).slice(2)}:`;
      const [ra, rb] = [new Redis(redisServer.url), new Redis(redisServer.url)];
      clients.push(ra, rb);
      return {
        a: new RedisMessageBus({ redis: ra, prefix, maxLogEntries: 5 }),
        b: new RedisMessageBus({ redis: rb, prefix, maxLogEntries: 5 }),
        listening: (channel, n) =>
          until(
            async () => Number(((await ra.pubsub('NUMSUB', `${prefix}ch:${channel}`)) as [string, number])[1]) >= n,
          ),
      };
    },
  ],
];

describe.each(pairs)('%s', (_name, makePair) => {
  let a: MessageBus;
  let b: MessageBus;
  let listening: (channel: string, n: number) => Promise<void>;
  beforeEach(() => ({ a, b, listening } = makePair()));
  afterEach(async () => {
    await a.close();
    await b.close();
  });

  describe('queue', () => {
    it('hands each entry to exactly one drain, in push order, whoever drains', async () => {
      for (let i = 0; i < 20; i++) await a.push('q', { n: i });
      const [x, y, z] = await Promise.all([
        a.drain<{ n: number }>('q', { max: 7 }),
        b.drain<{ n: number }>('q', { max: 7 }),
        b.drain<{ n: number }>('q'),
      ]);
      const all = [...x, ...y, ...z].map((m) => m.n);
      expect(all.sort((p, q) => p - q)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      for (const part of [x, y, z])
        expect(part.map((m) => m.n)).toEqual([...part.map((m) => m.n)].sort((p, q) => p - q));
      expect(await a.drain('q')).toEqual([]);
      expect(await a.drain('other')).toEqual([]);
    });

    it('pushed: wakes a listener at once for what is already there, then for every push from the other side', async () => {
      await a.push('inbox', 'early');
      const got: string[] = [];
      const seen = firstValueFrom(
        b.pushed('inbox').pipe(
          concatMap(() => b.drain<string>('inbox')),
          concatMap((batch) => batch),
          take(3),
          toArray(),
        ),
      );
      await new Promise((r) => setTimeout(r, 50));
      await a.push('inbox', 'second');
      await a.push('inbox', 'third');
      got.push(...(await seen));
      expect(got).toEqual(['early', 'second', 'third']);
    });

    it('peek reads after a cursor without taking; ack removes up to an id, from either side', async () => {
      for (const m of ['one', 'two', 'three']) await a.push('q', m);
      const all = await b.peek<string>('q');
      expect(all.map((e) => e.message)).toEqual(['one', 'two', 'three']);
      expect(await a.peek<string>('q')).toEqual(all); // still there, same ids
      expect((await b.peek<string>('q', { after: all[0]!.id })).map((e) => e.message)).toEqual(['two', 'three']);
      expect((await b.peek<string>('q', { after: all[0]!.id, max: 1 })).map((e) => e.message)).toEqual(['two']);
      await b.ack('q', all[1]!.id);
      expect((await a.peek<string>('q')).map((e) => e.message)).toEqual(['three']);
      await a.push('q', 'four');
      const rest = await a.peek<string>('q', { after: all[2]!.id });
      expect(rest.map((e) => e.message)).toEqual(['four']); // ids keep increasing
      await a.ack('q', rest[0]!.id);
      expect(await b.peek('q')).toEqual([]);
      expect(await b.drain('q')).toEqual([]);
      await expect(a.peek('q', { after: 'nope' })).rejects.toThrow('is not an entry id of this queue');
      await expect(a.ack('q', '12')).rejects.toThrow('is not an entry id of this queue');
    });

    it('copies messages (a receiver never shares the sender object) and refuses what JSON cannot carry', async () => {
      const sent = { list: [1] };
      await a.push('q', sent);
      sent.list.push(2);
      expect(await b.drain('q')).toEqual([{ list: [1] }]);
      await expect(a.push('q', undefined)).rejects.toThrow('a message cannot be undefined');
      await expect(a.push('q', () => 1)).rejects.toThrow('is not a JSON value');
      await expect(a.push('', 'x')).rejects.toThrow('the queue name must be a non-empty string');
    });
  });

  describe('replay log', () => {
    it('reads by cursor, each reader at its own pace, and keeps only the newest entries', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(await a.append('log', `e${i}`));
      const first = await b.read<string>('log', { limit: 2 });
      expect(first.entries.map((e) => e.message)).toEqual(['e0', 'e1']);
      expect(first.entries.map((e) => e.id)).toEqual(ids.slice(0, 2));
      const rest = await b.read<string>('log', { after: first.cursor });
      expect(rest.entries.map((e) => e.message)).toEqual(['e2']);
      // Nothing new: the cursor stays.
      expect(await b.read('log', { after: rest.cursor })).toEqual({ entries: [], cursor: rest.cursor });
      // Another reader from the start still sees all three: reading takes nothing away.
      expect((await a.read<string>('log')).entries.map((e) => e.message)).toEqual(['e0', 'e1', 'e2']);
      for (let i = 3; i < 8; i++) await a.append('log', `e${i}`);
      expect((await b.read<string>('log')).entries.map((e) => e.message)).toEqual(['e3', 'e4', 'e5', 'e6', 'e7']);
      expect((await b.read<string>('log', { after: rest.cursor })).entries.map((e) => e.message)).toEqual([
        'e3',
        'e4',
        'e5',
        'e6',
        'e7',
      ]);
      await expect(b.read('log', { after: 'not a cursor' })).rejects.toThrow(
        '"not a cursor" is not a cursor of this bus',
      );
    });

    it('delete forgets a log and a queue', async () => {
      await a.append('x', 1);
      await a.push('x', 2);
      await b.delete('x');
      expect((await a.read('x')).entries).toEqual([]);
      expect(await a.drain('x')).toEqual([]);
    });
  });

  describe('broadcast', () => {
    it('delivers to every current subscriber on either side, not to later ones', async () => {
      const one = firstValueFrom(a.subscribe<string>('news').pipe(take(2), toArray()));
      const two = firstValueFrom(b.subscribe<string>('news').pipe(take(2), toArray()));
      await listening('news', 2);
      await a.publish('news', 'm1');
      await b.publish('news', 'm2');
      expect(await one).toEqual(['m1', 'm2']);
      expect(await two).toEqual(['m1', 'm2']);
      const late: string[] = [];
      const sub = a.subscribe<string>('news').subscribe((m) => late.push(m));
      await listening('news', 1);
      await b.publish('news', 'm3');
      await until(() => late.length > 0);
      sub.unsubscribe();
      expect(late).toEqual(['m3']);
    });

    it('ends its subscriptions when the bus closes', async () => {
      const done = firstValueFrom(a.subscribe('c').pipe(toArray()));
      const wakes = firstValueFrom(a.pushed('q').pipe(toArray()));
      await new Promise((r) => setTimeout(r, 50));
      await a.close();
      expect(await done).toEqual([]);
      expect((await wakes).length).toBeGreaterThanOrEqual(1);
    });
  });
});

describe('RedisMessageBus on Redis', () => {
  it('keeps its data under its prefix: queues and logs are streams', async () => {
    const redis = new Redis(redisServer.url);
    clients.push(redis);
    const bus = new RedisMessageBus({ redis, prefix: 'keys-test:' });
    await bus.push('inbox:s1', { text: 'hi' });
    await bus.append('tasks', { id: 't1' });
    expect((await redis.keys('keys-test:*')).sort()).toEqual(['keys-test:log:tasks', 'keys-test:q:inbox:s1']);
    expect(await redis.type('keys-test:q:inbox:s1')).toBe('stream');
    expect(await redis.ttl('keys-test:log:tasks')).toBeGreaterThan(6 * 24 * 3600);
    await bus.close();
  });

  it('refuses a client that is not ioredis', () => {
    expect(() => new RedisMessageBus({ redis: {} as Redis })).toThrow('RedisMessageBus needs an ioredis client');
  });
});
