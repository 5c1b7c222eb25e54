/**
 * The base of every error rxscope throws or reports, so a caller branches on one stable,
 * machine-readable `code` (`timeout`, `session_conflict`, `output_invalid`, ...) with one
 * `instanceof` instead of duck-typing fields or parsing messages. `name` stays the class name.
 * The codes of each class are listed in its documentation and in docs/models.md (model errors).
 *
 * @example
 * ```ts
 * try {
 *   await agent.call('hi');
 * } catch (e) {
 *   if (e instanceof RxscopeError && e.code === 'session_conflict') reloadAndRetry();
 *   else throw e;
 * }
 * ```
 */
export abstract class RxscopeError extends Error {
  /** A short, stable, machine-readable code; branch on it, not on the message. */
  abstract readonly code: string;
}
