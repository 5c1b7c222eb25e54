/**
 * `CompactionMiddleware` (`onReasoning`): keeps a long conversation within the model's context
 * by summarising its older part.
 *
 * - **When**: before a reasoning step whose conversation has more than `triggerTokens` tokens
 *   (default: 80% of the model's context window when known — `contextWindow`, the model's own
 *   field, or a table of well-known models — else 100,000) or more than `triggerMessages`
 *   messages (an earlier summary not counted); and once, forced, when the model answers with a context-overflow error
 *   (`context_length_exceeded`): the step is compacted and retried once.
 * - **What is kept**: a recent tail of at most `keepTokens` tokens (default: a quarter of the
 *   trigger), cut at message boundaries — a tool call and its result live in one message, so they
 *   are never split — and the running reply's own message is always kept.
 * - **First saved**: the full conversation is written to
 *   `conversation_history/<session>-<time>.json` in the workspace before anything is replaced; if
 *   that fails, nothing is compacted (`compaction_failed`).
 * - **Summary**: the older part is summarised by the model (or `summaryModel`) in four sections —
 *   intent, summary, artifacts, next steps — folding in the summary of an earlier compaction.
 * - **Persisted**: the older part is replaced by one summary message through the core's
 *   conversation edit API, so `saveState()` holds the summary and the next step does not
 *   summarise again.
 * - **Best effort**: when the summary call fails (an HTTP error, `summaryTimeoutMs`, an empty
 *   answer), `CUSTOM compaction_failed {reason, error}` is emitted, the conversation stays as it
 *   was and the step goes on with its own model call. A context overflow the compaction could not
 *   relieve still fails the step, with the model's error. Cancelling the reply cancels the summary.
 * - **Events**: `CUSTOM compaction_start {messages, tokens, reason}` and `CUSTOM compaction_end
 *   {messagesBefore, messagesAfter, tokensBefore, tokensAfter, historyPath}`.
 * - **Cost**: tokens are counted once per message (cached), and each step reuses the sums of the
 *   previous one up to the first changed message.
 *
 * @example
 * ```ts
 * new CompactionMiddleware({ fileSystem: new LocalFileSystem('./ws'), triggerTokens: 60_000, keepTokens: 15_000 });
 * ```
 *
 * @module
 */
import { catchError, concat, defer, from, type Observable, switchMap, throwError } from 'rxjs';
import {
  type AgentHandle,
  type AgentEvent,
  type ChatModel,
  ContextToken,
  createMsg,
  type Middleware,
  ModelError,
  type Msg,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  optionKeys,
} from '@rxscope/core';
import { WORKSPACE_LAYOUT, type WorkspaceFileSystem } from '../../workspace/index.js';
import { contextWindowOf } from './context-window.js';
import { summarize } from './summarize.js';
import { estimateTokens, type TokenCounter, TokenTally } from './token-count.js';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/** Options of {@link CompactionMiddleware}. */
export interface CompactionOptions {
  /** Where the full history is saved before each compaction. */
  readonly fileSystem: WorkspaceFileSystem;
  /** Compact above this many tokens. Default: 80% of the context window, else 100,000. */
  readonly triggerTokens?: number;
  /** Compact above this many messages. Default: no message limit. */
  readonly triggerMessages?: number;
  /** The model's context window, when the model does not tell (used for the default trigger). */
  readonly contextWindow?: number;
  /** Tokens of recent messages kept as they are. Default: a quarter of the trigger. */
  readonly keepTokens?: number;
  /** Recent messages kept at most. Default: half of `triggerMessages` when set, else no limit. */
  readonly keepMessages?: number;
  /** The model that writes summaries. Default: the step's model. */
  readonly summaryModel?: ChatModel;
  /** The summary call is aborted after this long (the compaction then fails, the step goes on). Default 120,000 ms. */
  readonly summaryTimeoutMs?: number;
  /** Counts a message's tokens. Default: {@link estimateTokens} (about 4 characters a token). */
  readonly countTokens?: TokenCounter;
}

/**
 * The `metadata` key of the message that holds a compaction summary (its value: `{historyPath,
 * messages, at}`).
 *
 * @example
 * ```ts
 * const summary = agent.context.find((m) => m.metadata?.[COMPACTION_SUMMARY]);
 * ```
 */
export const COMPACTION_SUMMARY = 'rxscope.compactionSummary';

const SUMMARY_HEADER = 'Summary of the earlier conversation (compacted; the full history is saved in ';

