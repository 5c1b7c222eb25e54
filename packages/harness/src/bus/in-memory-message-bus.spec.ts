// InMemoryMessageBus beyond the shared contract: the refusals of bad names, cursors, limits and
// messages (always as a rejected promise, never a synchronous throw), a closed bus, and the
// bounds of drain, peek, ack and read.
import { firstValueFrom, take, toArray } from 'rxjs';
import { InMemoryMessageBus } from './in-memory-message-bus.js';
import { compareQueueIds } from './message-bus.js';

describe('InMemoryMessageBus', () => {
  let bus: InMemoryMessageBus;
  beforeEach(() => {
    bus = new InMemoryMessageBus();
  });
  afterEach(() => bus.close());

  describe('refusals', () => {
    it.each([
      ['an empty queue name', () => bus.push('', 1), 'the queue name must be a non-empty string, got "".'],
      ['a numeric log name', () => bus.append(7 as never, 1), 'the log name must be a non-empty string, got 7.'],
      ['a missing channel name', () => bus.publish(undefined as never, 1), 'the channel name must be a non-empty'],
      ['an empty drain queue', () => bus.drain(''), 'the queue name must be a non-empty string'],
      ['a null read log', () => bus.read(null as never), 'the log name must be a non-empty string, got null.'],
    ])('rejects %s, naming the kind of name', async (_label, call, message) => {
      await expect(call()).rejects.toThrow(message);
    });

    it('rejects rather than throws, so a caller’s .catch sees every refusal', () => {
      let thrown: unknown;
      let promise: Promise<unknown> | undefined;
      try {
        promise = bus.push('', undefined);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeUndefined();
      return expect(promise).rejects.toBeInstanceOf(TypeError);
    });

    it.each([
      ['undefined', undefined, 'a message cannot be undefined'],
      ['a function', () => 1, 'a function is not a JSON value'],
      ['a symbol', Symbol('s'), 'a symbol is not a JSON value'],
    ])('refuses %s as a message, on a queue, a log and a channel', async (_label, message, text) => {
      await expect(bus.push('q', message)).rejects.toThrow(text);
      await expect(bus.append('log', message)).rejects.toThrow(text);
      await expect(bus.publish('ch', message)).rejects.toThrow(text);
      expect(await bus.drain('q')).toEqual([]);
    });

    it('refuses a message JSON cannot write (a BigInt, a cycle) and leaves the queue empty', async () => {
      await expect(bus.push('q', { n: 1n })).rejects.toThrow(TypeError);
      const cycle: Record<string, unknown> = {};
      cycle.self = cycle;
      await expect(bus.push('q', cycle)).rejects.toThrow(TypeError);
      expect(await bus.peek('q')).toEqual([]);
    });

    it.each([-1, 1.5, '3', Number.NaN])('refuses max %p for drain and peek', async (max) => {
      await bus.push('q', 'x');
      await expect(bus.drain('q', { max: max as never })).rejects.toThrow(
        `MessageBus.drain: max must be a positive integer, got ${String(max)}.`,
      );
      await expect(bus.peek('q', { max: max as never })).rejects.toThrow('MessageBus.peek: max must be');
      expect(await bus.drain('q')).toEqual(['x']);
    });

    it.each(['abc', '12', '1-2-3', '', '-1-0'])('refuses %j as a queue cursor for peek and ack', async (id) => {
      await bus.push('q', 'kept');
      await expect(bus.peek('q', { after: id })).rejects.toThrow(`MessageBus.peek: "${id}" is not an entry id`);
      await expect(bus.ack('q', id)).rejects.toThrow(`MessageBus.ack: "${id}" is not an entry id`);
      expect(await bus.drain('q')).toEqual(['kept']);
    });

    it.each(['x', '-1', '1.5'])('refuses %j as a log cursor', async (after) => {
      await expect(bus.read('log', { after })).rejects.toThrow(`MessageBus.read: "${after}" is not a cursor`);
    });

    it('refuses a bad name for pushed and subscribe when asked, before anything is subscribed', () => {
      expect(() => bus.pushed('')).toThrow('the queue name must be a non-empty string');
      expect(() => bus.subscribe('')).toThrow('the channel name must be a non-empty string');
    });
  });

  describe('a closed bus', () => {
    it('refuses new messages but still hands out what it holds', async () => {
      await bus.push('q', 'before');
      await bus.append('log', 'entry');
      await bus.close();
      await expect(bus.push('q', 'after')).rejects.toThrow('MessageBus: this bus is closed.');
      await expect(bus.append('log', 'after')).rejects.toThrow('this bus is closed');
      await expect(bus.publish('ch', 'after')).rejects.toThrow('this bus is closed');
      expect(await bus.drain('q')).toEqual(['before']);
      expect((await bus.read('log')).entries.map((e) => e.message)).toEqual(['entry']);
    });

    it('completes a subscription and a pushed listener when it closes', async () => {
      const seen = firstValueFrom(bus.subscribe('ch').pipe(toArray()));
      const wakes = firstValueFrom(bus.pushed('q').pipe(toArray()));
      await bus.close();
      expect(await seen).toEqual([]);
      expect(await wakes).toEqual([undefined]);
    });
  });

  describe('queues', () => {
    it('drains at most max entries from the front, and all with max 0', async () => {
      for (const n of [1, 2, 3, 4, 5]) await bus.push('q', n);
      expect(await bus.drain('q', { max: 2 })).toEqual([1, 2]);
      expect(await bus.drain('q', { max: 0 })).toEqual([3, 4, 5]);
      expect(await bus.drain('q')).toEqual([]);
    });

    it('gives strictly increasing ids even for pushes within one millisecond', async () => {
      for (let i = 0; i < 50; i++) await bus.push('q', i);
      const ids = (await bus.peek('q')).map((e) => e.id);
      for (let i = 1; i < ids.length; i++) expect(compareQueueIds(ids[i]!, ids[i - 1]!)).toBeGreaterThan(0);
    });

    it('compares ids numerically, not as text', () => {
      expect(compareQueueIds('10-0', '9-0')).toBeGreaterThan(0);
      expect(compareQueueIds('5-10', '5-9')).toBeGreaterThan(0);
      expect(compareQueueIds('5-1', '5-1')).toBe(0);
    });

    it('peeks a page after a cursor, then ack of the last id read empties what was read only', async () => {
      for (const n of ['a', 'b', 'c']) await bus.push('q', n);
      const first = await bus.peek<string>('q', { max: 2 });
      expect(first.map((e) => e.message)).toEqual(['a', 'b']);
      const rest = await bus.peek<string>('q', { after: first[1]!.id });
      expect(rest.map((e) => e.message)).toEqual(['c']);
      await bus.ack('q', first[1]!.id);
      expect(await bus.drain('q')).toEqual(['c']);
    });

    it('acks an id past every entry as all of them, and an unknown queue as nothing', async () => {
      await bus.push('q', 1);
      await bus.ack('q', `${Date.now() + 60_000}-0`);
      expect(await bus.peek('q')).toEqual([]);
      await expect(bus.ack('never-used', '1-0')).resolves.toBeUndefined();
    });

    it('hands a drained message as a copy: changing it does not change what another reader gets', async () => {
      const message = { list: [1] };
      await bus.push('q', message);
      message.list.push(2);
      const [peeked] = await bus.peek<{ list: number[] }>('q');
      peeked!.message.list.push(3);
      expect(await bus.drain('q')).toEqual([{ list: [1] }]);
    });
  });

  describe('replay logs', () => {
    it('keeps at least one entry, whatever maxLogEntries says', async () => {
      const tiny = new InMemoryMessageBus({ maxLogEntries: 0 });
      await tiny.append('log', 'old');
      await tiny.append('log', 'new');
      expect((await tiny.read('log')).entries.map((e) => e.message)).toEqual(['new']);
      await tiny.close();
    });

    it('reads pages of limit entries, handing back the cursor given when nothing is new', async () => {
      for (const n of [1, 2, 3]) await bus.append('log', n);
      const page = await bus.read<number>('log', { limit: 2 });
      expect(page.entries.map((e) => e.message)).toEqual([1, 2]);
      const next = await bus.read<number>('log', { after: page.cursor });
      expect(next.entries.map((e) => e.message)).toEqual([3]);
      const idle = await bus.read('log', { after: next.cursor });
      expect(idle).toEqual({ entries: [], cursor: next.cursor });
      expect(await bus.read('empty')).toEqual({ entries: [], cursor: '0' });
    });

    it('keeps ids increasing after old entries are dropped, so a reader never re-reads', async () => {
      const small = new InMemoryMessageBus({ maxLogEntries: 2 });
      const ids = [];
      for (const n of [1, 2, 3, 4]) ids.push(await small.append('log', n));
      expect(ids).toEqual(['1', '2', '3', '4']);
      expect((await small.read('log', { after: '1' })).entries.map((e) => e.id)).toEqual(['3', '4']);
      await small.close();
    });

    it('delete forgets a log, and a new append starts it again', async () => {
      await bus.append('log', 'a');
      await bus.delete('log');
      expect((await bus.read('log')).entries).toEqual([]);
      expect(await bus.append('log', 'b')).toBe('1');
    });
  });

  describe('channels', () => {
    it('delivers to subscribers of that channel only, each receiving its own copy', async () => {
      const one = firstValueFrom(bus.subscribe<{ n: number[] }>('a').pipe(take(1)));
      const two = firstValueFrom(bus.subscribe<{ n: number[] }>('a').pipe(take(1)));
      const other: unknown[] = [];
      const sub = bus.subscribe('b').subscribe((m) => other.push(m));
      await bus.publish('a', { n: [1] });
      const [x, y] = await Promise.all([one, two]);
      x.n.push(2);
      expect(y).toEqual({ n: [1] });
      expect(other).toEqual([]);
      sub.unsubscribe();
    });
  });
});
