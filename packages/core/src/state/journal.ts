import type { AgentEvent, ReplyFinishReason, Usage } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import { RxscopeError } from '../error/rxscope-error.js';

/** The journal entry format this build writes; a store refuses entries of a newer one. */
export const JOURNAL_VERSION = 1;

/**
 * One checkpoint of a running reply, appended to its session's journal. A reply writes one
 * when it starts, after each step, before each tool call runs (`started`) and after each tool
 * result, so a process that dies mid-reply leaves enough for another one to continue it: the
 * entries since the last save, folded over the saved snapshot ({@link foldJournal}), give the
 * conversation and the reply message up to the last checkpoint.
 *
 * @example
 * ```ts
 * const { entries } = await store.readJournal!('user-42');
 * console.log(entries.map((e) => `${e.replyId} step ${e.step}: ${e.events.length} events`));
 * ```
 */
export interface JournalEntry {
  /** The entry format ({@link JOURNAL_VERSION}). */
  readonly v: number;
  /** The stored session version the reply started from: entries of an older one are stale (the reply was saved since). */
  readonly base: number;
  readonly replyId: string;
  /** The reply's reasoning steps so far (`ctx.iteration`). */
  readonly step: number;
  /** Reasoning steps that ended in tool calls (counted against `maxIters`). */
  readonly toolSteps: number;
  /** The reply's events since the previous entry, in order. */
  readonly events: readonly AgentEvent[];
  /** First entry of a reply: the messages it added to the conversation before its first step (its input). */
  readonly input?: readonly Msg[];
  /** First entry of a reply that continues the suspended one of the snapshot (a confirmation, a shutdown, a recovery). */
  readonly continues?: true;
  /** A tool call about to run: written, and stored, before the tool starts. */
  readonly started?: { readonly callId: string; readonly name: string };
  /** The reply's token usage so far. */
  readonly usage?: Usage;
  /** The reply's steps are over with this finish reason (what is left is saving it). */
  readonly done?: ReplyFinishReason;
}

/** What a store found reading a journal whose end is damaged (a write cut off by a crash). */
export interface JournalDamage {
  /** The file or key holding the journal. */
  readonly where: string;
  /** Index (0-based) of the first entry that could not be read; the entries before it are returned. */
  readonly entry: number;
  /** What is wrong with it. */
  readonly reason: string;
}

/** A journal as read: its whole entries, oldest first, and the damage found after them, if any. */
export interface JournalRead {
  readonly entries: readonly JournalEntry[];
  readonly damaged?: JournalDamage;
}

/**
 * The journal part of a {@link SessionStore}: optional, so a store written before journals keeps
 * compiling and working. An agent whose store lacks these methods writes no checkpoints: a
 * reply interrupted by a crash is lost back to the last save (the end of the previous reply),
 * `agent.recoverable()` resolves `undefined`, and `RECOVER_REPLY` is refused.
 *
 * @example
 * ```ts
 * class MyStore implements SessionStore {
 *   // load, save, delete ... then:
 *   async appendJournal(sessionId: string, entry: JournalEntry) { await db.push(sessionId, JSON.stringify(entry)); }
 *   async readJournal(sessionId: string) { return { entries: (await db.list(sessionId)).map((t) => JSON.parse(t)) }; }
 *   async clearJournal(sessionId: string) { await db.clear(sessionId); }
 * }
 * ```
 */
