// What the rest of the harness may use of inbox/: its other files are its own.
export { INBOX_WAKE_CHANNEL, inboxQueueOf, pushToInbox, wakeQueueOf, type InboxMessage } from './inbox-message.js';
export { InboxWakeUps, type InboxWakeUpsOptions, type WakeableSessions } from './inbox-wake-ups.js';
export { InboxMiddleware, type InboxOptions } from './inbox-middleware/index.js';
