/**
 * `AuditLogMiddleware`: an append-only record of who asked what, which tools ran with which
 * arguments, which permissions were denied, asked for and answered, and how each reply ended —
 * one JSON object per record, to a JSON-lines file (`jsonLinesFileSink` from
 * `@rxscope/middleware-builtin/node`) or any {@link AuditSink}.
 *
 * Arguments are redacted before they are written: values of secret-looking fields (`password`,
 * `token`, `apiKey`, `authorization`, ... at any depth) by default, `redactKeys` to choose the
 * fields, `redact` to rewrite whole records (for example to drop the input text).
 *
 * Records of a reply are written in order, and the reply's `REPLY_END` waits until they are all
 * written: a reply whose audit trail could not be written fails (fail closed) with the sink's
 * error. A reply cancelled by unsubscribing gets a `reply_end` record with `finishReason:
 * 'interrupted'`; a failure to write that one goes to `onError`.
 *
 * @example
 * ```ts
 * import { jsonLinesFileSink } from '@rxscope/middleware-builtin/node';
 * const audit = new AuditLogMiddleware({ sink: jsonLinesFileSink('./logs/audit.jsonl'), actor: (input) => currentUser.email });
 * const agent = new Agent({ model, tools, middlewares: [audit] });
 * ```
 *
 * @module
 */
import { concatMap, defer, finalize, from, map, type Observable, of, tap } from 'rxjs';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  ContextToken,
  type Middleware,
  type Next,
  type RuntimeContext,
  textOfMsg,
  checkOptionKeys,
  optionKeys,
  OptionsError,
} from '@rxscope/core';
import {
  type AuditRecord,
  type AuditRecordBase,
  type AuditSink,
  DEFAULT_REDACTED_KEYS,
  redactKeys,
} from './records.js';

/** Distributes `Omit` over the members of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Options of {@link AuditLogMiddleware}. */
export interface AuditLogOptions {
  /** Where records go. Required. */
  readonly sink: AuditSink;
  /**
   * Who asked: default the reply's user (`reply(input, { userId })`, `ctx.userId`), else the
   * `name` of the reply's last user message (`'user'` unless you set it), or the resume event's `source`.
   */
  readonly actor?: (input: AgentInput, ctx: RuntimeContext) => string;
  /** Fields whose values are replaced in tool arguments (case-insensitive, any depth). Default: {@link DEFAULT_REDACTED_KEYS}. */
  readonly redactKeys?: readonly string[];
  /** What replaces a redacted value. Default `'[REDACTED]'`. */
  readonly replacement?: string;
  /** Rewrites every record before it is written (after `redactKeys`). */
  readonly redact?: (record: AuditRecord) => AuditRecord;
  /** Receives a failure to write the record of a cancelled reply (no reply is left to fail). Default: `console.error`. */
  readonly onError?: (error: unknown) => void;
  /** Clock for `at`. Default `Date.now`. */
  readonly now?: () => number;
}

/** The records of one reply, written one after the other. */
class ReplyWriter {
  private chain: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;
  ended = false;
  constructor(private readonly sink: AuditSink) {}

  write(record: AuditRecord): void {
    this.chain = this.chain.then(async () => {
      if (this.failure) return;
      try {
        await this.sink.write(record);
      } catch (error) {
        this.failure = { error };
      }
    });
  }

  /** Resolves once everything is written; rejects with the first write's failure. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure.error;
  }
}

const WRITER = new ContextToken<ReplyWriter | undefined>('AuditLogMiddleware.writer', () => undefined);

const textOfOutput = (output: readonly { readonly type: string; readonly text?: string }[]) =>
  output.map((o) => (o.type === 'text' ? (o.text ?? '') : '')).join('');

// Every option, typed against AuditLogOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<AuditLogOptions>({
  sink: true,
  actor: true,
  redactKeys: true,
  replacement: true,
  redact: true,
  onError: true,
  now: true,
});

/**
 * An append-only audit trail of every reply. See the module documentation.
 */
export class AuditLogMiddleware implements Middleware {
  readonly key = 'AuditLogMiddleware';
  private readonly sink: AuditSink;
  private readonly keys: ReadonlySet<string>;
  private readonly replacement: string;
  private readonly options: AuditLogOptions;

  constructor(options: AuditLogOptions) {
    checkOptionKeys('AuditLogMiddleware', options, OPTION_KEYS);
    if (typeof options?.sink?.write !== 'function') {
      throw new OptionsError(
        'invalid_option',
        'AuditLogMiddleware.sink',
        'AuditLogMiddleware: sink must be an object with a write(record) method, e.g. jsonLinesFileSink(path).',
      );
    }
    this.options = options;
    this.sink = options.sink;
    this.keys = new Set((options.redactKeys ?? DEFAULT_REDACTED_KEYS).map((k) => k.toLowerCase()));
    this.replacement = options.replacement ?? '[REDACTED]';
  }

