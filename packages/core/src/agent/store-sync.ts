import { from, type Observable } from 'rxjs';
import type { AgentStateSnapshot } from '../state/snapshot.js';
import type { SessionStore } from '../state/session-store.js';

/**
 * Keeps an agent's state in step with its session store: loaded when a reply starts (when
 * another writer saved a newer version), saved on every suspension and every end. Saves run one
 * after another, each with the version the previous one wrote, so a concurrent writer is
 * detected (the store refuses a save made against a stale version).
 */
export class StoreSync {
  /** The stored version this agent's state corresponds to (0: never loaded nor saved). */
  private version = 0;
  /** The last save; a load waits for it, the next save chains on it. */
  private lastSave: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: SessionStore,
    private readonly sessionId: string,
    private readonly snapshot: () => AgentStateSnapshot,
    private readonly restore: (snapshot: AgentStateSnapshot) => void,
    /** Told which snapshot a successful save wrote. */
    private readonly saved: (snapshot: AgentStateSnapshot) => void = () => undefined,
  ) {}

  /** The stored version this agent's state corresponds to (0: never loaded nor saved). */
  get storedVersion(): number {
    return this.version;
  }

  /** Loads the stored state when it changed since this agent last loaded or saved it. */
  load(): Observable<void> {
    return from(
      this.lastSave.then(async () => {
        const stored = await this.store.load(this.sessionId);
        if (stored && stored.version !== this.version) {
          this.restore(stored.state);
          this.version = stored.version;
        }
      }),
    );
  }

  /** Resolves once every save started so far has finished (failed ones included). */
  flushed(): Promise<void> {
    return this.lastSave.then(() => undefined);
  }

  /** Saves the current state after the previous save; the promise rejects when this save fails. */
  persist(): Promise<void> {
    const save = this.lastSave.then(async () => {
      const snapshot = this.snapshot();
      this.version = await this.store.save(this.sessionId, snapshot, this.version);
      this.saved(snapshot);
    });
    this.lastSave = save.catch(() => undefined);
    return save;
  }
}
