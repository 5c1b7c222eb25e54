import type { RecordedEvent, ReplyRecord, ReplyStatus, ReplySummary } from '../record/records.js';

/** Who a reply is, as the recorder learns it when the reply starts. */
export interface ReplyIdentity {
  readonly replyId: string;
  readonly agentName: string;
  readonly sessionId?: string;
  readonly userId?: string;
  readonly parentReplyId?: string;
  readonly chain?: readonly { readonly hook: string; readonly layers: readonly string[] }[];
  readonly harness?: unknown;
}

/** What the recorder holds of one reply (mutable, private to the recorder). */
export class ReplyEntry {
  readonly events: RecordedEvent[] = [];
  readonly children: string[] = [];
  bytes = 200;
  status: ReplyStatus = 'running';
  endedAt: number | undefined;
  finishReason: string | undefined;
  eventCount = 0;
  toolCalls = 0;
  flagged = 0;
  inputTokens = 0;
  outputTokens = 0;
  costUsd: number | undefined;
  sessionId: string | undefined;
  userId: string | undefined;
  parentReplyId: string | undefined;
  chain: readonly { readonly hook: string; readonly layers: readonly string[] }[] = [];
  harness: unknown;

  constructor(
    readonly replyId: string,
    readonly agentName: string,
    readonly startedAt: number,
  ) {}

  /** Fills in what a later start (a resume, the reply's own middleware) knows better. */
  learn(who: ReplyIdentity): void {
    this.sessionId ??= who.sessionId;
    this.userId ??= who.userId;
    this.parentReplyId ??= who.parentReplyId;
    if (who.chain && who.chain.length > this.chain.length) this.chain = who.chain;
    if (who.harness !== undefined) this.harness = who.harness;
  }

  summary(): ReplySummary {
    return {
      replyId: this.replyId,
      ...(this.sessionId !== undefined ? { sessionId: this.sessionId } : {}),
      ...(this.userId !== undefined ? { userId: this.userId } : {}),
      agentName: this.agentName,
      ...(this.parentReplyId !== undefined ? { parentReplyId: this.parentReplyId } : {}),
      startedAt: this.startedAt,
      ...(this.endedAt !== undefined ? { endedAt: this.endedAt } : {}),
      status: this.status,
      ...(this.finishReason !== undefined ? { finishReason: this.finishReason } : {}),
      eventCount: this.eventCount,
      toolCalls: this.toolCalls,
      flagged: this.flagged,
      ...(this.inputTokens || this.outputTokens
        ? { usage: { inputTokens: this.inputTokens, outputTokens: this.outputTokens } }
        : {}),
      ...(this.costUsd !== undefined ? { costUsd: this.costUsd } : {}),
    };
  }

  record(): ReplyRecord {
    return {
      summary: this.summary(),
      events: [...this.events],
      chain: this.chain,
      ...(this.harness !== undefined ? { harness: this.harness } : {}),
      children: [...this.children],
    };
  }
}

/** The status a reply has after `REPLY_END {finishReason}`. */
export function statusOf(finishReason: unknown): ReplyStatus {
  switch (finishReason) {
    case 'completed':
      return 'completed';
    case 'error':
      return 'failed';
    case 'interrupted':
    case 'cancelled':
      return 'cancelled';
    case undefined:
      return 'completed';
    default:
      return typeof finishReason === 'string' ? finishReason : 'completed';
  }
}