  onAgent(agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() => {
      const writer = new ReplyWriter(this.sink);
      ctx.set(WRITER, writer);
      const record = (r: DistributiveOmit<AuditRecord, keyof AuditRecordBase>) => writer.write(this.finish(ctx, r));
      const resume = input.resume;
      const actor =
        this.options.actor?.(input, ctx) ??
        ctx.userId ??
        (resume?.type === 'RESUME_REPLY'
          ? 'system'
          : resume
            ? resume.source || 'user'
            : ([...input.messages].reverse().find((m) => m.role === 'user')?.name ?? 'user'));
      record({
        type: 'reply_start',
        actor,
        input: input.messages
          .filter((m) => m.role === 'user')
          .map(textOfMsg)
          .join('\n'),
        ...(resume ? { resume: resume.type } : {}),
      });
      if (resume?.type === 'USER_CONFIRM_RESULT') {
        const asked = agent.pending?.confirm ?? [];
        for (const r of resume.results) {
          const tool = asked.find((c) => c.id === r.toolCallId)?.name;
          record({
            type: 'permission',
            decision: r.confirmed ? 'confirmed' : 'rejected',
            toolCallId: r.toolCallId,
            ...(tool ? { tool } : {}),
            ...(r.reason ? { reason: r.reason } : {}),
            ...(r.confirmed && r.alwaysAllow ? { alwaysAllow: true } : {}),
          });
        }
      }
      const toolNames = new Map<string, string>();
      return next(input).pipe(
        tap((e) => {
          if (e.source !== ctx.agentName) return;
          if (e.type === 'TOOL_CALL_START') toolNames.set(e.toolCallId, e.name);
          else if (e.type === 'TOOL_RESULT_END' && e.status === 'denied') {
            const tool = toolNames.get(e.toolCallId);
            record({
              type: 'permission',
              decision: 'denied',
              toolCallId: e.toolCallId,
              ...(tool ? { tool } : {}),
              reason: textOfOutput(e.output),
            });
          } else if (e.type === 'REQUIRE_USER_CONFIRM') {
            for (const call of e.toolCalls) {
              record({
                type: 'permission',
                decision: 'ask',
                toolCallId: call.id,
                tool: call.name,
                input: this.redactInput(call.input),
                ...(call.reason ? { reason: call.reason } : {}),
              });
            }
          }
        }),
        concatMap((e) => {
          if (e.type !== 'REPLY_END' || e.source !== ctx.agentName) return of(e);
          writer.ended = true;
          record({
            type: 'reply_end',
            finishReason: e.finishReason,
            ...(e.error ? { error: e.error } : {}),
            ...(e.usage ? { usage: e.usage } : {}),
          });
          // Fail closed: the reply ends only once its trail is written.
          return from(writer.flush()).pipe(map(() => e));
        }),
        finalize(() => {
          if (writer.ended) return;
          record({ type: 'reply_end', finishReason: 'interrupted' });
          writer
            .flush()
            .catch((error: unknown) =>
              (this.options.onError ?? ((err: unknown) => console.error('AuditLogMiddleware:', err)))(error),
            );
        }),
      );
    });
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    return defer(() => {
      const writer = ctx.get(WRITER);
      const { id: toolCallId, name: tool } = input.toolCall;
      const startedAt = Date.now();
      writer?.write(this.finish(ctx, { type: 'tool_run', toolCallId, tool, input: this.redactInput(input.input) }));
      return next(input).pipe(
        tap((e) => {
          if (e.type === 'TOOL_RESULT_END' && e.toolCallId === toolCallId) {
            writer?.write(
              this.finish(ctx, {
                type: 'tool_result',
                toolCallId,
                tool,
                status: e.status,
                durationMs: Date.now() - startedAt,
              }),
            );
          }
        }),
      );
    });
  }

  private redactInput(value: unknown): unknown {
    return this.keys.size ? redactKeys(value, this.keys, this.replacement) : value;
  }

  private finish(ctx: RuntimeContext, partial: DistributiveOmit<AuditRecord, keyof AuditRecordBase>): AuditRecord {
    const record = {
      at: new Date((this.options.now ?? Date.now)()).toISOString(),
      agent: ctx.agentName,
      sessionId: ctx.sessionId,
      replyId: ctx.replyId,
      ...(ctx.userId !== undefined ? { userId: ctx.userId } : {}),
      ...partial,
    } as AuditRecord;
    return this.options.redact ? this.options.redact(record) : record;
  }
}
