// @rxscope/devtools: the recorder, its middleware and the record types. Browser-safe (no Node
// APIs): the devtools page imports the record types from here. The HTTP handler is in ./node.
// Explicit named exports only.
export type {
  RecordedEvent,
  RecordedHook,
  RecorderFeedItem,
  ReplyRecord,
  ReplyStatus,
  ReplySummary,
} from './record/records.js';
export { sanitize, REDACTED } from './record/sanitize.js';
export type { SanitizeOptions, Sanitized } from './record/sanitize.js';
export { DevtoolsRecorder } from './recorder/devtools-recorder.js';
export type { DevtoolsRecorderOptions, ResolvedRecorderOptions } from './recorder/recorder-options.js';
export type { ReplyIdentity } from './recorder/reply-entry.js';
export { DevtoolsMiddleware } from './middleware/devtools-middleware.js';
export type { DevtoolsMiddlewareOptions } from './middleware/devtools-middleware.js';
export { instrumentMiddlewares } from './middleware/instrument-middlewares.js';
export { DevtoolsError } from './devtools-error.js';
export type { DevtoolsErrorCode } from './devtools-error.js';
