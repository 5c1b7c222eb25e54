import type { RecordedEvent, RecordedHook, ReplyRecord, ReplyStatus, ReplySummary } from '../record/records.js';

/**
 * Who a reply is, as the recorder learns it when the reply starts.
 *
 * @example
 * ```ts
 * recorder.begin({ replyId: 'reply_1', agentName: 'helper', parentReplyId: 'reply_0' });
 * ```
 */
export interface ReplyIdentity {
  /** The reply (a resumed reply keeps its id). */
  readonly replyId: string;
  /** The agent's name (the `source` of its events). */
  readonly agentName: string;
  /** The session the agent's state belongs to. */
  readonly sessionId?: string;
  /** The user the reply acts for. */
  readonly userId?: string;
  /** The reply this one runs in, for a subagent's reply. */
  readonly parentReplyId?: string;
  /** The middleware chain per hook, outermost first. */
  readonly chain?: readonly { readonly hook: string; readonly layers: readonly string[] }[];
  /** What the recorder's `describe` said of the agent. */
  readonly harness?: unknown;
}

/**
 * What the recorder holds of one reply (mutable, private to the recorder). The events are kept
 * column by column (a `RecordedEvent` is built when one is read): one object less per event for
 * the collector, which the recorder's cost on a busy service is mostly about.
 */
export class ReplyEntry {
  private readonly seqs: number[] = [];
  private readonly times: number[] = [];
  private readonly hooks: RecordedHook[] = [];
  private readonly layerLists: (readonly string[])[] = [];
  private readonly kept: Readonly<Record<string, unknown>>[] = [];
  private flags: Map<number, string> | undefined;
  private costs: Map<number, number> | undefined;
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
  /** A devtools layer of the reply's own agent records it. */
  recordsItself = false;

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

  /** Events kept so far. */
  get length(): number {
    return this.kept.length;
  }

  /** Keeps one event (already sanitized). */
  push(
    seq: number,
    t: number,
    hook: RecordedHook,
    layers: readonly string[],
    event: Readonly<Record<string, unknown>>,
    flag: string | undefined,
    costUsd?: number,
  ): void {
    if (flag) (this.flags ??= new Map()).set(this.kept.length, flag);
    if (costUsd !== undefined) (this.costs ??= new Map()).set(this.kept.length, costUsd);
    this.seqs.push(seq);
    this.times.push(t);
    this.hooks.push(hook);
    this.layerLists.push(layers);
    this.kept.push(event);
  }

  /** The kept event at `i` as a {@link RecordedEvent}. */
  event(i: number): RecordedEvent {
    const flag = this.flags?.get(i);
    const costUsd = this.costs?.get(i);
    return {
      seq: this.seqs[i]!,
      replyId: this.replyId,
      t: this.times[i]!,
      hook: this.hooks[i]!,
      layers: this.layerLists[i]!,
      event: this.kept[i]!,
      ...(flag ? { flag } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
    };
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
      events: this.kept.map((_, i) => this.event(i)),
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
