// The root entry's aliases of @rxscope/middleware-builtin/recording (recording and replay), which moved to
// its own entry point. Deprecated: they are removed in the next minor version.
import * as recording from '../recording/index.js';

/**
 * Root-entry alias of `RecordingMiddleware` from `@rxscope/middleware-builtin/recording` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { RecordingMiddleware } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export const RecordingMiddleware = recording.RecordingMiddleware;
/**
 * Root-entry alias of `RecordingMiddleware` from `@rxscope/middleware-builtin/recording` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { RecordingMiddleware } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export type RecordingMiddleware = recording.RecordingMiddleware;

/**
 * Root-entry alias of `CassetteMismatchError` from `@rxscope/middleware-builtin/recording` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { CassetteMismatchError } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export const CassetteMismatchError = recording.CassetteMismatchError;
/**
 * Root-entry alias of `CassetteMismatchError` from `@rxscope/middleware-builtin/recording` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { CassetteMismatchError } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export type CassetteMismatchError = recording.CassetteMismatchError;

/**
 * Root-entry alias of `ReplayChatModel` from `@rxscope/middleware-builtin/recording` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { ReplayChatModel } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export const ReplayChatModel = recording.ReplayChatModel;
/**
 * Root-entry alias of `ReplayChatModel` from `@rxscope/middleware-builtin/recording` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { ReplayChatModel } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export type ReplayChatModel = recording.ReplayChatModel;

/**
 * Root-entry alias of `CASSETTE_VERSION` from `@rxscope/middleware-builtin/recording` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { CASSETTE_VERSION } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export const CASSETTE_VERSION = recording.CASSETTE_VERSION;

/**
 * Root-entry alias of `stableEvents` from `@rxscope/middleware-builtin/recording` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { stableEvents } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export const stableEvents = recording.stableEvents;

/**
 * Root-entry alias of `RecordingOptions` from `@rxscope/middleware-builtin/recording` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type RecordingOptions } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export type RecordingOptions = recording.RecordingOptions;

/**
 * Root-entry alias of `ReplayChatModelOptions` from `@rxscope/middleware-builtin/recording` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type ReplayChatModelOptions } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export type ReplayChatModelOptions = recording.ReplayChatModelOptions;

/**
 * Root-entry alias of `Cassette` from `@rxscope/middleware-builtin/recording` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type Cassette } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export type Cassette = recording.Cassette;

/**
 * Root-entry alias of `RecordedModelCall` from `@rxscope/middleware-builtin/recording` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type RecordedModelCall } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export type RecordedModelCall = recording.RecordedModelCall;

/**
 * Root-entry alias of `RecordedModelRequest` from `@rxscope/middleware-builtin/recording` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type RecordedModelRequest } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export type RecordedModelRequest = recording.RecordedModelRequest;

/**
 * Root-entry alias of `RecordedReply` from `@rxscope/middleware-builtin/recording` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/recording'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type RecordedReply } from '@rxscope/middleware-builtin/recording';
 * ```
 */
export type RecordedReply = recording.RecordedReply;
