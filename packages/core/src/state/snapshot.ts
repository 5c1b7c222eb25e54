import { z } from 'zod';
import type { PendingToolCall, Usage } from '../event/events.js';
import type { Msg } from '../message/blocks.js';
import type { PermissionState } from '../permission/rules.js';
import { migrateState } from './migrations.js';
import { RxscopeError } from '../error/rxscope-error.js';
import type { JsonObject } from '../util/json-patch.js';

/** The snapshot format version this build writes (older versions are migrated on load). */
export const STATE_VERSION = 3;

const text = z.object({ type: z.literal('text'), text: z.string() });
const data = z.object({
  type: z.literal('data'),
  mediaType: z.string(),
  data: z.string().optional(),
  url: z.string().optional(),
});
const block = z.discriminatedUnion('type', [
  text,
  data,
  z.object({ type: z.literal('thinking'), thinking: z.string() }),
  z.object({ type: z.literal('hint'), text: z.string(), id: z.string().optional(), source: z.string().optional() }),
  z.object({ type: z.literal('tool_call'), id: z.string(), name: z.string(), arguments: z.string() }),
  z.object({
    type: z.literal('tool_result'),
    toolCallId: z.string(),
    name: z.string(),
    status: z.enum(['success', 'error', 'denied', 'interrupted']),
    output: z.array(z.discriminatedUnion('type', [text, data])),
  }),
]);

