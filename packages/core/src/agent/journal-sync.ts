import { defer, lastValueFrom, map, type Observable } from 'rxjs';
import { JournalDamagedError, ReplyLeaseError, type JournalDamage } from '../state/journal.js';
import { foldJournal, type FoldedReply } from '../state/journal-fold.js';
import type { SessionStore } from '../state/session-store.js';
import type { AgentStateSnapshot } from '../state/snapshot.js';
import { newId } from '../util/id.js';
import type { AgentOptions, RecoverReplyInput, ReplyInput } from './agent-options.js';
import { AgentUsageError } from './errors.js';
import { REPLY_JOURNAL, ReplyJournalWriter } from './loop/journal-writer.js';
import type { ReplyContext } from './loop/reply-context.js';
import type { SessionState } from './session-state.js';
import { StoreSync } from './store-sync.js';

/**
 * A reply left running when the process running it stopped (`agent.recoverable()`).
 *
 * @example
 * ```ts
 * const left: RecoverableReply | undefined = await agent.recoverable();
 * if (left) console.log(`reply ${left.replyId} continues from step ${left.fromStep}`);
 * ```
 */
export interface RecoverableReply {
  readonly replyId: string;
  /** The step (`ctx.iteration`) it continues from. */
  readonly fromStep: number;
  /** Tool calls that had started and have no result (run again only if their tool is `idempotent`). */
  readonly started: readonly string[];
  /** The journal's end was damaged (a write cut off by the crash): entries from `entry` on are lost. */
  readonly damaged?: JournalDamage;
}

const DEFAULT_LEASE_MS = 15_000;

/**
 * An agent's step checkpoints: a journal writer for each reply, the journal dropped once the
 * reply is saved, and the recovery of a reply left running (`RECOVER_REPLY`).
 */
export class JournalSync {
  /** This agent's lease holder id. */
  private readonly holder = newId('lease');
  private readonly leaseMs: number;
  private current: ReplyJournalWriter | undefined;

  constructor(
    private readonly store: SessionStore,
    private readonly sessionId: string,
    private readonly sync: StoreSync,
    private readonly state: SessionState,
    private readonly snapshot: () => AgentStateSnapshot,
    private readonly reportError: (error: unknown) => void,
    leaseMs: number | undefined,
  ) {
    this.leaseMs = leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** Gives a reply about to start its writer; `before`: the conversation's length before its input joined. */
  attach(ctx: ReplyContext, before: number, continues: boolean): void {
    const writer = new ReplyJournalWriter({
      store: this.store,
      sessionId: this.sessionId,
      replyId: ctx.replyId,
      base: this.sync.storedVersion,
      holder: this.holder,
      leaseMs: this.leaseMs,
      input: () => this.state.context.slice(before),
      continues,
      reportError: this.reportError,
    });
    this.current = writer;
    ctx.set(REPLY_JOURNAL, writer);
  }

  /** Saves the state; once saved, the reply's journal is dropped. The lease is given up either way. */
  async persist(): Promise<void> {
    const writer = this.current;
    this.current = undefined;
    let saved = false;
    try {
      await this.sync.persist();
      saved = true;
    } finally {
      await writer?.ended(saved).catch(this.reportError);
    }
  }

  /** The reply left running, if the journal holds one since the last save. */
  async recoverable(): Promise<RecoverableReply | undefined> {
    const folded = await this.fold();
    return folded && describe(folded);
  }

  /** `RECOVER_REPLY`: the journal folded into the state, the lease taken, then a resume of the rebuilt reply. */
  recover(input: RecoverReplyInput): Observable<ReplyInput> {
    return defer(async () => {
      const folded = await this.fold();
      if (!folded) {
        throw new AgentUsageError(
          `Session "${this.sessionId}" has no reply to recover: its journal holds none since the last save ` +
            '(the reply ended, or it never started a step).',
        );
      }
      if (input.replyId !== undefined && input.replyId !== folded.replyId)
        throw new AgentUsageError(
          `Cannot recover reply ${input.replyId}: the reply left running is ${folded.replyId}.`,
        );
      if (this.store.acquireLease && !(await this.store.acquireLease(this.sessionId, this.holder, this.leaseMs)))
        throw new ReplyLeaseError(this.sessionId, folded.replyId);
      const damaged = folded.snapshot.pending?.recovered?.damaged;
      if (damaged) {
        this.reportError(new JournalDamagedError(damaged));
        await this.store.repairJournal?.(this.sessionId, damaged);
      }
      this.state.restore(folded.snapshot, true);
      return { type: 'RESUME_REPLY' as const, replyId: folded.replyId };
    });
  }

  private async fold(): Promise<FoldedReply | undefined> {
    await lastValueFrom(this.sync.load(), { defaultValue: undefined });
    const read = await this.store.readJournal!(this.sessionId);
    return foldJournal(this.snapshot(), this.sync.storedVersion, read);
  }
}

function describe(folded: FoldedReply): RecoverableReply {
  const damaged = folded.snapshot.pending?.recovered?.damaged;
  return {
    replyId: folded.replyId,
    fromStep: folded.fromStep,
    started: folded.started,
    ...(damaged ? { damaged } : {}),
  };
}

/**
 * An agent's store plumbing: the state loaded and saved through its store, and checkpoints when
 * the store keeps a journal (unless `checkpoints: false`).
 */
export function storeSyncOf(
  options: AgentOptions,
  sessionId: string,
  state: SessionState,
  snapshot: () => AgentStateSnapshot,
  reportError: (e: unknown) => void,
): [StoreSync | undefined, JournalSync | undefined] {
  const store = options.store;
  if (!store) return [undefined, undefined];
  const sync = new StoreSync(
    store,
    sessionId,
    snapshot,
    (saved) => state.restore(saved, true),
    (saved) => state.inbox.saved(saved.inbox),
  );
  if (!store.appendJournal || !store.readJournal || options.checkpoints === false) return [sync, undefined];
  const leaseMs = typeof options.checkpoints === 'object' ? options.checkpoints.leaseMs : undefined;
  return [sync, new JournalSync(store, sessionId, sync, state, snapshot, reportError, leaseMs)];
}

/** True for the input that continues a reply left running by a dead process (`RECOVER_REPLY`). */
export function isRecoverReply(input: ReplyInput): input is RecoverReplyInput {
  return typeof input === 'object' && input !== null && 'type' in input && input.type === 'RECOVER_REPLY';
}

/** The input a reply starts with once the store is read: `RECOVER_REPLY` becomes the resume of the recovered reply. */
export function loadFor(input: ReplyInput, sync: StoreSync, journal: JournalSync | undefined): Observable<ReplyInput> {
  if (isRecoverReply(input) && journal) return journal.recover(input);
  return sync.load().pipe(map(() => input));
}
