// The lock protocol of FileSessionStore, one interleaving at a time (the races of real processes
// are in file-session-store.spec.ts): who may break a lock, and what a slow breaker must not do.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireFileLock, breakDeadLock, LockTimeoutError } from './file-lock.js';
import { newOwner, releaseOwner } from './lock-owner.js';

let dir: string;
let lockFile: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rxscope-lock-'));
  lockFile = join(dir, 's.json.lock');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A record of this machine naming a pid no process has (above any pid_max). */
const deadRecord = (nonce: string) => JSON.stringify({ ...newOwnerOnce(), pid: 2 ** 22 + 12345, nonce });
function newOwnerOnce() {
  const owner = newOwner();
  releaseOwner(owner);
  return owner;
}
const markerOf = (content: string) =>
  `${lockFile}.${createHash('sha256').update(content).digest('base64url').slice(0, 16)}.break`;

describe('the session lock file', () => {
  it('a contender that judged a lock dead before another took it over leaves the fresh lock alone', async () => {
    const dead = deadRecord('dead-1');
    await writeFile(lockFile, dead);
    // Contender A and B both read `dead` and judge its holder dead. A breaks it and takes the lock...
    const releaseA = await acquireFileLock(lockFile, 500);
    const fresh = await readFile(lockFile, 'utf8');
    expect(fresh).not.toBe(dead);
    // ...then B, slower, breaks what it saw: A's lock survives, and C still has to wait for A.
    await breakDeadLock(lockFile, dead);
    expect(await readFile(lockFile, 'utf8')).toBe(fresh);
    await expect(acquireFileLock(lockFile, 100)).rejects.toThrow(/Timed out after 100 ms .* which is still running/);
    await releaseA();
    const releaseC = await acquireFileLock(lockFile, 100);
    await releaseC();
    expect(await readdir(dir)).toEqual([]);
  });

  it('while one contender breaks a dead lock, another neither breaks it nor takes it', async () => {
    const dead = deadRecord('dead-2');
    await writeFile(lockFile, dead);
    const breaker = newOwner(); // alive: a contender of this process, between its marker and its unlink
    await writeFile(markerOf(dead), JSON.stringify(breaker));
    expect(await breakDeadLock(lockFile, dead)).toBe(false);
    await expect(acquireFileLock(lockFile, 100)).rejects.toBeInstanceOf(LockTimeoutError);
    expect(await readFile(lockFile, 'utf8')).toBe(dead);
    releaseOwner(breaker);
  });

  it('a breaker that died holding its marker does not block the lock', async () => {
    const dead = deadRecord('dead-3');
    await writeFile(lockFile, dead);
    await writeFile(markerOf(dead), deadRecord('dead-breaker'));
    const release = await acquireFileLock(lockFile, 1000);
    expect(JSON.parse(await readFile(lockFile, 'utf8'))).toMatchObject({ pid: process.pid });
    await release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('never breaks a lock from another machine: the wait times out and says how to recover', async () => {
    const foreign = JSON.stringify({ ...newOwnerOnce(), host: `not-${hostname()}`, pid: 2 ** 22 + 12345 });
    await writeFile(lockFile, foreign);
    const taking = acquireFileLock(lockFile, 100);
    await expect(taking).rejects.toThrow(
      /held by pid 4206649 on host "not-.*", taken .* \(on another machine .*\)\. If that process is gone, delete the lock file\./,
    );
    expect(await readFile(lockFile, 'utf8')).toBe(foreign);
  });

  it('takes over a lock of this very process that was left behind, but waits for one it holds', async () => {
    await writeFile(lockFile, JSON.stringify({ ...newOwnerOnce(), nonce: 'left-behind' }));
    const release = await acquireFileLock(lockFile, 100);
    await expect(acquireFileLock(lockFile, 100)).rejects.toThrow(/held by pid \d+ .* which is still running/);
    await release();
  });
});