/** zod schema of a stored message. */
export const msgSchema = z.object({
  id: z.string(),
  role: z.enum(['system', 'user', 'assistant']),
  name: z.string(),
  content: z.array(block),
  createdAt: z.number(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const ruleSchema = z.object({
  behavior: z.enum(['allow', 'deny', 'ask']),
  tool: z.string(),
  argument: z.string().optional(),
  pattern: z.string().optional(),
  reason: z.string().optional(),
  userId: z.string().min(1).optional(),
});

const pendingCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
  reason: z.string().optional(),
  question: z
    .object({
      message: z.string(),
      schema: z.record(z.string(), z.unknown()).optional(),
      url: z.string().optional(),
      kind: z.string().optional(),
      details: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});

const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});

/** zod schema of a suspended reply. */
export const pendingReplySchema = z.object({
  replyId: z.string(),
  iteration: z.number().int().nonnegative(),
  toolSteps: z.number().int().nonnegative(),
  message: msgSchema,
  confirm: z.array(pendingCallSchema),
  external: z.array(pendingCallSchema),
  usage: usageSchema,
  replyState: z.record(z.string(), z.unknown()).optional(),
  output: z.object({ schema: z.record(z.string(), z.unknown()), repairs: z.number().int().nonnegative() }).optional(),
  shutdown: z.object({ reason: z.string(), at: z.number() }).optional(),
  recovered: z
    .object({
      fromStep: z.number().int().nonnegative(),
      started: z.array(z.string()),
      damaged: z.object({ where: z.string(), entry: z.number(), reason: z.string() }).optional(),
      done: z.enum(['completed', 'max_iters']).optional(),
    })
    .optional(),
});

/** zod schema of {@link AgentStateSnapshot}. */
export const agentStateSchema = z.object({
  version: z.literal(STATE_VERSION),
  agentName: z.string(),
  sessionId: z.string(),
  context: z.array(msgSchema),
  summary: z.string().optional(),
  middlewareState: z.record(z.string(), z.unknown()),
  sharedState: z.record(z.string(), z.json()).optional(),
  permissions: z.object({ mode: z.enum(['default', 'strict', 'plan', 'bypass']), rules: z.array(ruleSchema) }),
  pending: pendingReplySchema.optional(),
  inbox: z.array(msgSchema).optional(),
  owner: z.string().min(1).optional(),
  savedAt: z.number().optional(),
});

/**
 * A reply suspended for confirmation or external execution: everything needed to continue it,
 * in this process or another one.
 */
export interface PendingReply {
  readonly replyId: string;
  /** Reasoning steps taken so far (`ctx.iteration`). */
  readonly iteration: number;
  /** Reasoning steps that ended in tool calls (counted against `maxIters`). */
  readonly toolSteps: number;
  /** The reply message so far; its pending calls have no result yet. */
  readonly message: Msg;
  /** Calls waiting for a person's confirmation. */
  readonly confirm: readonly PendingToolCall[];
  /** Calls waiting for an external executor. */
  readonly external: readonly PendingToolCall[];
  readonly usage: Usage;
  /** The reply's `ctx.replyState` values. */
  readonly replyState?: Readonly<Record<string, unknown>>;
  /**
   * The structured output the reply was asked for: its JSON schema (a resume must pass a zod
   * schema with the same JSON schema) and the repair turns used so far.
   */
  readonly output?: { readonly schema: Readonly<Record<string, unknown>>; readonly repairs: number };
  /**
   * Set when the reply was suspended by a shutdown (`agent.shutdown()`), not for a person or an
   * executor: `confirm` and `external` are empty, and the tool calls of `message` that have no
   * result yet never started; `{type: 'RESUME_REPLY'}` runs them and continues the reply.
   */
  readonly shutdown?: { readonly reason: string; readonly at: number };
  /**
   * Set when the reply was rebuilt from its journal after the process running it stopped
   * (`RECOVER_REPLY`): `fromStep` is the step it continues from, `started` the tool calls that
   * had started and have no result (each runs again only if its tool is `idempotent`).
   */
  readonly recovered?: {
    readonly fromStep: number;
    readonly started: readonly string[];
    /** The journal's end was damaged (a write cut off): entries from `entry` on were dropped. */
    readonly damaged?: { readonly where: string; readonly entry: number; readonly reason: string };
    /** The reply's steps had ended (`completed` or `max_iters`): it only needs to be saved. */
    readonly done?: 'completed' | 'max_iters';
  };
}

/**
 * A JSON-serialisable, versioned snapshot of an agent: conversation, summary and middleware
 * state. `savedAt` is volatile metadata.
 *
 * @example
 * ```ts
 * const snapshot: AgentStateSnapshot = agent.saveState();
 * const restored = new Agent({ ...options, state: JSON.parse(JSON.stringify(snapshot)) });
 * ```
 */
export interface AgentStateSnapshot {
  readonly version: number;
  readonly agentName: string;
  readonly sessionId: string;
  readonly context: readonly Msg[];
  readonly summary?: string;
  readonly middlewareState: Readonly<Record<string, unknown>>;
  /** The session's shared state (`ctx.sharedState`), when it is not empty. */
  readonly sharedState?: JsonObject;
  readonly permissions: PermissionState;
  /** The suspended reply, if the agent waits for a confirmation or an external result. */
  readonly pending?: PendingReply;
  /** Messages sent with `agent.send()` that have not joined a reply yet, oldest first. */
  readonly inbox?: readonly Msg[];
  /** The user the session belongs to: the `userId` of its first reply that had one. */
  readonly owner?: string;
  readonly savedAt?: number;
}

/**
 * Thrown for a snapshot that cannot be loaded; `path` names the offending field.
 *
 * @example
 * ```ts
 * try { new Agent({ ...options, state }); } catch (e) { if (e instanceof AgentStateError) console.error(e.path); }
 * ```
 */
export class AgentStateError extends RxscopeError {
  override readonly name = 'AgentStateError';
  readonly code = 'invalid_state';
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/**
 * Validates an unknown value as a snapshot (migrating older versions first), reporting the first
 * bad path.
 *
 * @example
 * ```ts
 * const snapshot = parseAgentState(JSON.parse(await readFile('state.json', 'utf8')));
 * ```
 */
export function parseAgentState(value: unknown): AgentStateSnapshot {
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > STATE_VERSION) {
    throw new AgentStateError(
      `Agent state version ${version} is newer than this build supports (${STATE_VERSION}); upgrade @rxscope/core.`,
      'version',
    );
  }
  const result = agentStateSchema.safeParse(
    typeof version === 'number' ? migrateState(value as { version: number }) : value,
  );
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String).join('.') || '(root)';
  throw new AgentStateError(`Invalid agent state at "${path}": ${issue.message}`, path);
}