// Every option, typed against CompactionOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<CompactionOptions>({
  fileSystem: true,
  triggerTokens: true,
  triggerMessages: true,
  contextWindow: true,
  keepTokens: true,
  keepMessages: true,
  summaryModel: true,
  summaryTimeoutMs: true,
  countTokens: true,
});

/** See the module documentation. */
export class CompactionMiddleware implements Middleware {
  readonly key = 'CompactionMiddleware';
  private readonly fs: WorkspaceFileSystem;
  private readonly options: CompactionOptions;
  private readonly counter: TokenCounter;
  // Counts of immutable messages: shared by every reply (a cache, not state).
  private readonly counts = new WeakMap<Msg, number>();
  private readonly tally = new ContextToken<TokenTally | undefined>('harness.compactionTally', () => undefined);

  constructor(options: CompactionOptions) {
    refuseUnknownOptions('CompactionMiddleware', options, OPTION_KEYS);
    if (!options?.fileSystem)
      throw new HarnessOptionError(
        'invalid_option',
        'CompactionMiddleware.fileSystem',
        'CompactionMiddleware needs the workspace fileSystem (the full history is saved there first).',
      );
    for (const k of [
      'triggerTokens',
      'triggerMessages',
      'contextWindow',
      'keepTokens',
      'keepMessages',
      'summaryTimeoutMs',
    ] as const) {
      const v = options[k];
      if (v !== undefined && !(Number.isFinite(v) && v > 0))
        throw new RangeError(`CompactionMiddleware: ${k} must be a positive number, got ${String(v)}.`);
    }
    if (
      options.keepTokens !== undefined &&
      options.triggerTokens !== undefined &&
      options.keepTokens >= options.triggerTokens
    ) {
      throw new RangeError(
        'CompactionMiddleware: keepTokens must be smaller than triggerTokens (else every step would compact again).',
      );
    }
    this.fs = options.fileSystem;
    this.options = options;
    this.counter = options.countTokens ?? estimateTokens;
  }

  /** The token trigger for a model: configured, else 80% of its context window, else 100,000. */
  triggerFor(model: ChatModel): number {
    if (this.options.triggerTokens !== undefined) return this.options.triggerTokens;
    const window = this.options.contextWindow ?? contextWindowOf(model);
    return window ? Math.floor(window * 0.8) : 100_000;
  }

  onReasoning(
    agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    return defer(() => {
      const trigger = this.triggerFor(input.model);
      const messages = ctx.conversation.messages;
      const tokens = this.tallyOf(ctx).total(messages);
      const byTokens = tokens > trigger;
      // The summary of an earlier compaction does not count as a message of the conversation.
      const count = messages.length - (messages.length && isSummary(messages[0]!) ? 1 : 0);
      const byCount = this.options.triggerMessages !== undefined && count > this.options.triggerMessages;
      const step = (retried: boolean): Observable<AgentEvent> =>
        next(input).pipe(
          catchError((err: unknown) => {
            if (retried || !isContextOverflow(err)) return throwError(() => err as Error);
            // Compact (keeping less than usual) and retry once; when nothing could be compacted, the error stands.
            const done = { compacted: false };
            return concat(
              this.compact(agent, ctx, input.model, 'context_overflow', trigger, true, done),
              defer(() => (done.compacted ? step(true) : throwError(() => err as Error))),
            );
          }),
        );
      if (!byTokens && !byCount) return step(false);
      return concat(
        this.compact(agent, ctx, input.model, byTokens ? 'tokens' : 'messages', trigger, false, { compacted: false }),
        defer(() => step(false)),
      );
    });
  }

  private tallyOf(ctx: RuntimeContext): TokenTally {
    let tally = ctx.get(this.tally);
    if (!tally) {
      tally = new TokenTally(this.counter, this.counts);
      ctx.set(this.tally, tally);
    }
    return tally;
  }

