import type { MessageBus } from './bus/message-bus.js';
import type { HarnessOptions } from './harness-options.js';
import type { AssembledPart } from './harness-part.js';
import { InboxMiddleware } from './middleware/inbox/index.js';

/** The inbox part of a harness: messages pushed to the session's inbox join the running reply. */
export function inboxPart(options: HarnessOptions, bus: MessageBus): AssembledPart {
  const inbox = options.inbox ?? true;
  if (inbox === false)
    return { part: { name: 'InboxMiddleware', option: 'inbox', enabled: false, reason: 'inbox: false' } };
  const where = options.bus ? 'the given bus' : 'an in-memory bus (this process only)';
  return {
    part: {
      name: 'InboxMiddleware',
      option: 'inbox',
      enabled: true,
      reason: `messages pushed to inbox:<session> on ${where} join the running reply's next step`,
    },
    middleware: new InboxMiddleware({ ...(typeof inbox === 'object' ? inbox : {}), bus }),
  };
}
