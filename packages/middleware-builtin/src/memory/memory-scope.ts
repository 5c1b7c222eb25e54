import { RxscopeError } from '@rxscope/core';
import type { MemoryBackend } from './memory-backend.js';

/**
 * Whose memories a memory middleware reads and writes: `'user'` (default) keeps the memories of
 * each user (`reply(input, { userId })`) apart, in the backend's `scoped(userId)` view, so one
 * user never recalls another's; replies without a user use the backend itself. `'shared'`: every
 * reply uses the backend itself (one agent's memories, whoever asks).
 *
 * @example
 * ```ts
 * new AgenticMemoryMiddleware({ backend, scope: 'shared' }); // a team's common notes
 * ```
 */
export type MemoryScope = 'user' | 'shared';

/**
 * Thrown when a reply for a user reaches a memory middleware whose backend cannot keep that
 * user's memories apart (it has no `scoped()`) while the scope is `'user'`: rather than mixing
 * users' memories, the reply fails. `code` is `'memory_unscoped'`.
 *
 * @example
 * ```ts
 * // implement scoped(scope) on your MemoryBackend, or pass scope: 'shared'
 * ```
 */
export class MemoryScopeError extends RxscopeError {
  override readonly name = 'MemoryScopeError';
  readonly code = 'memory_unscoped';
}

/**
 * The backend a reply (or a tool call) of `userId` uses under `scope`.
 *
 * @example
 * ```ts
 * const backend = memoryBackendFor('AgenticMemoryMiddleware', this.backend, 'user', ctx.userId);
 * ```
 */
export function memoryBackendFor(
  owner: string,
  backend: MemoryBackend,
  scope: MemoryScope,
  userId: string | undefined,
): MemoryBackend {
  if (scope === 'shared' || userId === undefined) return backend;
  if (typeof backend.scoped !== 'function') {
    throw new MemoryScopeError(
      `${owner}: a reply for user "${userId}" needs a backend that keeps users apart, and this one has no ` +
        `scoped(scope). Implement it (a view of the backend holding one scope's memories), or pass scope: 'shared' ` +
        `to let every user read the same memories.`,
    );
  }
  return backend.scoped(userId);
}

/**
 * Checks a `scope` option.
 *
 * @example
 * ```ts
 * checkMemoryScope('StaticMemoryMiddleware', options.scope); // 'user' when absent
 * ```
 */
export function checkMemoryScope(owner: string, scope: unknown): MemoryScope {
  if (scope === undefined) return 'user';
  if (scope === 'user' || scope === 'shared') return scope;
  throw new TypeError(`${owner}: scope must be 'user' or 'shared', got ${JSON.stringify(scope)}.`);
}
