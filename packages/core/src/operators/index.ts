// Stream operators over agent events (browser-safe): fold a reply into its message, follow its
// text, follow the calls waiting for a person.
export { toMessage } from './to-message.js';
export { textOf } from './text-of.js';
export type { TextOfOptions } from './text-of.js';
export { pendingConfirmations } from './pending-confirmations.js';
export { throwOnErrorEnd } from './throw-on-error-end.js';
export type { ThrowOnErrorEndOptions } from './throw-on-error-end.js';
