import { InMemoryMessageBus } from '../bus/index.js';
import { builtOne, partEnv } from '../__tests__/part-env.js';
import { InboxMiddleware } from './inbox-middleware/index.js';
import { inboxPart } from './inbox-part.js';

describe('the inbox part', () => {
  const env = partEnv();
  afterAll(() => env.cleanup());

  it('is on by default, on the in-memory bus of this process unless a bus is given', () => {
    const local = builtOne(inboxPart, {}, env);
    expect(local.middleware).toBeInstanceOf(InboxMiddleware);
    expect(local.part.reason).toBe(
      "messages pushed to inbox:<session> on an in-memory bus (this process only) join the running reply's next step",
    );
    const shared = builtOne(inboxPart, { bus: new InMemoryMessageBus(), inbox: {} }, env);
    expect(shared.part.reason).toContain('on the given bus');
  });

  it('is off with false', () => {
    expect(builtOne(inboxPart, { inbox: false }, env)).toEqual({
      part: { name: 'InboxMiddleware', option: 'inbox', enabled: false, reason: 'inbox: false' },
    });
  });
});
