import { HttpClient } from '@angular/common/http';
import { DestroyRef, Injectable, InjectionToken, inject, signal } from '@angular/core';
import { toObservable } from '@angular/core/rxjs-interop';
import { type AgentEvent, type ConfirmResult, fromAgentEventStream } from '@rxscope/core';
import { type Observable, Subject, connectable, first, map, shareReplay, switchMap, take, tap } from 'rxjs';
import { cancelOnUnsubscribe } from './cancel-on-unsubscribe';
import { eventsOfReply } from './events-of-reply';

/** Base URL of the node-service API (`/api` when the service serves this app). */
export const AGENT_API_URL = new InjectionToken<string>('AGENT_API_URL', { factory: () => '/api' });

/** The session stream's connection: opening (or reopening after a network failure), receiving, or given up. */
export type ConnectionState = 'connecting' | 'live' | 'failed';

interface ReplyStarted {
  readonly replyId: string;
}

/**
 * One agent session of the node-service, as Observables.
 *
 * - The session is created on first use (`POST /api/sessions`) and its event stream
 *   (`GET /api/sessions/:id/events`, read with `fromAgentEventStream`) is connected once for the
 *   service's lifetime, reconnecting with `Last-Event-ID` after a network failure.
 * - {@link reply} and {@link resume} are cold, like `agent.reply()`: subscribing starts the reply
 *   (a POST), the stream carries that reply's events up to its `REPLY_END`, and unsubscribing
 *   before the end cancels the reply on the server (`POST /api/sessions/:id/cancel`).
 */
@Injectable({ providedIn: 'root' })
export class AgentSession {
  private readonly http = inject(HttpClient);
  private readonly api = inject(AGENT_API_URL);
  private readonly state = signal<ConnectionState>('connecting');

  /** Whether the session's event stream is open. */
  readonly connection = this.state.asReadonly();

  /** The session id (one `POST /api/sessions`, shared). */
  readonly sessionId$: Observable<string> = this.http.post<{ sessionId: string }>(`${this.api}/sessions`, null).pipe(
    map((r) => r.sessionId),
    shareReplay({ bufferSize: 1, refCount: false }), // one POST for the whole app, kept after the first subscriber leaves
  );

  /** `fetch` for the event stream that reports when each (re)connection opens. */
  private readonly watchedFetch: typeof fetch = async (input, init) => {
    this.state.set('connecting');
    const response = await fetch(input, init);
    if (response.ok) this.state.set('live');
    return response;
  };

  /** Every event of the session, from one shared SSE connection. */
  private readonly events$ = connectable(
    this.sessionId$.pipe(
      switchMap((id) =>
        fromAgentEventStream(`${this.sessionUrl(id)}/events`, { reconnect: true, fetch: this.watchedFetch }),
      ),
      tap({ error: () => this.state.set('failed') }),
    ),
    { connector: () => new Subject<AgentEvent>(), resetOnDisconnect: false },
  );

  /**
   * Emits once the stream is live (a reply started after that cannot miss its first events) or
   * has failed (then subscribing to `events$` fails at once with the stream's error).
   */
  private readonly opened$ = toObservable(this.state).pipe(first((s) => s !== 'connecting'));

  constructor() {
    const connection = this.events$.connect();
    inject(DestroyRef).onDestroy(() => connection.unsubscribe());
  }

  /** Sends a message; the events of the reply it starts. Unsubscribe to cancel the reply. */
  reply(text: string): Observable<AgentEvent> {
    return this.replyEvents((id) => this.http.post<ReplyStarted>(`${this.sessionUrl(id)}/messages`, { text }));
  }

  /** Answers a `REQUIRE_USER_CONFIRM`; the events of the resumed reply (same `replyId`). Unsubscribe to cancel it. */
  resume(replyId: string, results: readonly ConfirmResult[]): Observable<AgentEvent> {
    return this.replyEvents((id) =>
      this.http.post<ReplyStarted>(`${this.sessionUrl(id)}/confirmations`, { replyId, results }),
    );
  }

  private replyEvents(start: (sessionId: string) => Observable<ReplyStarted>): Observable<AgentEvent> {
    return this.sessionId$.pipe(
      take(1),
      switchMap((id) =>
        this.opened$.pipe(
          switchMap(() => eventsOfReply(this.events$, start(id).pipe(map((r) => r.replyId)))),
          cancelOnUnsubscribe(
            () => this.cancel(id),
            (e) => e.type === 'REPLY_END',
          ),
        ),
      ),
    );
  }

  /** Tells the service to stop the session's running reply (fire and forget: the reply's subscriber is gone). */
  private cancel(sessionId: string): void {
    this.http.post<{ cancelled: boolean }>(`${this.sessionUrl(sessionId)}/cancel`, null).subscribe({
      error: (err: unknown) => console.error('Cancelling the reply failed', err),
    });
  }

  private sessionUrl(sessionId: string): string {
    return `${this.api}/sessions/${encodeURIComponent(sessionId)}`;
  }
}
