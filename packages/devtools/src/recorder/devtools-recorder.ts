import { Observable } from 'rxjs';
import type { RecordedHook, RecorderFeedItem, ReplyRecord, ReplySummary } from '../record/records.js';
import { REDACTED, sanitize } from '../record/sanitize.js';
import { ReplyEntry, statusOf, type ReplyIdentity } from './reply-entry.js';
import {
  resolveRecorderOptions,
  type DevtoolsRecorderOptions,
  type ResolvedRecorderOptions,
} from './recorder-options.js';

const NO_LAYERS: readonly string[] = Object.freeze([]);

/** performance.timeOrigin + performance.now(): fractional ms since the epoch, monotonic within the process. */
const now = (): number => performance.timeOrigin + performance.now();

/**
 * Keeps what the devtools show: every reply that passed a `DevtoolsMiddleware`, its events (with
 * hook and layers), its status, usage and cost, and its subagent replies, in a ring buffer bounded
 * by replies and by bytes (the oldest replies go first). It never throws into an agent: a
 * malformed event is kept with a `flag`. `feed()` announces every change.
 *
 * @example
 * ```ts
 * const recorder = new DevtoolsRecorder({ maxReplies: 200 });
 * const agent = new Agent({ name: 'bot', model, middlewares: instrumentMiddlewares(recorder, [new RetryMiddleware()]) });
 * await agent.call('hi');
 * console.log(recorder.replies()[0]?.status); // 'completed'
 * ```
 */
export class DevtoolsRecorder {
  /** The options in effect (defaults filled in). */
  readonly options: ResolvedRecorderOptions;
  private readonly entries = new Map<string, ReplyEntry>();
  private readonly listeners = new Set<(item: RecorderFeedItem) => void>();
  private totalBytes = 0;
  private seq = 0;

  constructor(options: DevtoolsRecorderOptions = {}) {
    this.options = resolveRecorderOptions(options);
  }

  /** Notes the start (or the resumption) of a reply. */
  begin(who: ReplyIdentity): void {
    this.guard(() => {
      let entry = this.entries.get(who.replyId);
      if (!entry) {
        entry = new ReplyEntry(who.replyId, who.agentName, now());
        this.entries.set(who.replyId, entry);
        this.totalBytes += entry.bytes;
      } else if (entry.status !== 'running') {
        entry.status = 'running';
        entry.endedAt = undefined;
        entry.finishReason = undefined;
      }
      entry.learn(who);
      if (who.parentReplyId) this.adopt(who.replyId, who.parentReplyId);
      this.announceSummary(entry);
      this.bound(entry);
    });
  }

  /**
   * Notes the start of a reply by a devtools layer of its own agent: the reply records itself, so
   * a caller it is forwarded through (an agent used as a tool) does not record it again.
   */
  beginOwn(who: ReplyIdentity): void {
    this.begin(who);
    const entry = this.entries.get(who.replyId);
    if (entry) entry.recordsItself = true;
  }

  /** True when a devtools layer of the reply's own agent records it (see {@link DevtoolsRecorder.beginOwn}). */
  recordsItself(replyId: string): boolean {
    return this.entries.get(replyId)?.recordsItself === true;
  }

  /** Notes that `childId` is a subagent reply run inside `parentId`. */
  adopt(childId: string, parentId: string): void {
    const child = this.entries.get(childId);
    const parent = this.entries.get(parentId);
    if (child && child.parentReplyId === undefined) child.parentReplyId = parentId;
    if (parent && !parent.children.includes(childId)) parent.children.push(childId);
  }

  /**
   * Keeps one event of reply `replyId` (an event of another reply forwarded through it is kept
   * under its own `replyId`). Never throws; a malformed event is kept with a `flag`.
   */
  record(replyId: string, hook: RecordedHook, layers: readonly string[], event: unknown): void {
    try {
      let own = replyId;
      if (typeof event === 'object' && event !== null) {
        const id = (event as { replyId?: unknown }).replyId;
        if (typeof id === 'string') own = id;
      }
      let entry = this.entries.get(own);
      if (!entry) {
        const source = (event as { source?: unknown } | null)?.source;
        this.begin({
          replyId: own,
          agentName: typeof source === 'string' ? source : '?',
          ...(own !== replyId ? { parentReplyId: replyId } : {}),
        });
        entry = this.entries.get(own);
        if (!entry) return;
      }
      this.keep(entry, hook, layers, event);
    } catch {
      // A lost record is better than a failed reply.
    }
  }

  /**
   * Keeps the request of a model call (`MODEL_REQUEST`, hook `onModelCall`): the tool names, the
   * tool choice and options; the messages only with `content: true`, else `{ $redacted: true }`.
   */
  recordModelRequest(replyId: string, layers: readonly string[], request: Record<string, unknown>): void {
    const messages = this.options.content ? request['messages'] : REDACTED;
    this.record(replyId, 'onModelCall', layers, { type: 'MODEL_REQUEST', replyId, ...request, messages });
  }

  /** Notes that the subscriber of a reply went away before its `REPLY_END`. */
  abandon(replyId: string): void {
    this.guard(() => {
      const entry = this.entries.get(replyId);
      if (!entry || entry.status !== 'running') return;
      entry.status = 'cancelled';
      entry.endedAt = now();
      this.announceSummary(entry);
    });
  }

  /** The summaries of the kept replies, newest first. */
  replies(): ReplySummary[] {
    return [...this.entries.values()].reverse().map((e) => e.summary());
  }

