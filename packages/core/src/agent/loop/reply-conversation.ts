import type { AgentEvent } from '../../event/events.js';
import type { ContentBlock, Msg } from '../../message/blocks.js';
import { createReplyReducer, type ReplyReducer } from '../../event/reducer.js';
import type { RuntimeContext } from '../../middleware/context.js';
import {
  type BlockRef,
  type Conversation,
  ConversationEditError,
  type HintOptions,
} from '../../middleware/conversation.js';
import type { ReasoningInput } from '../../middleware/middleware.js';
import { msgSchema } from '../../state/snapshot.js';
import { newId } from '../../util/id.js';

/** What the conversation of a reply needs from its agent. */
export interface ConversationHost {
  /** The agent's context (the messages before this reply). */
  context(): readonly Msg[];
  /** Replaces the agent's context (persisted: `saveState()` holds it). */
  setContext(messages: readonly Msg[]): void;
}

/**
 * The conversation of one running reply (`ctx.conversation`): the agent's context plus the reply
 * so far, which this object folds from the reply's events with the reply reducer. Edits replace
 * the context in the agent, or the reducer with one rebuilt from the edited message; hints are
 * folded at once and their `HINT_BLOCK` events queued for the loop to emit, once.
 */
export class ReplyConversation implements Conversation {
  /** Folds the reply's events into the reply message; replaced by an edit of that message. */
  reducer: ReplyReducer;
  /** Every `messages` array handed out: a `ReasoningInput` carrying one of them is rebuilt on the way in. */
  private readonly views = new WeakSet<readonly Msg[]>();
  private view: readonly Msg[] | undefined;
  private viewContext: readonly Msg[] | undefined;
  /** Block ids of hint events folded when they were added (the loop must not fold them again). */
  private readonly folded = new Set<string>();
  /** Hint events added and not yet emitted. */
  private queued: AgentEvent[] = [];
  /** Ids of hints that live for one step; `true` once a model request included them. */
  /** Made with the first step hint: most replies have none. */
  private stepHints: Map<string, boolean> | undefined;

  constructor(
    private readonly host: ConversationHost,
    private readonly ctx: RuntimeContext,
    initial?: Msg,
  ) {
    this.reducer = this.newReducer(initial);
  }

  get messages(): readonly Msg[] {
    const context = this.host.context();
    if (this.view && this.viewContext === context) return this.view;
    const soFar = this.reducer.message();
    const view = soFar.content.length ? [...context, soFar] : context;
    this.views.add(view);
    this.view = view;
    this.viewContext = context;
    return view;
  }

  /** Folds one event of the reply (hints added through {@link addHint} were folded already). */
  apply(event: AgentEvent): void {
    if (event.type === 'HINT_BLOCK' && this.folded.has(event.blockId)) return;
    this.reducer.apply(event);
    this.view = undefined;
  }

  /** The input with the current conversation, when its `messages` is an earlier view of it. */
  refresh(input: ReasoningInput): ReasoningInput {
    const messages = input.messages;
    if (!this.views.has(messages)) return input;
    const current = this.messages;
    return messages === current ? input : { ...input, messages: current };
  }

