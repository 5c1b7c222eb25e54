/**
 * The view model of one exchange — a prompt and the agent's reply — folded from the reply's
 * events by a pure function, so a signal can hold it and `computed`s can slice it.
 *
 * A reply that waits for confirmation spans several event streams (the first one ends with
 * `REPLY_END {finishReason: 'awaiting_confirmation'}`, the resumed one starts with `REPLY_START`
 * of the same `replyId`); they all fold into the same {@link Turn}.
 */
import type {
  AgentEvent,
  PendingToolCall,
  ReplyFinishReason,
  ToolResultContent,
  ToolResultStatus,
  Usage,
} from '@rxscope/core';

/** Where a tool call is in its life: arguments streaming, queued, waiting for a person, running, done. */
export type ToolStatus = 'streaming' | 'queued' | 'awaiting_confirmation' | 'running' | ToolResultStatus;

export interface ToolCallView {
  readonly id: string;
  readonly name: string;
  /** The JSON arguments as the model streamed them. */
  readonly args: string;
  readonly status: ToolStatus;
  /** The output as it streams while running; the complete output once done. */
  readonly output: string;
  /** The tool's latest progress report (`TOOL_PROGRESS`) while it runs; never part of the output. */
  readonly progress?: string;
  readonly blockId: string;
  readonly resultBlockId?: string;
}

/** One task of the agent's task list, as `write_todos` wrote it (`CUSTOM todos_updated`). */
export interface TodoView {
  readonly content: string;
  readonly status: 'pending' | 'in_progress' | 'completed';
}

/** Audio of the reply (the service speaks with `TTSMiddleware`): base64 joined from the block's deltas. */
export interface AudioPart {
  readonly kind: 'audio';
  readonly blockId: string;
  readonly mediaType: string;
  readonly data: string;
  /** The block ended: `data` is complete and can be played. */
  readonly done: boolean;
}

export type ReplyPart =
  | { readonly kind: 'text'; readonly blockId: string; readonly text: string }
  | { readonly kind: 'thinking'; readonly blockId: string; readonly text: string }
  | { readonly kind: 'tool'; readonly call: ToolCallView }
  | AudioPart;

export type TurnStatus =
  | 'sending'
  | 'streaming'
  | 'awaiting_confirmation'
  | 'awaiting_external_execution'
  | 'completed'
  | 'max_iters'
  | 'stopped'
  | 'shutdown'
  | 'interrupted'
  | 'cancelled'
  | 'error';

export interface Turn {
  /** Local id (the reply id is known only once the reply starts). */
  readonly id: string;
  readonly prompt: string;
  readonly replyId?: string;
  readonly parts: readonly ReplyPart[];
  /** Calls waiting for the user's answer (from `REQUIRE_USER_CONFIRM`). */
  readonly pending: readonly PendingToolCall[];
  /** Summed over the reply's model calls as they end (across resumes). */
  readonly usage: Usage;
  readonly modelCalls: number;
  /** The agent's task list as it last wrote it during this turn (absent when it wrote none). */
  readonly todos?: readonly TodoView[];
  readonly status: TurnStatus;
  readonly finishReason?: ReplyFinishReason;
  readonly error?: string;
}

/** Turn statuses after which nothing more arrives for the turn. */
export const FINAL_STATUSES: ReadonlySet<TurnStatus> = new Set([
  'completed',
  'max_iters',
  'stopped',
  'shutdown',
  'interrupted',
  'cancelled',
  'error',
]);

export function newTurn(id: string, prompt: string): Turn {
  return {
    id,
    prompt,
    parts: [],
    pending: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    modelCalls: 0,
    status: 'sending',
  };
}

/** The text of the reply so far (text blocks only). */
export function textOf(turn: Turn): string {
  return turn.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
}

