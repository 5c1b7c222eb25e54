// Stream operators over agent events (browser-safe): fold a reply into its message, follow its
// text, follow the calls waiting for a person.
export { toMessage, toMsg } from './to-msg.js';
export { textOf, toText } from './to-text.js';
export type { TextOfOptions, ToTextOptions } from './to-text.js';
export { pendingConfirmations } from './pending-confirmations.js';
export { throwOnErrorEnd } from './throw-on-error-end.js';
export type { ThrowOnErrorEndOptions } from './throw-on-error-end.js';
