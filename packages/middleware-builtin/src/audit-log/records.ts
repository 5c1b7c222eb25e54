import type { ErrorInfo, ReplyFinishReason, ToolResultStatus, Usage } from '@rxscope/core';

/** Fields every audit record has. */
export interface AuditRecordBase {
  /** ISO 8601 time of the record. */
  readonly at: string;
  readonly agent: string;
  readonly sessionId: string;
  readonly replyId: string;
  /** The user the reply acts for (`ctx.userId`), when it has one. */
  readonly userId?: string;
}

/**
 * One line of the audit log. `reply_start`: who asked what. `tool_run`: a tool call that was
 * permitted and runs, with its (redacted) arguments; `tool_result`: how it ended. `permission`:
 * a call that was denied (by a rule, the mode, a guard), a confirmation asked, or a person's
 * answer to it. `reply_end`: how the reply ended.
 *
 * @example
 * ```ts
 * const line: AuditRecord = { type: 'tool_run', at: '2026-01-01T00:00:00.000Z', agent: 'ops', sessionId: 's', replyId: 'r', toolCallId: 'c1', tool: 'execute', input: { command: 'ls' } };
 * ```
 */
export type AuditRecord =
  | (AuditRecordBase & {
      readonly type: 'reply_start';
      readonly actor: string;
      readonly input: string;
      readonly resume?: string;
    })
  | (AuditRecordBase & {
      readonly type: 'tool_run';
      readonly toolCallId: string;
      readonly tool: string;
      readonly input: unknown;
    })
  | (AuditRecordBase & {
      readonly type: 'tool_result';
      readonly toolCallId: string;
      readonly tool: string;
      readonly status: ToolResultStatus;
      readonly durationMs: number;
    })
  | (AuditRecordBase & {
      readonly type: 'permission';
      readonly decision: 'denied' | 'ask' | 'confirmed' | 'rejected';
      readonly toolCallId: string;
      readonly tool?: string;
      readonly input?: unknown;
      readonly reason?: string;
      /** On `confirmed`: the person allowed such calls from now on. */
      readonly alwaysAllow?: boolean;
    })
  | (AuditRecordBase & {
      readonly type: 'reply_end';
      readonly finishReason: ReplyFinishReason;
      readonly error?: ErrorInfo;
      readonly usage?: Usage;
    });

/**
 * Where audit records go: an object with `write`, called once per record, in order. A returned
 * promise is awaited before the reply ends; a rejection fails the reply.
 *
 * @example
 * ```ts
 * const toConsole: AuditSink = { write: (record) => console.log(JSON.stringify(record)) };
 * ```
 */
export interface AuditSink {
  write(record: AuditRecord): void | Promise<void>;
}

/**
 * An in-memory sink (tests, or shipping records elsewhere in batches).
 *
 * @example
 * ```ts
 * const sink = memoryAuditSink();
 * const agent = new Agent({ model, middlewares: [new AuditLogMiddleware({ sink })] });
 * await agent.call('hi');
 * expect(sink.records.map((r) => r.type)).toEqual(['reply_start', 'reply_end']);
 * ```
 */
export function memoryAuditSink(): AuditSink & { readonly records: readonly AuditRecord[] } {
  const records: AuditRecord[] = [];
  return { records, write: (record) => void records.push(record) };
}

/** Field names whose values are replaced by default (compared case-insensitively, at any depth). */
export const DEFAULT_REDACTED_KEYS: readonly string[] = [
  'password',
  'passwd',
  'secret',
  'token',
  'apikey',
  'api_key',
  'authorization',
  'cookie',
];

/** `value` with the values of the `keys` fields replaced by `replacement`, at any depth. */
export function redactKeys(value: unknown, keys: ReadonlySet<string>, replacement: string): unknown {
  if (Array.isArray(value)) return value.map((v) => redactKeys(v, keys, replacement));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        keys.has(k.toLowerCase()) ? replacement : redactKeys(v, keys, replacement),
      ]),
    );
  }
  return value;
}
