import { merge, type Observable, Observable as Obs, Subscription } from 'rxjs';
import type { AgentEvent, RuntimeContext } from '@rxscope/core';
import { type GuardrailCheck, type GuardrailStage, type NamedVerdict, runCheck } from './check.js';

/** Runs `checks` on `text` all at once: the first trip, or `undefined` once all passed. */
export function firstTrip(
  checks: readonly GuardrailCheck[],
  text: string,
  stage: GuardrailStage,
  ctx: RuntimeContext,
): Observable<NamedVerdict | undefined> {
  return new Obs<NamedVerdict | undefined>((sub) => {
    const abort = new AbortController();
    const context = { stage, ctx, signal: abort.signal };
    const asyncs: Observable<NamedVerdict>[] = [];
    for (const check of checks) {
      const v = runCheck(check, text, context);
      if (!('subscribe' in v)) {
        if (v.tripped) {
          sub.next(v);
          sub.complete();
          return () => abort.abort();
        }
      } else asyncs.push(v);
    }
    const inner = merge(...asyncs).subscribe({
      next: (v) => {
        if (!v.tripped) return;
        sub.next(v);
        sub.complete();
      },
      error: (e: unknown) => sub.error(e),
      complete: () => {
        sub.next(undefined);
        sub.complete();
      },
    });
    return () => {
      inner.unsubscribe();
      abort.abort();
    };
  });
}

/** How {@link guarded} watches a stream. */
export interface GuardOptions {
  readonly ctx: RuntimeContext;
  readonly checks: readonly GuardrailCheck[];
  readonly stage: GuardrailStage;
  /** Text checked beside the stream from the start (a parallel input check). */
  readonly beside?: {
    readonly text: string;
    readonly stage: GuardrailStage;
    readonly checks: readonly GuardrailCheck[];
  };
  /** The whole text to check once this event is in (`undefined`: no new text). */
  readonly textAt?: (event: AgentEvent) => string | undefined;
  /** Holds every event back until the stream completed and its text passed (`textOf`). */
  readonly hold?: (events: readonly AgentEvent[]) => string;
  /** What follows a trip (the event, then the reply's stop). */
  readonly onTrip: (verdict: NamedVerdict, stage: GuardrailStage) => Observable<AgentEvent>;
}

/**
 * The source with its guardrails: checks run beside it; a trip cuts it at once (nothing after
 * the trip is passed on; the source, its model request or tool included, is unsubscribed), emits
 * what `onTrip` returns and completes. Synchronous checks are decided before the event that
 * brought the text is passed on; an asynchronous check runs one at a time per check (the text
 * that came meanwhile is checked when it returns), and the stream completes only once every
 * check has answered the final text.
 */
export function guarded(source: Observable<AgentEvent>, o: GuardOptions): Observable<AgentEvent> {
  return new Obs<AgentEvent>((sub) => {
    const subs = new Subscription();
    const held: AgentEvent[] = [];
    let ended = false;
    let sourceDone = false;
    const running = new Set<GuardrailCheck>();
    const waiting = new Map<GuardrailCheck, string>();

    const trip = (v: NamedVerdict, stage: GuardrailStage) => {
      if (ended) return;
      ended = true;
      subs.unsubscribe();
      // (a new subscription: `subs` is closed, and the stop may unsubscribe this one at once)
      sub.add(o.onTrip(v, stage).subscribe(sub));
    };
    const fail = (e: unknown) => {
      if (ended) return;
      ended = true;
      subs.unsubscribe();
      sub.error(e);
    };
    /** One round of `checks` on `text`: a trip goes to `trip`, a pass to `passed`. */
    const round = (checks: readonly GuardrailCheck[], text: string, stage: GuardrailStage, passed: () => void) =>
      subs.add(
        firstTrip(checks, text, stage, o.ctx).subscribe({ next: (v) => (v ? trip(v, stage) : passed()), error: fail }),
      );
    const settle = () => {
      if (ended || !sourceDone || running.size > 0 || waiting.size > 0 || besideRunning) return;
      if (!o.hold) {
        ended = true;
        return sub.complete();
      }
      round(o.checks, o.hold(held), o.stage, () => {
        ended = true;
        for (const e of held) sub.next(e);
        sub.complete();
      });
    };
    const start = (check: GuardrailCheck, text: string) => {
      running.add(check);
      round([check], text, o.stage, () => {
        running.delete(check);
        const later = waiting.get(check);
        waiting.delete(check);
        if (later !== undefined) start(check, later);
        else settle();
      });
    };
    /** Checks `text`; true when a synchronous check tripped (the event must not pass). */
    const check = (text: string): boolean => {
      for (const c of o.checks) {
        if (running.has(c)) {
          waiting.set(c, text);
          continue;
        }
        start(c, text);
        if (ended) return true;
      }
      return false;
    };

    let besideRunning = o.beside !== undefined;
    if (o.beside)
      round(o.beside.checks, o.beside.text, o.beside.stage, () => {
        besideRunning = false;
        settle();
      });
    if (ended) return subs;
    subs.add(
      source.subscribe({
        next: (e) => {
          if (ended) return;
          if (o.hold) return void held.push(e);
          const text = o.textAt?.(e);
          if (text !== undefined && check(text)) return;
          if (!ended) sub.next(e);
        },
        error: fail,
        complete: () => {
          sourceDone = true;
          settle();
        },
      }),
    );
    return subs;
  });
}
