import type { MemoryBackend } from './memory-backend.js';

/** Throws a TypeError naming `owner` unless `backend` has the four methods of a {@link MemoryBackend}. */
export function checkMemoryBackend(owner: string, backend: unknown, example: string): MemoryBackend {
  const b = backend as Partial<MemoryBackend> | undefined;
  if (
    !b ||
    typeof b.list !== 'function' ||
    typeof b.read !== 'function' ||
    typeof b.write !== 'function' ||
    typeof b.search !== 'function'
  ) {
    throw new TypeError(`${owner}: backend must be a MemoryBackend (list, read, write, search), e.g. ${example}.`);
  }
  return b as MemoryBackend;
}
