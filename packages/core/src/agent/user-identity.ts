import { RxscopeError } from '../error/rxscope-error.js';

/** The longest user id accepted (ids are keys in stores and attributes in traces). */
export const MAX_USER_ID_LENGTH = 256;

/**
 * Thrown for a session read or driven by a user who does not own it: the session's first reply
 * with a `userId` made that user its owner (saved with its state). `code` is `'session_forbidden'`;
 * the Node handlers answer it with `403 Forbidden`.
 *
 * @example
 * ```ts
 * agent.reply('hi', { userId: 'mallory' }).subscribe({ error: (e) => e instanceof SessionForbiddenError && res.writeHead(403).end() });
 * ```
 */
export class SessionForbiddenError extends RxscopeError {
  override readonly name = 'SessionForbiddenError';
  readonly code = 'session_forbidden';
  readonly status = 403;
}

/**
 * Thrown when a `userId` is given that is not a non-empty string of at most 256 characters.
 *
 * @example
 * ```ts
 * try { agent.reply('hi', { userId: '' }); } catch (e) { if (e instanceof InvalidUserIdError) console.error(e.message); }
 * ```
 */
export class InvalidUserIdError extends RxscopeError {
  override readonly name = 'InvalidUserIdError';
  readonly code = 'invalid_user_id';
  readonly status = 400;
}

/**
 * Checks a `userId` option at once: absent, or a non-empty string (at most 256 characters).
 *
 * @example
 * ```ts
 * checkUserId(req.headers['x-user'], 'identify(req)'); // throws InvalidUserIdError for '' or 42
 * ```
 */
export function checkUserId(userId: unknown, where = 'reply options'): string | undefined {
  if (userId === undefined) return undefined;
  if (typeof userId !== 'string' || userId.length === 0 || userId.length > MAX_USER_ID_LENGTH) {
    const what = typeof userId === 'string' ? `a string of ${userId.length} characters` : `a ${typeof userId}`;
    throw new InvalidUserIdError(
      `${where}: userId must be a non-empty string of at most ${MAX_USER_ID_LENGTH} characters (the id of the ` +
        `user the reply acts for), got ${userId === null ? 'null' : what}. Omit it for a reply that acts for no user.`,
    );
  }
  return userId;
}

/**
 * Throws a {@link SessionForbiddenError} when `userId` is given and the session belongs to
 * another user. A session without an owner belongs to nobody yet.
 *
 * @example
 * ```ts
 * assertSessionOwner(agent.saveState().owner, 's1', userId);
 * ```
 */
export function assertSessionOwner(owner: string | undefined, sessionId: string, userId: string | undefined): void {
  if (userId === undefined || owner === undefined || owner === userId) return;
  throw new SessionForbiddenError(
    `Session "${sessionId}" belongs to another user; user "${userId}" may neither read nor continue it.`,
  );
}

/**
 * Claims a session for the user a reply acts for: the first reply with a `userId` makes that
 * user the owner (kept in the state, saved to the store); a reply for another user is refused.
 *
 * @example
 * ```ts
 * const userId = claimSession(state, agent.sessionId, options.userId);
 * ```
 */
export function claimSession(
  state: { owner: string | undefined },
  sessionId: string,
  userId: string | undefined,
): string | undefined {
  assertSessionOwner(state.owner, sessionId, userId);
  if (userId !== undefined) state.owner ??= userId;
  return userId;
}
