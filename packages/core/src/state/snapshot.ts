import { z } from 'zod';
import type { Msg } from '../message/blocks.js';

/** The snapshot format version this build writes. */
export const STATE_VERSION = 1;

const text = z.object({ type: z.literal('text'), text: z.string() });
const data = z.object({ type: z.literal('data'), mediaType: z.string(), data: z.string().optional(), url: z.string().optional() });
const block = z.discriminatedUnion('type', [
  text,
  data,
  z.object({ type: z.literal('thinking'), thinking: z.string() }),
  z.object({ type: z.literal('hint'), text: z.string() }),
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

/** zod schema of {@link AgentStateSnapshot}. */
export const agentStateSchema = z.object({
  version: z.literal(STATE_VERSION),
  agentName: z.string(),
  sessionId: z.string(),
  context: z.array(msgSchema),
  summary: z.string().optional(),
  middlewareState: z.record(z.string(), z.unknown()),
  savedAt: z.number().optional(),
});

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
export class AgentStateError extends Error {
  override readonly name = 'AgentStateError';
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/**
 * Validates an unknown value as a snapshot, reporting the first bad path.
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
  const result = agentStateSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String).join('.') || '(root)';
  throw new AgentStateError(`Invalid agent state at "${path}": ${issue.message}`, path);
}