  replaceMessages(start: number, end: number, replacement: readonly Msg[]): void {
    const view = this.messages;
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end > view.length) {
      throw new ConversationEditError(
        `replaceMessages(${start}, ${end}): the range must satisfy 0 <= start <= end <= ${view.length} (the number of messages).`,
      );
    }
    if (!Array.isArray(replacement))
      throw new ConversationEditError('replaceMessages: replacement must be an array of messages.');
    replacement.forEach((msg, i) => {
      const parsed = msgSchema.safeParse(msg);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new ConversationEditError(
          `replaceMessages: replacement[${i}] is not a valid message at "${issue.path.map(String).join('.') || '(root)'}": ${issue.message}`,
        );
      }
    });
    this.commit(view, start, end, replacement);
  }

  replaceBlock(ref: BlockRef, block: ContentBlock): void {
    const view = this.messages;
    const found = locate(view, ref);
    if (!found) throw new ConversationEditError(`replaceBlock: no block matches ${JSON.stringify(ref)}.`);
    const [m, b] = found;
    const msg = view[m]!;
    const old = msg.content[b]!;
    if (old.type === 'tool_result' && (block.type !== 'tool_result' || block.toolCallId !== old.toolCallId)) {
      throw new ConversationEditError(
        `replaceBlock: the result of tool call ${old.toolCallId} can only be replaced by another result of that call ` +
          '(a tool call must keep its result).',
      );
    }
    const content = [...msg.content];
    content[b] = block;
    this.replaceMessages(m, m + 1, [{ ...msg, content }]);
  }

  addHint(text: string, options: HintOptions = {}): string {
    if (typeof text !== 'string') throw new ConversationEditError('addHint: the hint text must be a string.');
    const id = options.id ?? newId('hint');
    if (this.reducer.hasHint(id)) return id;
    const event = this.ctx.event('HINT_BLOCK', {
      blockId: newId('blk'),
      text,
      hintId: id,
      ...(options.source !== undefined ? { hintSource: options.source } : {}),
    });
    this.reducer.apply(event);
    this.folded.add(event.blockId);
    this.queued.push(event);
    if (options.lifetime === 'step') (this.stepHints ??= new Map()).set(id, false);
    this.view = undefined;
    return id;
  }

  hasHint(id: string): boolean {
    return this.reducer.hasHint(id);
  }

  removeHint(id: string): boolean {
    let removed = this.reducer.removeHint(id) > 0;
    const context = this.host.context();
    let changed = false;
    const kept: Msg[] = [];
    for (const msg of context) {
      if (!msg.content.some((b) => b.type === 'hint' && b.id === id)) {
        kept.push(msg);
        continue;
      }
      changed = true;
      const content = msg.content.filter((b) => !(b.type === 'hint' && b.id === id));
      if (content.length) kept.push({ ...msg, content });
    }
    if (changed) this.host.setContext(kept);
    this.queued = this.queued.filter((e) => !(e.type === 'HINT_BLOCK' && e.hintId === id));
    this.stepHints?.delete(id);
    removed ||= changed;
    this.view = undefined;
    return removed;
  }

  /** True when hint events wait to be emitted. */
  get hasHints(): boolean {
    return this.queued.length > 0;
  }

  /** The hint events not emitted yet (each is handed out once). */
  takeHints(): AgentEvent[] {
    if (!this.queued.length) return NONE;
    const out = this.queued;
    this.queued = [];
    return out;
  }

  /** A model request is being made: the step hints present now are part of it. */
  markStepHintsSeen(): void {
    if (!this.stepHints) return;
    for (const id of this.stepHints.keys()) this.stepHints.set(id, true);
  }

  /** A reasoning step ended: its step hints leave the conversation (all of them when the reply ends). */
  dropStepHints(all: boolean): void {
    if (!this.stepHints) return;
    for (const [id, seen] of this.stepHints) {
      if (!seen && !all) continue;
      this.reducer.removeHint(id);
      this.stepHints.delete(id);
      this.view = undefined;
    }
  }

  private commit(view: readonly Msg[], start: number, end: number, replacement: readonly Msg[]): void {
    const next = [...view.slice(0, start), ...replacement, ...view.slice(end)];
    const before = unpaired(view);
    const broken = [...unpaired(next)].filter((id) => !before.has(id));
    if (broken.length) {
      throw new ConversationEditError(
        `The edit would leave tool call(s) ${broken.join(', ')} without a matching call or result; ` +
          'replace a tool call together with its result.',
      );
    }
    const context = this.host.context();
    const withReply = view.length > context.length;
    if (end < view.length || (!withReply && end === view.length && last(next)?.id !== this.ctx.replyId)) {
      // The reply so far is untouched: only the context changes.
      this.host.setContext(withReply ? next.slice(0, -1) : next);
      this.view = undefined;
      return;
    }
    if (this.reducer.openBlocks().length || this.reducer.openModelCall() !== undefined) {
      throw new ConversationEditError(
        'The reply so far has blocks that are still streaming; edit it between steps (in onReasoning before calling next).',
      );
    }
    const tail = last(next);
    const isReply = tail !== undefined && tail.id === this.ctx.replyId && tail.role === 'assistant';
    this.host.setContext(isReply ? next.slice(0, -1) : next);
    this.reducer = this.newReducer(isReply ? tail : undefined);
    this.queued = this.queued.filter(
      (e) => e.type !== 'HINT_BLOCK' || e.hintId === undefined || this.reducer.hasHint(e.hintId),
    );
    this.view = undefined;
  }

  private newReducer(initial: Msg | undefined): ReplyReducer {
    const { agentName, replyId } = this.ctx;
    return createReplyReducer({ source: agentName, name: agentName, id: replyId, ...(initial ? { initial } : {}) });
  }
}

const NONE: AgentEvent[] = [];

function last<T>(list: readonly T[]): T | undefined {
  return list[list.length - 1];
}

/** Ids of tool calls without a result and of results without a call. */
function unpaired(messages: readonly Msg[]): Set<string> {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === 'tool_call') calls.add(b.id);
      else if (b.type === 'tool_result') results.add(b.toolCallId);
    }
  }
  const out = new Set<string>();
  for (const id of calls) if (!results.has(id)) out.add(id);
  for (const id of results) if (!calls.has(id)) out.add(id);
  return out;
}

function locate(messages: readonly Msg[], ref: BlockRef): [number, number] | undefined {
  if ('message' in ref) {
    const m = messages.findIndex((msg) => msg.id === ref.message);
    return m >= 0 && Number.isInteger(ref.index) && ref.index >= 0 && ref.index < messages[m]!.content.length
      ? [m, ref.index]
      : undefined;
  }
  const match = (b: ContentBlock): boolean =>
    'toolResult' in ref
      ? b.type === 'tool_result' && b.toolCallId === ref.toolResult
      : 'toolCall' in ref
        ? b.type === 'tool_call' && b.id === ref.toolCall
        : b.type === 'hint' && b.id === ref.hint;
  for (let m = messages.length - 1; m >= 0; m--) {
    const b = messages[m]!.content.findIndex(match);
    if (b >= 0) return [m, b];
  }
  return undefined;
}
