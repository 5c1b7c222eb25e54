import { RxscopeError } from '../error/rxscope-error.js';

/**
 * The codes of {@link SessionSaveError}:
 * - `session_not_saved`: the store failed before writing (a file-system error, Redis down or
 *   refusing the write); the stored session is as it was.
 * - `session_lock_timeout`: another writer held the session's lock file past `lockTimeoutMs`;
 *   nothing was written.
 * - `session_save_unknown`: the write was sent to Redis but no answer came back (the connection
 *   was lost): it may or may not have been stored. Load the session to find out.
 *
 * @example
 * ```ts
 * const retryLater: SessionSaveErrorCode[] = ['session_not_saved', 'session_lock_timeout'];
 * ```
 */
export type SessionSaveErrorCode = 'session_not_saved' | 'session_lock_timeout' | 'session_save_unknown';

/**
 * A save that a {@link FileSessionStore} or {@link RedisSessionStore} could not complete. It names
 * the session and says whether the state was stored: `maybeSaved` is false (and the code
 * `session_not_saved` or `session_lock_timeout`) when the stored session is certainly unchanged,
 * true (`session_save_unknown`) when the write was sent and its answer lost. The store's own
 * error (an errno error, an ioredis error) is the `cause`. A version conflict is a
 * `SessionConflictError`, not this.
 *
 * @example
 * ```ts
 * try {
 *   await store.save('user-42', agent.saveState(), version);
 * } catch (e) {
 *   if (e instanceof SessionSaveError && !e.maybeSaved) queueForRetry(e.sessionId);
 *   else throw e;
 * }
 * ```
 */
export class SessionSaveError extends RxscopeError {
  override readonly name = 'SessionSaveError';
  /** True only for `session_save_unknown`: the state may have been stored. */
  readonly maybeSaved: boolean;

  constructor(
    readonly code: SessionSaveErrorCode,
    readonly sessionId: string,
    /** What failed, said after "Session "<id>" was NOT saved: ". */
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      code === 'session_save_unknown'
        ? `Session "${sessionId}" may or may not have been saved: ${reason} Load the session to find out.`
        : `Session "${sessionId}" was NOT saved: ${reason}`,
      options,
    );
    this.maybeSaved = code === 'session_save_unknown';
  }
}