  /** Everything kept of one reply, or `undefined` (unknown or dropped). */
  reply(replyId: string): ReplyRecord | undefined {
    return this.entries.get(replyId)?.record();
  }

  /** How much the buffer holds now. */
  stats(): { readonly replies: number; readonly bytes: number; readonly events: number } {
    let events = 0;
    for (const e of this.entries.values()) events += e.length;
    return { replies: this.entries.size, bytes: this.totalBytes, events };
  }

  /** Forgets every kept reply. */
  clear(): void {
    this.entries.clear();
    this.totalBytes = 0;
  }

  /**
   * Every change from now on: `{ kind: 'summary' }` when a reply starts, changes (status, usage,
   * a tool call) and ends, `{ kind: 'event' }` for each kept event. Hot: nothing is replayed.
   */
  feed(): Observable<RecorderFeedItem> {
    return new Observable<RecorderFeedItem>((subscriber) => {
      const listener = (item: RecorderFeedItem) => subscriber.next(item);
      this.listeners.add(listener);
      return () => this.listeners.delete(listener);
    });
  }

  private keep(entry: ReplyEntry, hook: RecordedHook, layers: readonly string[], event: unknown): void {
    const shape = malformed(event);
    const kept = sanitize(event, this.options);
    const flag = shape ?? kept.flag;
    entry.eventCount++;
    if (flag) entry.flagged++;
    const cost = callCostOf(event, this.options.prices);
    let changed = this.fold(entry, event, cost);
    if (entry.length < this.options.maxEventsPerReply) {
      const v = kept.value;
      const event = (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : { value: v }) as Record<
        string,
        unknown
      >;
      entry.push(++this.seq, now(), hook, layers.length ? layers : NO_LAYERS, event, flag, cost);
      const bytes = kept.bytes + 48 + layers.length * 8;
      entry.bytes += bytes;
      this.totalBytes += bytes;
      if (this.listeners.size) this.announce({ kind: 'event', event: entry.event(entry.length - 1) });
    }
    if (flag) changed = true;
    if (changed) this.announceSummary(entry);
    this.bound(entry);
  }

  /** Folds an event into the reply's summary; true when the summary changed in a way worth announcing. */
  private fold(entry: ReplyEntry, event: unknown, cost: number | undefined): boolean {
    if (typeof event !== 'object' || event === null) return false;
    const e = event as Record<string, unknown>;
    switch (e['type']) {
      case 'TOOL_CALL_START':
        entry.toolCalls++;
        return true;
      case 'MODEL_CALL_END': {
        const { input, output } = tokensOf(e);
        entry.inputTokens += input;
        entry.outputTokens += output;
        if (cost !== undefined) entry.costUsd = (entry.costUsd ?? 0) + cost;
        return true;
      }
      case 'REQUIRE_USER_CONFIRM':
        entry.status = 'awaiting_confirmation';
        return true;
      case 'REPLY_END':
        entry.finishReason = typeof e['finishReason'] === 'string' ? e['finishReason'] : undefined;
        entry.status = statusOf(e['finishReason']);
        entry.endedAt = now();
        return true;
      default:
        return false;
    }
  }

  /** Drops the oldest replies while the buffer is over a bound (never the one being written). */
  private bound(current: ReplyEntry): void {
    const { maxReplies, maxBytes } = this.options;
    if (this.entries.size <= maxReplies && this.totalBytes <= maxBytes) return;
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= maxReplies && this.totalBytes <= maxBytes) break;
      if (entry === current) continue;
      this.entries.delete(id);
      this.totalBytes -= entry.bytes;
    }
  }

  private announceSummary(entry: ReplyEntry): void {
    if (this.listeners.size) this.announce({ kind: 'summary', summary: entry.summary() });
  }

  private announce(item: RecorderFeedItem): void {
    for (const listener of this.listeners) this.guard(() => listener(item));
  }

  /** The recorder runs inside agents' replies: whatever goes wrong here must not reach them. */
  private guard(work: () => void): void {
    try {
      work();
    } catch {
      // Nothing to do: a lost record is better than a failed reply.
    }
  }
}

/** Why an event is malformed (not an object, no `type`, no `replyId`), or `undefined`. */
function malformed(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    return `not an event object (${event === null ? 'null' : Array.isArray(event) ? 'an array' : typeof event})`;
  const e = event as Record<string, unknown>;
  if (typeof e['type'] !== 'string' || !e['type']) return 'no "type" string';
  if (typeof e['replyId'] !== 'string') return 'no "replyId" string';
  return undefined;
}

/** A model call's input and output tokens (0 for what the event does not say). */
function tokensOf(e: Record<string, unknown>): { input: number; output: number } {
  const usage = e['usage'] as { inputTokens?: unknown; outputTokens?: unknown } | undefined;
  return {
    input: typeof usage?.inputTokens === 'number' ? usage.inputTokens : 0,
    output: typeof usage?.outputTokens === 'number' ? usage.outputTokens : 0,
  };
}

/** A `MODEL_CALL_END`'s cost in USD, when `prices` has its model; undefined for anything else. */
function callCostOf(event: unknown, prices: DevtoolsRecorderOptions['prices']): number | undefined {
  if (!prices || typeof event !== 'object' || event === null) return undefined;
  const e = event as Record<string, unknown>;
  if (e['type'] !== 'MODEL_CALL_END' || typeof e['model'] !== 'string') return undefined;
  const price = prices[e['model']];
  if (!price) return undefined;
  const { input, output } = tokensOf(e);
  return (input * price.input + output * price.output) / 1e6;
}