export interface SessionJournal {
  /** Appends one entry; resolves once it is stored (durably, as far as the store promises). */
  appendJournal?(sessionId: string, entry: JournalEntry): Promise<void>;
  /**
   * The session's entries from index `since` (default 0), oldest first. A damaged end is
   * reported in `damaged`, not thrown; an entry of a newer format is refused with a
   * {@link JournalVersionError}.
   */
  readJournal?(sessionId: string, since?: number): Promise<JournalRead>;
  /** Drops the session's journal (its reply was saved whole). */
  clearJournal?(sessionId: string): Promise<void>;
  /**
   * Cuts a damaged journal back to its whole entries (the first `entry` ones), so that entries
   * appended from now on follow them. Called by a recovery while it holds the lease.
   */
  repairJournal?(sessionId: string, damage: JournalDamage): Promise<void>;
  /** Ids of the sessions that have a journal (replies that may have been left running). */
  listJournals?(): Promise<string[]>;
  /**
   * Takes (or renews) the session's reply lease for `holder` for `ttlMs`: true when it is free,
   * expired or already `holder`'s; false while another holder's lease runs.
   */
  acquireLease?(sessionId: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up (only when `holder` still holds it). */
  releaseLease?(sessionId: string, holder: string): Promise<void>;
}

/**
 * Thrown reading a journal written by a newer build (its entry format is unknown here).
 *
 * @example
 * ```ts
 * await store.readJournal!('s1').catch((e) => e instanceof JournalVersionError && console.error(e.found, e.supported));
 * ```
 */
export class JournalVersionError extends RxscopeError {
  override readonly name = 'JournalVersionError';
  readonly code = 'journal_version';
  constructor(
    readonly where: string,
    readonly found: number,
    readonly supported: number = JOURNAL_VERSION,
  ) {
    super(
      `The journal ${where} was written in format version ${found}, newer than this build reads (${supported}); ` +
        'upgrade @rxscope/core in this process (or recover the reply where the newer build runs).',
    );
  }
}

/**
 * Reported (to `onBackgroundError`, and in the `reply_recovered` event) when a journal's last
 * entries were damaged, typically a write cut off by a crash: the reply is recovered up to the
 * last whole entry.
 *
 * @example
 * ```ts
 * new Agent({ ..., onBackgroundError: (e) => e instanceof JournalDamagedError && log.warn(e.where, e.entry) });
 * ```
 */
export class JournalDamagedError extends RxscopeError {
  override readonly name = 'JournalDamagedError';
  readonly code = 'journal_damaged';
  readonly where: string;
  readonly entry: number;
  constructor(damage: JournalDamage) {
    super(
      `The journal ${damage.where} is damaged at entry ${damage.entry} (${damage.reason}); ` +
        `the reply was recovered up to entry ${damage.entry - 1}, the rest was dropped.`,
    );
    this.where = damage.where;
    this.entry = damage.entry;
  }
}

/**
 * Refused: the reply is still running in another process (it holds the session's lease), or
 * its lease has not expired yet since that process stopped.
 *
 * @example
 * ```ts
 * agent.reply({ type: 'RECOVER_REPLY' }).subscribe({ error: (e) => e instanceof ReplyLeaseError && retryLater() });
 * ```
 */
export class ReplyLeaseError extends RxscopeError {
  override readonly name = 'ReplyLeaseError';
  readonly code = 'reply_leased';
  constructor(
    readonly sessionId: string,
    readonly replyId: string,
  ) {
    super(
      `Reply ${replyId} of session "${sessionId}" is held by another process (its lease runs): it is still running there, ` +
        'or that process stopped less than a lease ago. It is never run twice; try again once the lease expired.',
    );
  }
}

/**
 * Parses one stored journal entry (JSON text), checking its format version.
 *
 * @example
 * ```ts
 * const entry = parseJournalEntry(line, 'sessions/s1.journal');
 * ```
 */
export function parseJournalEntry(text: string, where: string): JournalEntry {
  const raw = JSON.parse(text) as Partial<JournalEntry> | null;
  if (typeof raw !== 'object' || raw === null || typeof raw.v !== 'number')
    throw new TypeError('not a journal entry (no format version "v")');
  if (raw.v > JOURNAL_VERSION) throw new JournalVersionError(where, raw.v);
  if (typeof raw.replyId !== 'string' || typeof raw.base !== 'number' || !Array.isArray(raw.events))
    throw new TypeError('a journal entry needs "replyId", "base" and "events"');
  return raw as JournalEntry;
}

/**
 * Reads a list of stored entries (text), stopping at the first damaged one.
 *
 * @example
 * ```ts
 * const read = readJournalTexts(lines, 'rxscope:store:s1:journal');
 * ```
 */
export function readJournalTexts(texts: readonly string[], where: string, since = 0): JournalRead {
  const entries: JournalEntry[] = [];
  for (let i = 0; i < texts.length; i++) {
    let entry: JournalEntry;
    try {
      entry = parseJournalEntry(texts[i]!, where);
    } catch (e) {
      if (e instanceof JournalVersionError) throw e;
      return { entries: entries.slice(since), damaged: { where, entry: i, reason: (e as Error).message } };
    }
    entries.push(entry);
  }
  return { entries: entries.slice(since) };
}
