// FileSessionStore with real processes (the conformance suite every store passes is
// src/__tests__/sessions.spec.ts): eight processes saving one session over a lock left by a dead
// holder, round after round; a live holder's lock; and saves the file system refuses.
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../agent/agent.js';
import { SessionStoreError } from '../state/session-store.js';
import { ScriptedChatModel } from '../testing/index.js';
import { StoreWorker, type WorkerReply } from './__tests__/store-worker.js';
import { FileSessionStore } from './file-session-store.js';
import { SessionSaveError } from './session-save-error.js';

const WRITERS = 8;
const ROUNDS = 15;

let dir: string;
let store: FileSessionStore;
let writers: StoreWorker[] = [];
const state = (summary: string) => ({
  ...new Agent({ model: new ScriptedChatModel([]), sessionId: 's' }).saveState(),
  summary,
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rxscope-file-store-'));
  store = new FileSessionStore({ dir });
});
afterEach(async () => {
  await chmod(dir, 0o755);
  await rm(dir, { recursive: true, force: true });
});

/** Seeds `session` at version 1, then every writer loads it (all at version 1). */
async function seedAndLoad(session: string): Promise<void> {
  await store.save(session, state('seed'), 0);
  const loaded = await Promise.all(writers.map((w) => w.send({ op: 'load', dir, session })));
  expect(loaded.map((r) => r.version)).toEqual(writers.map(() => 1));
}

/** Every writer saves `session` at once; the outcome as a user sees it. */
async function race(session: string, lockTimeoutMs?: number) {
  const replies: WorkerReply[] = await Promise.all(
    writers.map((w, i) => w.send({ op: 'save', dir, session, tag: `w${i}`, lockTimeoutMs })),
  );
  const winners = replies.flatMap((r, i) => (r.version !== undefined ? [{ writer: i, version: r.version }] : []));
  const errors = replies.flatMap((r) => (r.error ? [r.error] : []));
  return { winners, errors, stored: await store.load(session) };
}

/** The files a save leaves in the folder: only session files, no lock, marker or staging file. */
const leftovers = async () => (await readdir(dir)).filter((f) => !/^[\w-]+\.json$/.test(f));

