// What the rest of the harness may use of inbox/: its other files are its own.
export { inboxQueueOf, pushToInbox, type InboxMessage } from './inbox-message.js';
export { InboxMiddleware, type InboxOptions } from './inbox-middleware/index.js';
