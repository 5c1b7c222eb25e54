// @rxscope/core/node — Node-only parts (file system). Explicit named exports only.
export { FileSessionStore } from './file-session-store.js';
export type { FileSessionStoreOptions } from './file-session-store.js';