/** Folds one event into the turn. Events of another reply and events the view ignores return the same object. */
export function applyEvent(turn: Turn, e: AgentEvent): Turn {
  if (turn.replyId !== undefined && e.replyId !== turn.replyId) return turn;
  switch (e.type) {
    case 'REPLY_START':
      return { ...turn, replyId: e.replyId, status: 'streaming' };
    case 'TEXT_BLOCK_START':
      return addPart(turn, { kind: 'text', blockId: e.blockId, text: '' });
    case 'THINKING_BLOCK_START':
      return addPart(turn, { kind: 'thinking', blockId: e.blockId, text: '' });
    case 'TEXT_BLOCK_DELTA':
    case 'THINKING_BLOCK_DELTA':
      return mapParts(turn, (p) =>
        (p.kind === 'text' || p.kind === 'thinking') && p.blockId === e.blockId ? { ...p, text: p.text + e.delta } : p,
      );
    case 'DATA_BLOCK_START':
      return e.mediaType.startsWith('audio/')
        ? addPart(turn, { kind: 'audio', blockId: e.blockId, mediaType: e.mediaType, data: '', done: false })
        : turn;
    case 'DATA_BLOCK_DELTA':
      return mapParts(turn, (p) =>
        p.kind === 'audio' && p.blockId === e.blockId ? { ...p, data: p.data + e.delta } : p,
      );
    case 'DATA_BLOCK_END':
      return mapParts(turn, (p) => (p.kind === 'audio' && p.blockId === e.blockId ? { ...p, done: true } : p));
    case 'TOOL_CALL_START':
      return addPart(turn, {
        kind: 'tool',
        call: { id: e.toolCallId, name: e.name, args: '', status: 'streaming', output: '', blockId: e.blockId },
      });
    case 'TOOL_CALL_DELTA':
      return mapCalls(
        turn,
        (c) => c.blockId === e.blockId,
        (c) => ({ ...c, args: c.args + e.delta }),
      );
    case 'TOOL_CALL_END':
      return mapCalls(
        turn,
        (c) => c.blockId === e.blockId && c.status === 'streaming',
        (c) => ({ ...c, status: 'queued' }),
      );
    case 'TOOL_RESULT_START':
      return mapCalls(
        turn,
        (c) => c.id === e.toolCallId,
        (c) => ({ ...c, status: 'running', resultBlockId: e.blockId, output: '' }),
      );
    case 'TOOL_RESULT_DELTA':
      return mapCalls(
        turn,
        (c) => c.resultBlockId === e.blockId,
        (c) => ({ ...c, output: c.output + e.delta }),
      );
    case 'TOOL_PROGRESS':
      return mapCalls(
        turn,
        (c) => c.id === e.toolCallId,
        (c) => ({ ...c, progress: e.message }),
      );
    case 'TOOL_RESULT_END':
      return mapCalls(
        turn,
        (c) => c.id === e.toolCallId,
        ({ progress: _done, ...c }) => ({ ...c, status: e.status, output: outputText(e.output) }),
      );
    case 'REQUIRE_USER_CONFIRM': {
      const ids = new Set(e.toolCalls.map((c) => c.id));
      return {
        ...mapCalls(
          turn,
          (c) => ids.has(c.id),
          (c) => ({ ...c, status: 'awaiting_confirmation' }),
        ),
        pending: e.toolCalls,
      };
    }
    case 'USER_CONFIRM_RESULT': {
      const answers = new Map(e.results.map((r) => [r.toolCallId, r.confirmed]));
      const answered = mapCalls(
        turn,
        (c) => answers.has(c.id),
        (c) => ({ ...c, status: answers.get(c.id) ? 'queued' : 'denied' }),
      );
      return { ...answered, pending: [] };
    }
    case 'MODEL_CALL_END':
      return { ...turn, usage: addUsage(turn.usage, e.usage), modelCalls: turn.modelCalls + 1 };
    case 'CUSTOM':
      // A new message rejected the calls this turn was waiting for (the agent's `reject-pending`).
      if (e.name === 'pending_calls_rejected') return { ...turn, pending: [] };
      // The agent rewrote its task list (the harness's `write_todos`); each update replaces the whole list.
      if (e.name === 'todos_updated') return { ...turn, todos: todosOf(e.value) };
      return turn;
    case 'REPLY_END':
      return {
        ...turn,
        status: e.finishReason,
        finishReason: e.finishReason,
        ...(e.finishReason === 'awaiting_confirmation' ? {} : { pending: [] }),
        ...(e.error ? { error: e.error.message } : {}),
      };
    default:
      return turn;
  }
}

/** The user cancelled: nothing more arrives; calls still open are shown as interrupted. */
export function cancelTurn(turn: Turn): Turn {
  if (FINAL_STATUSES.has(turn.status)) return turn;
  const open = (s: ToolStatus) =>
    s === 'streaming' || s === 'queued' || s === 'running' || s === 'awaiting_confirmation';
  return {
    ...mapCalls(
      turn,
      (c) => open(c.status),
      (c) => ({ ...c, status: 'interrupted' }),
    ),
    status: 'cancelled',
    pending: [],
  };
}

/** The transport failed (HTTP error, dropped stream): the turn ends with the message. */
export function failTurn(turn: Turn, message: string): Turn {
  return { ...turn, status: 'error', error: message, pending: [] };
}

/** The list from a `todos_updated` value; entries of an unexpected shape are dropped, never shown half-read. */
function todosOf(value: unknown): readonly TodoView[] {
  const todos = (value as { todos?: unknown } | undefined)?.todos;
  if (!Array.isArray(todos)) return [];
  return todos.filter(
    (t): t is TodoView =>
      typeof (t as TodoView).content === 'string' &&
      ['pending', 'in_progress', 'completed'].includes((t as TodoView).status),
  );
}

function addPart(turn: Turn, part: ReplyPart): Turn {
  return { ...turn, parts: [...turn.parts, part] };
}

function mapParts(turn: Turn, f: (p: ReplyPart) => ReplyPart): Turn {
  return { ...turn, parts: turn.parts.map(f) };
}

function mapCalls(turn: Turn, match: (c: ToolCallView) => boolean, f: (c: ToolCallView) => ToolCallView): Turn {
  return mapParts(turn, (p) => (p.kind === 'tool' && match(p.call) ? { kind: 'tool', call: f(p.call) } : p));
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...(a.cacheReadTokens || b.cacheReadTokens
      ? { cacheReadTokens: (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0) }
      : {}),
    ...(a.reasoningTokens || b.reasoningTokens
      ? { reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0) }
      : {}),
  };
}

function outputText(output: readonly ToolResultContent[]): string {
  return output.map((c) => (c.type === 'text' ? c.text : `[${c.mediaType}]`)).join('');
}
