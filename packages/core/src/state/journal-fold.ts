import type { AgentEvent } from '../event/events.js';
import { createReplyReducer } from '../event/reducer.js';
import { applyJsonPatch, type JsonObject } from '../util/json-patch.js';
import type { JournalRead } from './journal.js';
import type { AgentStateSnapshot, PendingReply } from './snapshot.js';

/** A reply rebuilt from its journal: the state to continue it from, and what it says about the crash. */
export interface FoldedReply {
  /** The snapshot with the reply's input in the conversation and the reply as a pending one (`pending.recovered`). */
  readonly snapshot: AgentStateSnapshot;
  readonly replyId: string;
  /** The step (`ctx.iteration`) the reply continues from. */
  readonly fromStep: number;
  /** Tool calls that had started and have no result. */
  readonly started: readonly string[];
}

/** Events that only mark the reply's bounds or a recovery: not part of its message. */
const BOUNDS = new Set(['REPLY_START', 'REPLY_END']);

/**
 * Folds the journal of a reply left running over the snapshot it started from: its input joins
 * the conversation, its journaled events (blocks that were closed; a block cut off by the crash
 * is dropped) become the message of a pending reply marked `recovered`, which
 * `{type: 'RESUME_REPLY'}` continues. Entries written against another stored version (a reply
 * saved since) are stale and ignored. `undefined` when no reply was left running.
 *
 * @example
 * ```ts
 * const stored = await store.load('s1');
 * const folded = foldJournal(stored!.state, stored!.version, await store.readJournal!('s1'));
 * if (folded) new Agent({ model, store, sessionId: 's1', state: folded.snapshot });
 * ```
 */
export function foldJournal(base: AgentStateSnapshot, baseVersion: number, read: JournalRead): FoldedReply | undefined {
  const current = read.entries.filter((e) => e.base === baseVersion);
  // The last reply started (a new reply abandons one left before it), with all its attempts.
  const last = [...current].reverse().find((e) => e.input !== undefined || e.continues);
  if (!last) return undefined;
  const entries = current.filter((e) => e.replyId === last.replyId);
  const first = entries[0]!;
  const seed = first.continues && base.pending?.replyId === first.replyId ? base.pending : undefined;
  const events = entries.flatMap((e) => e.events);
  const closed = closedBlocks(events);
  const reducer = createReplyReducer({
    source: base.agentName,
    name: base.agentName,
    id: first.replyId,
    ...(seed ? { initial: seed.message } : {}),
  });
  for (const e of events) {
    if (BOUNDS.has(e.type)) continue;
    const blockId = (e as { blockId?: string }).blockId;
    if (blockId === undefined || e.type === 'HINT_BLOCK' || closed.has(blockId)) reducer.apply(e);
  }
  const message = reducer.message();
  const answered = new Set(message.content.flatMap((b) => (b.type === 'tool_result' ? [b.toolCallId] : [])));
  const started = [
    ...new Set(entries.flatMap((e) => (e.started && !answered.has(e.started.callId) ? [e.started.callId] : []))),
  ];
  const end = entries[entries.length - 1]!;
  const pending: PendingReply = {
    replyId: first.replyId,
    iteration: end.step,
    toolSteps: end.toolSteps,
    message,
    confirm: [],
    external: [],
    usage: end.usage ?? seed?.usage ?? { inputTokens: 0, outputTokens: 0 },
    ...(seed?.replyState ? { replyState: seed.replyState } : {}),
    ...(seed?.output ? { output: seed.output } : {}),
    shutdown: { reason: 'the process running the reply stopped before it ended', at: Date.now() },
    recovered: {
      fromStep: end.step,
      started,
      ...(read.damaged ? { damaged: read.damaged } : {}),
      ...(end.done === 'completed' || end.done === 'max_iters' ? { done: end.done } : {}),
    },
  };
  const sharedState = sharedStateAfter(base.sharedState, events, base.agentName);
  const snapshot: AgentStateSnapshot = {
    ...base,
    ...(sharedState ? { sharedState } : {}),
    context: first.input ? [...base.context, ...first.input] : base.context,
    pending,
  };
  return { snapshot, replyId: first.replyId, fromStep: end.step, started };
}

/** The shared state after the reply's journaled state events (`undefined`: none changed it). */
function sharedStateAfter(
  base: JsonObject | undefined,
  events: readonly AgentEvent[],
  source: string,
): JsonObject | undefined {
  let state: JsonObject | undefined;
  for (const e of events) {
    if (e.source !== source) continue;
    if (e.type === 'STATE_SNAPSHOT') state = e.snapshot;
    else if (e.type === 'STATE_DELTA') {
      try {
        state = applyJsonPatch(state ?? base ?? {}, e.delta);
      } catch {
        // The reply emitted deltas it had applied itself, so they apply; a damaged entry is dropped above.
      }
    }
  }
  return state;
}

/** Ids of the blocks whose end is among the events. */
function closedBlocks(events: readonly AgentEvent[]): Set<string> {
  const closed = new Set<string>();
  for (const e of events) if (e.type.endsWith('_END') && 'blockId' in e) closed.add(e.blockId);
  return closed;
}
