import { DestroyRef, Injectable, computed, effect, inject, signal, untracked } from '@angular/core';
import { injectAgentChat } from '@rxscope/angular';
import type { ConfirmResult } from '@rxscope/core';
import { FINAL_STATUSES, type Turn, applyEvent, cancelTurn, failTurn, newTurn } from './turn';

/**
 * The conversation as signals, on `injectAgentChat()` from `@rxscope/angular`: the chat sends,
 * resumes after confirmations and stops replies (stopping unsubscribes, which aborts the request,
 * and the server cancels the reply). The transcript shows more than the chat's own messages —
 * text and tool calls interleaved, the agent's task list, the spoken reply's audio — so the store
 * folds the chat's raw `events$` into {@link Turn}s with the pure `applyEvent`.
 */
@Injectable({ providedIn: 'root' })
export class ChatStore {
  readonly chat = injectAgentChat();
  private readonly turnList = signal<readonly Turn[]>([]);
  private nextTurn = 0;

  /** Every exchange so far, the latest last. */
  readonly turns = this.turnList.asReadonly();

  /** The turn still in progress (streaming or waiting for a confirmation), if any. */
  readonly active = computed(() => {
    const last = this.turns().at(-1);
    return last && !FINAL_STATUSES.has(last.status) ? last : undefined;
  });

  /** A reply is streaming (cancel is possible, sending is not). */
  readonly busy = computed(() => this.chat.status() === 'streaming');

  /** The turn whose tool calls wait for the user's answer. */
  readonly awaiting = computed(() => {
    const turn = this.active();
    return turn && this.chat.pendingConfirmations().length > 0 ? turn : undefined;
  });

  constructor() {
    // events$ never errors: a failed reply shows as chat.error() (the effect below).
    // eslint-disable-next-line rxjs-x/no-ignored-error
    const subscription = this.chat.events$.subscribe((event) => this.updateLast((turn) => applyEvent(turn, event)));
    inject(DestroyRef).onDestroy(() => subscription.unsubscribe());
    // A reply that failed (the server refused it, the stream broke) ends its turn with the message.
    effect(() => {
      const error = this.chat.error();
      if (error) untracked(() => this.updateLast((turn) => failTurn(turn, error.message)));
    });
  }

  send(text: string): void {
    if (this.active()) return;
    this.turnList.update((turns) => [...turns, newTurn(`t${++this.nextTurn}`, text)]);
    this.chat.send(text);
  }

  /** Answers every pending call of the awaiting turn; once all are answered, the reply resumes. */
  confirm(results: readonly ConfirmResult[]): void {
    this.updateLast((turn) => ({ ...turn, pending: [], status: 'streaming' }));
    for (const r of results) {
      if (!r.confirmed) this.chat.reject(r.toolCallId, r.reason);
      else if (r.input !== undefined) this.chat.edit(r.toolCallId, r.input);
      else this.chat.confirm(r.toolCallId);
    }
  }

  /** Stops the active turn: the chat unsubscribes from its reply, which cancels it on the server. */
  cancel(): void {
    if (!this.active()) return;
    this.chat.stop();
    this.updateLast(cancelTurn);
  }

  private updateLast(change: (turn: Turn) => Turn): void {
    this.turnList.update((turns) => {
      const last = turns.at(-1);
      return last ? [...turns.slice(0, -1), change(last)] : turns;
    });
  }
}
