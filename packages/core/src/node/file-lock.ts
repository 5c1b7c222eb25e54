// The lock protocol of FileSessionStore (one lock file per session, `<session>.json.lock`):
//
// 1. Taking: the owner record (pid, host, boot id, pid namespace, start time, nonce) is written
//    to a new staging file, which is then hard-linked to the lock's name. link() fails when the
//    name exists, atomically, so one writer wins; and a lock file is never seen half written.
// 2. Releasing: the holder unlinks the lock file.
// 3. Breaking a lock whose holder is certainly dead (see ownerLiveness; a holder on another
//    machine is never judged dead): a contender must first take the lock's *marker*,
//    `<lock>.<hash of the dead lock's content>.break`, by the same link(). Holding it, it reads the
//    lock again and unlinks it only if the content is still the dead one, then unlinks the marker.
//    While the content is unchanged it cannot change: the dead holder releases nothing, a fresh
//    lock needs the name free, and any other breaker of that content needs the marker. Every
//    lock's content is unique (its nonce), so a contender that judged a lock dead long ago and
//    takes a marker after the break finds other content and leaves the fresh lock alone.
// 4. A marker left by a breaker that died is itself a dead lock, broken by the same steps one
//    level up (the marker of the marker's content), a few levels at most.
// A crash mid-protocol may leave a staging file (`<lock>.<nonce>.new`) or a marker behind: both
// are inert (no contender ever looks for them again).
import { createHash } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import {
  describeOwner,
  newOwner,
  ownerLiveness,
  parseOwner,
  releaseOwner,
  type LockOwner,
  type OwnerLiveness,
} from './lock-owner.js';

/** Markers of markers: a chain this deep needs that many breakers to die mid-break. */
const MAX_BREAK_DEPTH = 3;

/**
 * Why a lock could not be taken in time: its holder, as far as it could be read and judged.
 *
 * @example
 * ```ts
 * acquireFileLock(lockFile, 100).catch((e) => e instanceof LockTimeoutError && console.error(e.holder?.pid));
 * ```
 */
export class LockTimeoutError extends Error {
  constructor(
    readonly lockFile: string,
    readonly timeoutMs: number,
    readonly holder: LockOwner | undefined,
    readonly holderLiveness: OwnerLiveness,
  ) {
    super(
      `Timed out after ${timeoutMs} ms waiting for the lock ${lockFile}, held by ${describeOwner(holder)}${WHY[holderLiveness]}`,
    );
  }
}

const WHY: Record<OwnerLiveness, string> = {
  alive: ', which is still running.',
  unknown:
    ' (on another machine or in another pid namespace, or unreadable: whether it still runs cannot be checked ' +
    'from here). If that process is gone, delete the lock file.',
  dead: ', which is gone, but other writers that died while breaking the lock left markers beside it.',
};

/**
 * Takes the exclusive lock file `lockFile`, breaking it when its holder is dead, waiting (polling)
 * while a live holder has it. Resolves with the release function; rejects with a
 * {@link LockTimeoutError} after `timeoutMs`, or with the file system's error.
 *
 * @example
 * ```ts
 * const release = await acquireFileLock(`${file}.lock`, 5000);
 * try { await rewrite(file); } finally { await release(); }
 * ```
 */
export async function acquireFileLock(lockFile: string, timeoutMs: number): Promise<() => Promise<void>> {
  const contender = new Contender(lockFile);
  try {
    await contender.take(timeoutMs);
  } catch (e) {
    releaseOwner(contender.owner);
    throw e;
  }
  return async () => {
    try {
      await unlinkIfPresent(lockFile);
    } finally {
      // Even when the unlink failed: this process then takes the lock file for a left-over one.
      releaseOwner(contender.owner);
    }
  };
}

/**
 * Step 3 of the protocol alone, as a contender that judged `dead` (a content of `lockFile`) dead
 * runs it: removes the lock only if it still holds that content. True when it is gone or being
 * broken by another contender; never removes a lock with other content.
 *
 * @example
 * ```ts
 * const seen = await readFile(lockFile, 'utf8'); // its holder judged dead
 * await breakDeadLock(lockFile, seen);             // a fresh lock taken meanwhile survives
 * ```
 */
export async function breakDeadLock(lockFile: string, dead: string): Promise<boolean> {
  const contender = new Contender(lockFile);
  try {
    return await contender.breakDead(lockFile, dead, 0);
  } finally {
    releaseOwner(contender.owner);
  }
}

/** One attempt to take a lock: its owner record, and the files it creates. */
class Contender {
  readonly owner = newOwner();
  private readonly content = JSON.stringify(this.owner);
  /** Written anew before each link (a crash leaves at most this one file behind). */
  private readonly staging: string;

  constructor(private readonly lockFile: string) {
    this.staging = `${lockFile}.${this.owner.nonce}.new`;
  }

  async take(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt++) {
      if (await this.linkNew(this.lockFile)) return;
      const held = await readText(this.lockFile);
      if (held === undefined) continue; // released meanwhile
      const holder = parseOwner(held);
      const liveness = holder === undefined ? 'unknown' : await ownerLiveness(holder);
      if (liveness === 'dead' && (await this.breakDead(this.lockFile, held, 0))) continue;
      if (Date.now() > deadline) throw new LockTimeoutError(this.lockFile, timeoutMs, holder, liveness);
      await new Promise((r) => setTimeout(r, Math.min(50, 5 * (attempt + 1))));
    }
  }

  /**
   * Removes `file` (the lock or a marker) if its content is still `dead`, holding the marker of
   * that content meanwhile. True when it is gone; false when another contender is breaking it.
   */
  async breakDead(file: string, dead: string, depth: number): Promise<boolean> {
    // Markers sit beside the lock, named by the hash of the content they break (unique by its nonce).
    const marker = `${this.lockFile}.${createHash('sha256').update(dead).digest('base64url').slice(0, 16)}.break`;
    if (await this.linkNew(marker)) {
      try {
        if ((await readText(file)) === dead) await unlinkIfPresent(file);
      } finally {
        await unlinkIfPresent(marker);
      }
      return true;
    }
    if (depth >= MAX_BREAK_DEPTH) return false;
    const breaking = await readText(marker);
    if (breaking === undefined) return true; // the other breaker is done
    const breaker = parseOwner(breaking);
    if (breaker === undefined || (await ownerLiveness(breaker)) !== 'dead') return false;
    await this.breakDead(marker, breaking, depth + 1);
    return false; // the marker is gone now, maybe not the lock: look again
  }

  /** Creates `file` holding this owner's record, or returns false when it exists. */
  private async linkNew(file: string): Promise<boolean> {
    await writeFile(this.staging, this.content, { flag: 'wx' });
    try {
      await link(this.staging, file); // atomic, and fails with EEXIST when the name is taken
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    } finally {
      await unlinkIfPresent(this.staging);
    }
  }
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
