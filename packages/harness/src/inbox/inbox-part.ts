import { type HarnessPartDefinition, objectOf, offPart, onPart } from '../harness-part.js';
import type { MessageBus } from '../bus/index.js';
import { InboxMiddleware, type InboxOptions } from './inbox-middleware/index.js';

/** The options the inbox part reads. */
export interface InboxPartOptions {
  readonly inbox?: boolean | Omit<InboxOptions, 'bus'>;
  readonly bus?: MessageBus;
}

/** Messages pushed to the session's inbox join the running reply. */
export const inboxPart: HarnessPartDefinition<InboxPartOptions> = {
  build(options, env) {
    const name = 'InboxMiddleware';
    const inbox = options.inbox ?? true;
    if (inbox === false) return offPart(name, 'inbox', 'inbox: false');
    const where = options.bus ? 'the given bus' : 'an in-memory bus (this process only)';
    return onPart(name, 'inbox', `messages pushed to inbox:<session> on ${where} join the running reply's next step`, {
      middleware: new InboxMiddleware({ ...objectOf(inbox), bus: env.bus }),
    });
  },
};
