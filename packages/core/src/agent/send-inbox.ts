import type { Msg } from '../message/blocks.js';
import { createMsg } from '../message/msg.js';
import { msgSchema } from '../state/snapshot.js';
import { AgentUsageError } from './errors.js';

/**
 * The messages sent with `agent.send()` that have not joined a reply yet, in the order they were
 * sent. They are part of the agent's state (saved and restored with it), so a message sent
 * while a reply is interrupted or suspended waits for the next reply or the resume, in this
 * process or another one.
 */
export class SendInbox {
  private queued: readonly Msg[] = [];
  /** Ids of messages sent since the state was last loaded from or saved to the store. */
  private readonly unsaved = new Set<string>();

  /** The waiting messages, oldest first. */
  get messages(): readonly Msg[] {
    return this.queued;
  }

  get size(): number {
    return this.queued.length;
  }

  push(msg: Msg): void {
    this.queued = [...this.queued, msg];
    this.unsaved.add(msg.id);
  }

  /** Hands out every waiting message (they join the running reply) and empties the inbox. */
  take(): readonly Msg[] {
    const out = this.queued;
    if (!out.length) return out;
    this.queued = [];
    for (const msg of out) this.unsaved.delete(msg.id);
    return out;
  }

  /**
   * Takes the inbox of a stored state. Messages sent here and not saved yet are kept after the
   * stored ones when `keepUnsaved` (a newer state loaded from the store before a reply starts).
   */
  restore(stored: readonly Msg[] | undefined, keepUnsaved: boolean): void {
    const local = keepUnsaved ? this.queued.filter((m) => this.unsaved.has(m.id)) : [];
    const ids = new Set((stored ?? []).map((m) => m.id));
    this.queued = [...(stored ?? []), ...local.filter((m) => !ids.has(m.id))];
    if (!keepUnsaved) this.unsaved.clear();
  }

  /** A save holding `saved` succeeded: those messages are in the store now. */
  saved(saved: readonly Msg[] | undefined): void {
    for (const msg of saved ?? []) this.unsaved.delete(msg.id);
  }
}

/**
 * Checks what `agent.send()` was given: text, or a user message of text blocks (it joins a
 * running reply as a hint block, which carries text only). Throws an {@link AgentUsageError}
 * that says what to pass instead.
 */
export function sentMessage(message: unknown): Msg {
  if (typeof message === 'string') {
    if (!message.trim()) throw new AgentUsageError('send() needs a non-empty message.');
    return createMsg('user', message);
  }
  const parsed = msgSchema.safeParse(message);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AgentUsageError(
      `send() takes a string or a message (createMsg('user', text)); the message is invalid at "${issue.path.map(String).join('.') || '(root)'}": ${issue.message}`,
    );
  }
  const msg = parsed.data as Msg;
  if (msg.role !== 'user') throw new AgentUsageError(`send() takes a user message, got role "${msg.role}".`);
  const other = msg.content.find((b) => b.type !== 'text');
  if (other) {
    throw new AgentUsageError(
      `send() carries text only (it joins a running reply as a hint), but the message has a "${other.type}" block; ` +
        'pass media as the input of reply() instead.',
    );
  }
  if (!msg.content.some((b) => b.type === 'text' && b.text.trim()))
    throw new AgentUsageError('send() needs a message with text.');
  return msg;
}
