import { type Context, context, diag, type Logger, type Tracer } from '@opentelemetry/api';
import type { AgentEvent } from '@rxscope/core';
import { Observable } from 'rxjs';

/** How a traced phase ended: completed, failed (error notification), or cut off by unsubscribe. */
export type Outcome =
  { readonly kind: 'complete' } | { readonly kind: 'error'; readonly error: unknown } | { readonly kind: 'cancelled' };

/** The tracing of one reply, shared by its hooks through the reply's context. */
export interface ReplyTrace {
  readonly tracer: Tracer;
  /** `gen_ai.conversation.id`: the session id the application gave (none for a generated one). */
  readonly conversationId: string | undefined;
  /** Where failures go, as `gen_ai.client.operation.exception` log events. */
  readonly logger: Logger;
  /** The context with the reply span: the parent of chat and execute_tool spans. */
  readonly context: Context;
  /** False when the SDK did not sample the reply: spans are not recorded, the context is only propagated. */
  readonly recording: boolean;
  /** Tool calls that ran through `onActing` (the reply span notes the others: denied, invalid, external). */
  readonly executed: Set<string>;
  /** Calls this reply resumes (they waited for a person or an executor): their `execute_tool` spans start at the suspension. */
  readonly paused: Map<string, PausedCall>;
}

/** A tool call a suspended reply waits on, kept with the agent's state (epoch ms `at`). */
export interface PausedCall {
  readonly id: string;
  readonly name: string;
  readonly kind: 'confirm' | 'external';
  readonly at: number;
}

/** One run of a traced phase: the span's context, what to do with each event, and how to end. */
export interface SpanRun {
  /** The OTel context that is active while the phase is subscribed (its span as the active span). */
  readonly context: Context;
  event(e: AgentEvent): void;
  /** Called exactly once, at the phase's last notification or at unsubscribe. */
  end(outcome: Outcome): void;
}

const COMPLETE: Outcome = { kind: 'complete' };
const CANCELLED: Outcome = { kind: 'cancelled' };

/**
 * Runs `source` as one traced phase. Each subscription calls `open()` (which starts the span),
 * subscribes `source()` inside `context.with(run.context, ...)` so that whatever the inner layers
 * start synchronously — and, with an AsyncLocalStorage context manager, the async work they
 * continue — sees the span as active, shows every event to `run.event`, and ends the run at the
 * last notification: on complete, on error (before passing it on), or at unsubscribe (after the
 * inner layers were torn down).
 */
export function traced(open: () => SpanRun, source: () => Observable<AgentEvent>): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    let run: SpanRun;
    try {
      run = open();
    } catch (err) {
      diag.error('rxscope tracing: starting a span failed', err);
      return source().subscribe(subscriber);
    }
    let ended = false;
    const end = (outcome: Outcome): void => {
      if (ended) return;
      ended = true;
      try {
        run.end(outcome);
      } catch (err) {
        diag.error('rxscope tracing: ending a span failed', err); // telemetry never breaks a reply
      }
    };
    const subscription = context.with(run.context, () =>
      source().subscribe({
        next: (e) => {
          try {
            run.event(e);
          } catch (err) {
            diag.error('rxscope tracing: recording an event failed', err);
          }
          subscriber.next(e);
        },
        error: (error: unknown) => {
          end({ kind: 'error', error });
          subscriber.error(error);
        },
        complete: () => {
          end(COMPLETE);
          subscriber.complete();
        },
      }),
    );
    return () => {
      subscription.unsubscribe();
      end(CANCELLED);
    };
  });
}

/**
 * `source` subscribed with `active` as the active OTel context, and nothing else: the
 * subscriber is handed to `source` as is, so events reach it without an extra step.
 */
export function withContext(source: Observable<AgentEvent>, active: Context): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => context.with(active, () => source.subscribe(subscriber)));
}
