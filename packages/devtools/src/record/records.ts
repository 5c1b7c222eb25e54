/**
 * The hook an event came from: the innermost onion it passed (`onModelCall` for what the model
 * said, `onActing` for a tool's run, `onReasoning` for a reasoning step's own events, `onAgent`
 * for the reply's).
 *
 * @example
 * ```ts
 * const fromModel = (e: RecordedEvent) => e.hook === 'onModelCall';
 * ```
 */
export type RecordedHook = 'onAgent' | 'onReasoning' | 'onActing' | 'onModelCall';

/**
 * One event as the recorder kept it: the event (redacted, big strings truncated), when it was
 * seen, and which middleware layers of its hook it passed.
 *
 * @example
 * ```ts
 * const slowLayers = (events: RecordedEvent[]) => events.filter((e) => e.layers.includes('RetryMiddleware'));
 * ```
 */
export interface RecordedEvent {
  /** Recorder-wide, strictly increasing. */
  readonly seq: number;
  /** The reply the event belongs to (a subagent's events are kept under their own reply). */
  readonly replyId: string;
  /** When the recorder saw it: ms since the epoch, fractional. */
  readonly t: number;
  /** The innermost onion the event came from. */
  readonly hook: RecordedHook;
  /** The names of the middleware layers of `hook` the event passed, outermost first. */
  readonly layers: readonly string[];
  /** The event, redacted and with big strings truncated (`{ $truncated, size, head }`). */
  readonly event: Readonly<Record<string, unknown>>;
  /** Set when the event was malformed: why (it is kept, never thrown). */
  readonly flag?: string;
  /** A `MODEL_CALL_END`'s cost, when the recorder was given prices for its model. */
  readonly costUsd?: number;
}

/**
 * Where a reply stands: `running`, `awaiting_confirmation`, `completed`, `failed`, `cancelled`,
 * or another finish reason as it came (`max_iters`, `stopped`, `awaiting_external_execution`...).
 *
 * @example
 * ```ts
 * const done = (s: ReplyStatus) => s !== 'running';
 * ```
 */
export type ReplyStatus = 'running' | 'awaiting_confirmation' | 'completed' | 'failed' | 'cancelled' | (string & {});

/**
 * One reply in the recorder's list: who, when, how it ended, what it cost.
 *
 * @example
 * ```ts
 * const line = (s: ReplySummary) => `${s.agentName} ${s.status} ${s.eventCount} events`;
 * ```
 */
export interface ReplySummary {
  readonly replyId: string;
  readonly sessionId?: string;
  readonly userId?: string;
  readonly agentName: string;
  /** Set on a subagent's reply (an agent used as a tool): the reply it ran in. */
  readonly parentReplyId?: string;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly status: ReplyStatus;
  readonly finishReason?: string;
  readonly eventCount: number;
  readonly toolCalls: number;
  /** Events kept with a `flag` (malformed). */
  readonly flagged: number;
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  /** The reply's cost, when the recorder was given prices for its models. */
  readonly costUsd?: number;
}

/**
 * Everything the recorder kept of one reply.
 *
 * @example
 * ```ts
 * const toolNames = (r: ReplyRecord) =>
 *   r.events.filter((e) => e.event['type'] === 'TOOL_CALL_START').map((e) => e.event['name']);
 * ```
 */
export interface ReplyRecord {
  readonly summary: ReplySummary;
  readonly events: readonly RecordedEvent[];
  /** The middleware chain per hook, in order (outermost first). */
  readonly chain: readonly { readonly hook: string; readonly layers: readonly string[] }[];
  /** What `describeHarness` says of the agent, when it is a harness agent and a describer was given. */
  readonly harness?: unknown;
  /** The replyIds of subagent replies run inside this one. */
  readonly children: readonly string[];
}

/**
 * What the recorder announces: a reply's summary (on start, update and end) or one event.
 *
 * @example
 * ```ts
 * recorder.feed().subscribe((item) => item.kind === 'summary' && console.log(item.summary.status));
 * ```
 */
export type RecorderFeedItem =
  | { readonly kind: 'summary'; readonly summary: ReplySummary }
  | { readonly kind: 'event'; readonly event: RecordedEvent };
