import { Injectable, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import type { AgentEvent, ConfirmResult } from '@rxscope/core';
import { type Observable, Subject, catchError, concat, filter, map, mergeMap, of, scan, takeUntil } from 'rxjs';
import { AgentSession } from '../agent/agent-session';
import { FINAL_STATUSES, type Turn, applyEvent, cancelTurn, failTurn, newTurn } from './turn';

/** What the user asked for. */
type Intent =
  | { readonly kind: 'send'; readonly turnId: string; readonly text: string }
  | {
      readonly kind: 'confirm';
      readonly turnId: string;
      readonly replyId: string;
      readonly results: readonly ConfirmResult[];
    }
  | { readonly kind: 'cancel'; readonly turnId: string };

/** What happened to a turn. */
type Change =
  | { readonly kind: 'started'; readonly turnId: string; readonly text: string }
  | { readonly kind: 'answered'; readonly turnId: string }
  | { readonly kind: 'event'; readonly turnId: string; readonly event: AgentEvent }
  | { readonly kind: 'cancelled'; readonly turnId: string }
  | { readonly kind: 'failed'; readonly turnId: string; readonly message: string };

/**
 * The conversation as signals. The user's intents become reply streams from the
 * {@link AgentSession}; their events are folded into {@link Turn}s with `scan`, and `toSignal`
 * turns the result into the `turns` signal the components read. Cancelling a turn ends its
 * reply stream with `takeUntil` — an unsubscribe, which the session turns into a cancel on the
 * server.
 */
@Injectable({ providedIn: 'root' })
export class ChatStore {
  private readonly session = inject(AgentSession);
  private readonly intents = new Subject<Intent>();
  private nextTurn = 0;

  readonly connection = this.session.connection;

  /** Every exchange so far, the latest last. */
  readonly turns = toSignal(
    this.intents.pipe(
      mergeMap((intent) => this.changes(intent)),
      scan(reduce, [] as readonly Turn[]),
    ),
    { initialValue: [] as readonly Turn[] },
  );

  /** The turn still in progress (streaming or waiting for a confirmation), if any. */
  readonly active = computed(() => {
    const last = this.turns().at(-1);
    return last && !FINAL_STATUSES.has(last.status) ? last : undefined;
  });

  /** A reply is streaming (cancel is possible, sending is not). */
  readonly busy = computed(() => {
    const status = this.active()?.status;
    return status === 'sending' || status === 'streaming';
  });

  /** The turn whose tool calls wait for the user's answer. */
  readonly awaiting = computed(() => {
    const turn = this.active();
    return turn && turn.pending.length > 0 ? turn : undefined;
  });

  send(text: string): void {
    if (this.active()) return;
    this.intents.next({ kind: 'send', turnId: `t${++this.nextTurn}`, text });
  }

  /** Answers every pending call of the awaiting turn; the reply resumes. */
  confirm(results: readonly ConfirmResult[]): void {
    const turn = this.awaiting();
    if (turn?.replyId) this.intents.next({ kind: 'confirm', turnId: turn.id, replyId: turn.replyId, results });
  }

  /** Stops the active turn: unsubscribes from its reply, which cancels it on the server. */
  cancel(): void {
    const turn = this.active();
    if (turn) this.intents.next({ kind: 'cancel', turnId: turn.id });
  }

  private changes(intent: Intent): Observable<Change> {
    const { turnId } = intent;
    switch (intent.kind) {
      case 'send':
        return concat(
          of<Change>({ kind: 'started', turnId, text: intent.text }),
          this.follow(turnId, this.session.reply(intent.text)),
        );
      case 'confirm':
        return concat(
          of<Change>({ kind: 'answered', turnId }),
          this.follow(turnId, this.session.resume(intent.replyId, intent.results)),
        );
      case 'cancel':
        return of<Change>({ kind: 'cancelled', turnId });
    }
  }

  /** A reply's events as changes of the turn, until it ends or the turn is cancelled. */
  private follow(turnId: string, events$: Observable<AgentEvent>): Observable<Change> {
    const cancelled$ = this.intents.pipe(filter((i) => i.kind === 'cancel' && i.turnId === turnId));
    return events$.pipe(
      map((event): Change => ({ kind: 'event', turnId, event })),
      catchError((err: unknown) => of<Change>({ kind: 'failed', turnId, message: messageOf(err) })),
      takeUntil(cancelled$),
    );
  }
}

function reduce(turns: readonly Turn[], change: Change): readonly Turn[] {
  if (change.kind === 'started') return [...turns, newTurn(change.turnId, change.text)];
  return turns.map((turn) => {
    if (turn.id !== change.turnId) return turn;
    switch (change.kind) {
      case 'answered':
        return { ...turn, pending: [], status: 'streaming' };
      case 'event':
        return applyEvent(turn, change.event);
      case 'cancelled':
        return cancelTurn(turn);
      case 'failed':
        return failTurn(turn, change.message);
    }
  });
}

/** The message of an HTTP error (the service answers `{error: {message}}`) or a stream error. */
function messageOf(err: unknown): string {
  const e = err as { message?: unknown; error?: { error?: { message?: unknown } } } | null;
  const fromBody = e?.error?.error?.message;
  if (typeof fromBody === 'string') return fromBody;
  return typeof e?.message === 'string' ? e.message : String(err);
}
