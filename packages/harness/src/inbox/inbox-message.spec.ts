// Inbox messages on the bus: which messages are accepted (and how they are stored), which are
// refused and how (a rejected promise, nothing queued), and what the agent reads for each.
import { RxscopeError } from '@rxscope/core';
import { InMemoryMessageBus } from '../bus/index.js';
import { LeaseBusyError } from '../coordination/index.js';
import { checkInboxMessage, inboxQueueOf, inboxText, pushToInbox } from './inbox-message.js';

describe('inbox messages', () => {
  let bus: InMemoryMessageBus;
  beforeEach(() => {
    bus = new InMemoryMessageBus();
  });
  afterEach(() => bus.close());

  it('queues a string as {text} on inbox:<sessionId>, in push order', async () => {
    await pushToInbox(bus, 's1', 'first');
    await pushToInbox(bus, 's1', { text: 'second', from: 'reviewer' });
    expect(await bus.drain(inboxQueueOf('s1'))).toEqual([{ text: 'first' }, { text: 'second', from: 'reviewer' }]);
    expect(inboxQueueOf('s1')).toBe('inbox:s1');
  });

  it('keeps sessions apart', async () => {
    await pushToInbox(bus, 'a', 'for a');
    expect(await bus.drain('inbox:b')).toEqual([]);
    expect(await bus.drain('inbox:a')).toEqual([{ text: 'for a' }]);
  });

  it('stores only text and from, dropping other fields and an empty from', () => {
    expect(checkInboxMessage({ text: 'hi', from: '', extra: 1 })).toEqual({ text: 'hi' });
    expect(checkInboxMessage({ text: 'hi', from: 'ops', priority: 'high' })).toEqual({ text: 'hi', from: 'ops' });
  });

  it.each([
    ['an empty string', ''],
    ['only whitespace', ' \n\t '],
    ['null', null],
    ['a number', 42],
    ['an object without text', { from: 'x' }],
    ['text that is not a string', { text: 5 }],
  ])('refuses %s, saying what a message is, and queues nothing', async (_label, message) => {
    await expect(pushToInbox(bus, 's1', message as never)).rejects.toThrow(
      'An inbox message is a non-empty string or {text, from?}; got ',
    );
    expect(await bus.drain('inbox:s1')).toEqual([]);
  });

  it('refuses a from that is not a string', async () => {
    await expect(pushToInbox(bus, 's1', { text: 'hi', from: 7 } as never)).rejects.toThrow(
      'An inbox message\'s "from" must be a string.',
    );
  });

  it('refuses an empty or missing session id as a rejection, never a synchronous throw', async () => {
    let promise: Promise<void> | undefined;
    expect(() => {
      promise = pushToInbox(bus, '', 'hello');
    }).not.toThrow();
    await expect(promise).rejects.toThrow('The inbox needs a session id (a non-empty string).');
    await expect(pushToInbox(bus, undefined as never, 'hello')).rejects.toBeInstanceOf(TypeError);
    expect(() => inboxQueueOf('')).toThrow(TypeError);
  });

  it('passes on the bus’s own refusal, such as a closed bus', async () => {
    await bus.close();
    await expect(pushToInbox(bus, 's1', 'late')).rejects.toThrow('this bus is closed');
  });

  it('shows the agent who sent a message before its text, and the bare text otherwise', () => {
    expect(inboxText({ text: 'Also update the changelog.', from: 'reviewer' })).toBe(
      '[message from reviewer]\nAlso update the changelog.',
    );
    expect(inboxText({ text: 'Stop after the first file.' })).toBe('Stop after the first file.');
  });
});

describe('LeaseBusyError', () => {
  it('carries the stable code lease_busy, the key and the holder, and names both', () => {
    const e = new LeaseBusyError('flush:s1', 'host-a:4242:k2x9');
    expect(e).toBeInstanceOf(RxscopeError);
    expect(e.code).toBe('lease_busy');
    expect(e.name).toBe('LeaseBusyError');
    expect(e).toMatchObject({ key: 'flush:s1', holder: 'host-a:4242:k2x9' });
    expect(e.message).toBe('The lease "flush:s1" is held by another process (host-a:4242:k2x9).');
  });

  it('says the holder is unknown when it is, and keeps a message given', () => {
    expect(new LeaseBusyError('maintenance:/ws', undefined).message).toContain('(unknown holder)');
    expect(new LeaseBusyError('k', 'h', 'lost it').message).toBe('lost it');
  });
});
