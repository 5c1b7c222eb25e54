/**
 * `MemoryFlushMiddleware`: after each completed reply, the model extracts the durable facts of
 * the exchange (preferences, decisions, facts about the user and the project, lessons from
 * errors) and they are appended to today's ledger, `memory/YYYY-MM-DD.md`, under a heading
 * naming the time and the session. Facts the ledger already holds are left out.
 *
 * The flush runs **detached**: the reply's stream completes without waiting for it. One session
 * never runs two flushes at once (a later one waits for the running one): in this process, and
 * with a `lease` (a `RedisLease`) in every process sharing it (lease key `flush:<sessionId>`). Each outcome is
 * appended to the session's event log when a `bus` is given — `CUSTOM memory_flushed {path,
 * facts}` or `CUSTOM memory_flush_failed {error}` — and failures are logged (`onError`).
 * Interrupted, failed and suspended replies are not flushed (their messages are flushed with
 * the next completed reply). `idle()` waits for running flushes (tests, graceful shutdown).
 *
 * @example
 * ```ts
 * const flush = new MemoryFlushMiddleware({ fileSystem: new LocalFileSystem('./ws'), bus: sessions.bus });
 * const agent = new Agent({ model, middlewares: [flush] });
 * await agent.call('I prefer tabs over spaces.');   // returns at once; the flush runs after it
 * await flush.idle();                                // memory/2026-01-31.md holds "- The user prefers tabs ..."
 * ```
 *
 * @module
 */
import { defer, type Observable, tap } from 'rxjs';
import type {
  AgentInput,
  AgentHandle,
  AgentEvent,
  ChatModel,
  Middleware,
  Msg,
  Next,
  RuntimeContext,
} from '@rxscope/core';
import { DetachedWork, type DetachedReport } from '../detached-work.js';
import { extractFacts } from '../extract-facts.js';
import { appendToLedger, dayOf, ledgerPathOf, readText } from '../ledger.js';
import { WORKSPACE_LAYOUT, type WorkspaceFileSystem } from '../../workspace/index.js';
import { optionKeys } from '@rxscope/core';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/** Options of {@link MemoryFlushMiddleware}. */
export interface MemoryFlushOptions extends DetachedReport {
  /** The workspace the ledgers are written to. */
  readonly fileSystem: WorkspaceFileSystem;
  /** The model that extracts facts. Default: the agent's model. */
  readonly model?: ChatModel;
  /** A flush's model call is aborted after this long. Default 120,000 ms. */
  readonly timeoutMs?: number;
  /** The clock (the ledger's day and the heading's time). Default: `new Date()`. */
  readonly now?: () => Date;
}

interface FlushState {
  /** Id of the last message flushed. */
  readonly through: string;
}

// Every option, typed against MemoryFlushOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<MemoryFlushOptions>({
  fileSystem: true,
  model: true,
  timeoutMs: true,
  now: true,
  bus: true,
  onError: true,
  lease: true,
});

/** See the module documentation. */
export class MemoryFlushMiddleware implements Middleware {
  readonly key = 'MemoryFlushMiddleware';
  private readonly work: DetachedWork;
  private readonly timeoutMs: number;
  private readonly now: () => Date;

  constructor(private readonly options: MemoryFlushOptions) {
    refuseUnknownOptions('MemoryFlushMiddleware', options, OPTION_KEYS);
    if (!options?.fileSystem)
      throw new HarnessOptionError(
        'invalid_option',
        'MemoryFlushMiddleware.fileSystem',
        'MemoryFlushMiddleware needs the workspace (options.fileSystem).',
      );
    this.work = new DetachedWork('memory flush', options);
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.now = options.now ?? (() => new Date());
  }

  /** Resolves when no flush runs or waits. */
  idle(): Promise<void> {
    return this.work.idle();
  }

  onAgent(agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() => {
      const before = new Set(ctx.conversation.messages.map((m) => m.id));
      return next(input).pipe(
        tap((e) => {
          if (
            e.type !== 'REPLY_END' ||
            e.replyId !== ctx.replyId ||
            e.source !== agent.name ||
            e.finishReason !== 'completed'
          )
            return;
          const messages = this.unflushed(ctx, before);
          if (!messages.some((m) => m.role === 'user')) return;
          ctx.state<FlushState>(this.key).set({ through: messages[messages.length - 1]!.id });
          void this.work.start(
            ctx.sessionId,
            { sessionId: ctx.sessionId, replyId: ctx.replyId, agentName: agent.name },
            (emit, signal) => this.flush(this.options.model ?? agent.model, messages, ctx.sessionId, emit, signal),
            'memory_flush_failed',
            // Another process's flush of this session runs at most its model call's timeout and a write.
            { key: `flush:${ctx.sessionId}`, waitMs: this.timeoutMs + 60_000 },
          );
        }),
      );
    });
  }

  /** The messages after the last one flushed (the whole conversation the first time). */
  private unflushed(ctx: RuntimeContext, before: ReadonlySet<string>): Msg[] {
    const messages = ctx.conversation.messages;
    const through = ctx.state<FlushState>(this.key).get()?.through;
    if (through === undefined) return [...messages];
    const at = messages.findIndex((m) => m.id === through);
    // The marker was compacted away: this reply's own messages.
    if (at < 0) return messages.filter((m) => !before.has(m.id) || m.id === ctx.replyId);
    return messages.slice(at + 1);
  }

  private async flush(
    model: ChatModel,
    messages: readonly Msg[],
    sessionId: string,
    emit: (name: string, value: unknown) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void> {
    const now = this.now();
    const day = dayOf(now);
    const fs = this.options.fileSystem;
    const known = [
      (await readText(fs, WORKSPACE_LAYOUT.memory)) ?? '',
      (await readText(fs, ledgerPathOf(day))) ?? '',
    ].join('\n');
    const facts = await extractFacts(model, messages, known, AbortSignal.timeout(this.timeoutMs));
    signal.throwIfAborted(); // the lease was lost: another process may flush this session now
    const written = facts.length
      ? await appendToLedger(fs, day, `${now.toISOString().slice(11, 16)} UTC — session ${sessionId}`, facts)
      : [];
    await emit('memory_flushed', { path: ledgerPathOf(day), facts: written });
  }
}