  /** Saves the history, summarises the older part and replaces it; emits start and end events. */
  private compact(
    agent: AgentHandle,
    ctx: RuntimeContext,
    model: ChatModel,
    reason: string,
    trigger: number,
    forced: boolean,
    done: { compacted: boolean },
  ): Observable<AgentEvent> {
    return defer(() => {
      const messages = ctx.conversation.messages;
      const tally = this.tallyOf(ctx);
      const sums = tally.prefixSums(messages);
      const tokensBefore = sums.length ? sums[sums.length - 1]! : 0;
      const split = this.splitPoint(messages, sums, trigger, forced);
      // Nothing older than the kept tail (or only an earlier summary): nothing to compact.
      if (split <= 0 || (split === 1 && isSummary(messages[0]!))) return from([] as AgentEvent[]);
      const older = messages.slice(0, split);
      const earlier = isSummary(older[0]!) ? summaryText(older[0]!) : undefined;
      const start = ctx.event('CUSTOM', {
        name: 'compaction_start',
        value: { messages: messages.length, tokens: tokensBefore, reason },
      });
      const historyPath = `${WORKSPACE_LAYOUT.history}/${safe(ctx.sessionId)}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
      const work = from(
        (async (): Promise<AgentEvent[]> => {
          try {
            await this.fs.writeFile(
              historyPath,
              JSON.stringify({ sessionId: ctx.sessionId, agent: agent.name, savedAt: Date.now(), messages }, null, 1),
            );
          } catch (e) {
            return [failed(ctx, `saving the history failed: ${errorText(e)}`, errorText(e))];
          }
          let text: string;
          try {
            const timeout = AbortSignal.timeout(this.options.summaryTimeoutMs ?? 120_000);
            text = await summarize(
              this.options.summaryModel ?? model,
              earlier ? older.slice(1) : older,
              earlier,
              AbortSignal.any([ctx.signal, timeout]),
            );
          } catch (e) {
            // A cancelled reply ends as cancelled; any other failure of the summary only skips the compaction.
            if (ctx.signal.aborted) throw e;
            return [failed(ctx, `the summary failed: ${errorText(e)}`, errorText(e))];
          }
          const summary = createMsg('user', `${SUMMARY_HEADER}${historyPath})\n\n${text}`, {
            metadata: { [COMPACTION_SUMMARY]: { historyPath, messages: split, at: Date.now() } },
          });
          // The conversation may have changed while the model wrote: replace what was summarised only.
          const now = ctx.conversation.messages;
          const at = now.indexOf(older[older.length - 1]!);
          if (at !== split - 1 || now[0] !== older[0]) {
            return [failed(ctx, 'the conversation changed during the compaction')];
          }
          ctx.conversation.replaceMessages(0, split, [summary]);
          done.compacted = true;
          const after = ctx.conversation.messages;
          return [
            ctx.event('CUSTOM', {
              name: 'compaction_end',
              value: {
                messagesBefore: messages.length,
                messagesAfter: after.length,
                tokensBefore,
                tokensAfter: tally.total(after),
                historyPath,
              },
            }),
          ];
        })(),
      ).pipe(switchMap((events) => from(events)));
      return concat(from([start]), work);
    });
  }

  /**
   * Index of the first kept message: the newest messages within `keepTokens` (a quarter of the
   * trigger by default; after an overflow at most a quarter of the conversation) and within
   * `keepMessages`, at message boundaries. The last message — the running reply's, when it has
   * content — is always kept.
   */
  private splitPoint(messages: readonly Msg[], sums: readonly number[], trigger: number, forced: boolean): number {
    const total = sums.length ? sums[sums.length - 1]! : 0;
    const normal = this.options.keepTokens ?? Math.floor(trigger / 4);
    const keep = forced ? Math.min(normal, Math.floor(total / 4)) : normal;
    const keepMessages =
      this.options.keepMessages ??
      (this.options.triggerMessages !== undefined
        ? Math.max(1, Math.floor(this.options.triggerMessages / 2))
        : Infinity);
    // Tokens of messages[i..].
    const tail = (i: number) => total - (i > 0 ? sums[i - 1]! : 0);
    let split = messages.length - 1;
    while (split > 0 && tail(split - 1) <= keep && messages.length - (split - 1) <= keepMessages) split--;
    return split;
  }
}

/** `CUSTOM compaction_failed {reason, error?}`: the conversation is left as it was and the step goes on. */
function failed(ctx: RuntimeContext, reason: string, error?: string): AgentEvent {
  return ctx.event('CUSTOM', {
    name: 'compaction_failed',
    value: error === undefined ? { reason } : { reason, error },
  });
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function isSummary(msg: Msg): boolean {
  return msg.metadata?.[COMPACTION_SUMMARY] !== undefined;
}

/** The summary itself, without the header line of its message. */
function summaryText(msg: Msg): string {
  const text = msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  return text.startsWith(SUMMARY_HEADER) ? text.slice(text.indexOf('\n\n') + 2) : text;
}

function isContextOverflow(err: unknown): boolean {
  if (err instanceof ModelError && err.code === 'context_length_exceeded') return true;
  const message = err instanceof Error ? err.message : String(err);
  return /context_length_exceeded|maximum context length|context window/i.test(message);
}

function safe(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80) || 'session';
}