describe('FileSessionStore across processes', () => {
  beforeAll(async () => {
    writers = await Promise.all(Array.from({ length: WRITERS }, () => StoreWorker.start()));
  }, 30_000);
  afterAll(async () => {
    await Promise.all(writers.map((w) => w.stop()));
  });

  it(`of ${WRITERS} processes saving the same version over a dead holder's lock, exactly one wins, in each of ${ROUNDS} rounds`, async () => {
    // A real holder: a process that took the lock and was SIGKILLed while holding it.
    const holder = await StoreWorker.start();
    expect(await holder.send({ op: 'hold', dir, session: 'held' })).toEqual({ id: 1, pid: holder.pid });
    await holder.kill();
    const killed = await readFile(`${store.fileOf('held')}.lock`, 'utf8');
    await rm(`${store.fileOf('held')}.lock`);
    const deadLocks: [string, string][] = [
      ['the lock of a process SIGKILLed while holding it', killed],
      ['a lock naming a pid no process has', JSON.stringify({ ...JSON.parse(killed), pid: 2 ** 22 + 12345 })],
      // The pid is taken by a live process (this one) that started after the lock was written.
      ['a lock whose pid was reused', JSON.stringify({ ...JSON.parse(killed), pid: process.pid })],
    ];

    const outcomes = [];
    const started = Date.now();
    for (let round = 0; round < ROUNDS && Date.now() - started < 60_000; round++) {
      const [kind, lock] = deadLocks[round % deadLocks.length]!;
      const session = `race-${round}`;
      await seedAndLoad(session);
      await writeFile(`${store.fileOf(session)}.lock`, lock);
      const { winners, errors, stored } = await race(session);
      outcomes.push({
        round,
        kind,
        winners: winners.length,
        version: winners[0]?.version,
        conflicts: errors.filter((e) => e.code === 'session_conflict').length,
        storedIsTheWinners: stored?.version === 2 && stored.state.summary === `w${winners[0]?.writer}`,
        leftovers: await leftovers(),
      });
    }
    expect(outcomes).toHaveLength(ROUNDS);
    expect(outcomes).toEqual(
      outcomes.map(({ round, kind }) => ({
        round,
        kind,
        winners: 1,
        version: 2,
        conflicts: WRITERS - 1,
        storedIsTheWinners: true,
        leftovers: [],
      })),
    );
  }, 90_000);

  it('never breaks the lock of a live holder: every save times out naming it, and once it is SIGKILLed one save wins', async () => {
    await seedAndLoad('held');
    const holder = await StoreWorker.start();
    await holder.send({ op: 'hold', dir, session: 'held' });

    const blocked = await race('held', 300);
    expect(blocked.winners).toEqual([]);
    expect(blocked.errors).toHaveLength(WRITERS);
    for (const error of blocked.errors) {
      expect(error).toMatchObject({ name: 'SessionSaveError', code: 'session_lock_timeout' });
      expect(error.message).toMatch(
        new RegExp(
          `^Session "held" was NOT saved: Timed out after 300 ms waiting for the lock .*held by pid ${holder.pid} .*still running`,
        ),
      );
    }
    expect(blocked.stored).toMatchObject({ version: 1, state: { summary: 'seed' } });

    await holder.kill();
    const after = await race('held');
    expect(after.winners).toEqual([{ writer: expect.any(Number), version: 2 }]);
    expect(after.errors.map((e) => e.code)).toEqual(Array(WRITERS - 1).fill('session_conflict'));
    expect(after.stored).toMatchObject({ version: 2, state: { summary: `w${after.winners[0]!.writer}` } });
    expect(await leftovers()).toEqual([]);
  }, 30_000);

  it('in a folder the process may not write to, a save is refused as not saved, naming the session, and changes nothing', async () => {
    await store.save('ro', state('seed'), 0);
    await chmod(dir, 0o555);
    // root writes anywhere: as root, the writer runs without the capability that overrides file
    // permissions (not as another user, who may not be able to read a checkout in a private folder).
    const asRoot = process.getuid?.() === 0;
    const writer = await StoreWorker.start(asRoot ? { bypassPermissions: false } : {});
    try {
      expect(await writer.send({ op: 'load', dir, session: 'ro' })).toMatchObject({ version: 1 });
      const { error } = await writer.send({ op: 'save', dir, session: 'ro', tag: 'lost' });
      expect(error).toMatchObject({ name: 'SessionSaveError', code: 'session_not_saved' });
      expect(error!.message).toMatch(/^Session "ro" was NOT saved: taking the lock .*ro\.json\.lock failed \(EACCES/);
    } finally {
      await writer.stop();
    }
    expect(await store.load('ro')).toMatchObject({ version: 1, state: { summary: 'seed' } });
  }, 30_000);
});

describe('FileSessionStore when its folder is gone', () => {
  it('a folder replaced by a file: save says the session was NOT saved, load and delete name the session', async () => {
    const sub = join(dir, 'sessions');
    const inSub = new FileSessionStore({ dir: sub });
    await inSub.save('s', state('one'), 0);
    await rm(sub, { recursive: true });
    await writeFile(sub, 'not a folder');

    // The same store (its folder made before) and a new one (it makes the folder first).
    const saving = inSub.save('s', state('two'), 1);
    await expect(saving).rejects.toBeInstanceOf(SessionSaveError);
    await expect(saving).rejects.toMatchObject({ code: 'session_not_saved', sessionId: 's', maybeSaved: false });
    await expect(saving).rejects.toThrow(
      /^Session "s" was NOT saved: taking the lock .*s\.json\.lock failed \(ENOTDIR/,
    );
    const fresh = new FileSessionStore({ dir: sub }).save('s', state('two'), 1);
    await expect(fresh).rejects.toMatchObject({ code: 'session_not_saved', sessionId: 's' });
    await expect(fresh).rejects.toThrow(/^Session "s" was NOT saved: creating the folder .*sessions failed \(EEXIST/);
    const loading = inSub.load('s');
    await expect(loading).rejects.toBeInstanceOf(SessionStoreError);
    await expect(loading).rejects.toThrow(/^Session "s" could not be read from .*s\.json \(ENOTDIR/);
    await expect(inSub.delete('s')).rejects.toThrow(
      /^Session "s" was not deleted: removing .*s\.json failed \(ENOTDIR/,
    );
    expect(await readFile(sub, 'utf8')).toBe('not a folder');
  });
});
