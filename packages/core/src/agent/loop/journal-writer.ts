import type { AgentEvent, ReplyFinishReason, Usage } from '../../event/events.js';
import type { Msg } from '../../message/blocks.js';
import { ContextToken, type RuntimeContext } from '../../middleware/context.js';
import { JOURNAL_VERSION, ReplyLeaseError, type JournalEntry } from '../../state/journal.js';
import type { SessionStore } from '../../state/session-store.js';

/** Where one reply's checkpoints go, and what they record about it. */
export interface JournalWriterParts {
  readonly store: SessionStore;
  readonly sessionId: string;
  readonly replyId: string;
  /** The stored version the reply started from. */
  readonly base: number;
  /** This agent's lease holder id. */
  readonly holder: string;
  readonly leaseMs: number;
  /** The messages the reply added to the conversation before its first step. */
  readonly input: () => readonly Msg[];
  /** The reply continues the suspended reply of the snapshot. */
  readonly continues: boolean;
  readonly reportError: (error: unknown) => void;
}

/** What a checkpoint records of the reply's progress. */
export interface JournalProgress {
  readonly step: number;
  readonly toolSteps: number;
  readonly usage: Usage;
}

/** The journal writer of the running reply, for the tool terminal (absent: no checkpoints). */
export const REPLY_JOURNAL = new ContextToken<ReplyJournalWriter | undefined>('replyJournal', () => undefined);

/** The journal writer of a reply's context, if it writes checkpoints. */
export function journalOf(ctx: RuntimeContext): ReplyJournalWriter | undefined {
  return ctx.has(REPLY_JOURNAL) ? ctx.get(REPLY_JOURNAL) : undefined;
}

/**
 * Writes one reply's checkpoints to its session's journal, one after another: the reply's
 * start (its input), the events of each step when the next one starts, a tool call before it
 * runs (the tool waits until that entry is stored), each tool result. Holds the session's
 * lease while the reply runs (renewed every third of `leaseMs`), so no other process recovers
 * it meanwhile. After a failed write it writes nothing more and every tool waiting for its
 * `started` entry gets the failure (the tool does not run: a run the journal does not know of
 * could run twice).
 */
export class ReplyJournalWriter {
  private buffer: AgentEvent[] = [];
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private renewal: ReturnType<typeof setInterval> | undefined;
  private progress: () => JournalProgress = () => ({ step: 0, toolSteps: 0, usage: NO_USAGE });

  constructor(private readonly parts: JournalWriterParts) {}

  /** Takes the lease and writes the first entry (its input, or that it continues the pending reply). */
  begin(start: AgentEvent, progress: () => JournalProgress): void {
    this.progress = progress;
    this.buffer.push(start);
    const { store, sessionId, holder, leaseMs, replyId } = this.parts;
    if (store.acquireLease) {
      this.enqueue(async () => {
        if (!(await store.acquireLease!(sessionId, holder, leaseMs))) throw new ReplyLeaseError(sessionId, replyId);
      }).catch(() => undefined); // reported once by enqueue
      this.renewal = setInterval(
        () => {
          void store.acquireLease!(sessionId, holder, leaseMs).then(
            (held) => held || this.parts.reportError(new ReplyLeaseError(sessionId, replyId)),
            (e: unknown) => this.parts.reportError(e),
          );
        },
        Math.max(10, Math.floor(leaseMs / 3)),
      );
      (this.renewal as { unref?: () => void }).unref?.();
    }
    const first = this.parts.continues ? { continues: true as const } : { input: this.parts.input() };
    this.quietly(first);
  }

  /** One event of the reply; a tool result of this agent is a checkpoint of its own. */
  observe(e: AgentEvent, agentName: string): void {
    this.buffer.push(e);
    if (e.type === 'TOOL_RESULT_END' && e.source === agentName) this.quietly({});
  }

  /** A step ends: its events are a checkpoint; `done`: the steps are over, with this finish reason. */
  flush(done?: ReplyFinishReason): void {
    if (done) this.quietly({ done });
    else if (this.buffer.length) this.quietly({});
  }

  /** A write nobody waits for (its failure is reported once, and stops the writes after it). */
  private quietly(extra: Partial<JournalEntry>): void {
    this.write(extra).catch(() => undefined);
  }

  /** A tool call is about to run: resolves once its `started` entry is stored (rejects when it cannot be). */
  starting(callId: string, name: string): Promise<void> {
    return this.write({ started: { callId, name } });
  }

  /** Once every entry so far is written (failed ones included). */
  written(): Promise<void> {
    return this.chain.catch(() => undefined);
  }

  /** The reply was saved whole: the journal is dropped and the lease given up. */
  async ended(saved: boolean): Promise<void> {
    if (this.renewal) clearInterval(this.renewal);
    await this.written();
    const { store, sessionId, holder } = this.parts;
    if (saved) await store.clearJournal?.(sessionId);
    await store.releaseLease?.(sessionId, holder);
  }

  private write(extra: Partial<JournalEntry>): Promise<void> {
    const events = this.buffer;
    this.buffer = [];
    const { step, toolSteps, usage } = this.progress();
    const entry: JournalEntry = {
      v: JOURNAL_VERSION,
      base: this.parts.base,
      replyId: this.parts.replyId,
      step,
      toolSteps,
      usage,
      events,
      ...extra,
    };
    return this.enqueue(() => this.parts.store.appendJournal!(this.parts.sessionId, entry));
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.chain.then(() => {
      if (this.failure !== undefined) throw this.failure;
      return work().catch((e: unknown) => {
        if (this.failure === undefined) this.parts.reportError(e);
        this.failure ??= e instanceof Error ? e : new Error(String(e));
        throw e;
      });
    });
    this.chain = next.catch(() => undefined);
    return next;
  }
}

const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };
