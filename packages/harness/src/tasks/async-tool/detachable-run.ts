import {
  defer,
  from,
  isObservable,
  Observable,
  of,
  type ObservableInput,
  ReplaySubject,
  type Subscription,
} from 'rxjs';
import type { AgentEvent, Tool, ToolContext, ToolOutput, ToolProgress } from '@rxscope/core';

/**
 * One execution of a tool that starts inside a reply's acting chain and can be let go of: while
 * attached, its values, progress and forwarded events go to the call's tool context and an
 * unsubscribe cancels it; once detached, it runs on by itself (its own abort signal, not the
 * reply's) and `done` settles with its whole result as text.
 */
export class DetachableRun {
  /** The whole result as text when the tool completes; rejects with its failure. */
  readonly done: Promise<string>;
  private readonly controller = new AbortController();
  /** Every value so far, replayed to the acting chain (which may subscribe after a synchronous tool ended). */
  private readonly values = new ReplaySubject<ToolOutput>(Infinity);
  private readonly subscription: Subscription;
  private detached = false;
  private ended = false;

  constructor(tool: Tool, args: unknown, callCtx: ToolContext) {
    const collected: ToolOutput[] = [];
    let settle!: { resolve: (text: string) => void; reject: (e: unknown) => void };
    this.done = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
    // Observed by the background task once detached; a failure of an attached run is the call's error result.
    this.done.catch(() => undefined);
    const ctx: ToolContext = {
      signal: this.controller.signal,
      callId: callCtx.callId,
      idempotencyKey: callCtx.idempotencyKey,
      agentName: callCtx.agentName,
      replyId: callCtx.replyId,
      emit: (progress: string | ToolProgress) => {
        if (!this.detached) callCtx.emit(progress);
      },
      forward: (event: AgentEvent) => {
        if (!this.detached) callCtx.forward(event);
      },
    };
    this.subscription = defer(() => valuesOf(tool.execute!(args, ctx))).subscribe({
      next: (value) => {
        collected.push(value);
        this.values.next(value);
      },
      error: (error: unknown) => {
        this.ended = true;
        const failure = error instanceof Error ? error : new Error(String(error));
        this.values.error(failure);
        settle.reject(failure);
      },
      complete: () => {
        this.ended = true;
        this.values.complete();
        settle.resolve(resultText(collected));
      },
    });
  }

  /** True once the tool completed or failed. */
  get finished(): boolean {
    return this.ended;
  }

  /** The values for the acting chain; unsubscribing before `detach()` cancels the run. */
  observe(): Observable<ToolOutput> {
    return new Observable<ToolOutput>((subscriber) => {
      const inner = this.values.subscribe(subscriber);
      return () => {
        inner.unsubscribe();
        if (!this.detached) this.cancel('the tool call was cancelled');
      };
    });
  }

  /** From now on the run belongs to nobody's reply: it goes on until it ends or `cancel()`. */
  detach(): void {
    this.detached = true;
  }

  cancel(reason: string): void {
    if (this.ended) return;
    this.controller.abort(new Error(reason));
    this.subscription.unsubscribe();
  }
}

/** What `execute` returned, as values (a string, an array or a plain value is one value). */
function valuesOf(out: ObservableInput<ToolOutput> | ToolOutput): Observable<ToolOutput> {
  if (typeof out !== 'object' || out === null || Array.isArray(out)) return of(out);
  const thenable = typeof (out as { then?: unknown }).then === 'function';
  if (isObservable(out) || thenable || Symbol.iterator in out || Symbol.asyncIterator in out)
    return from(out as ObservableInput<ToolOutput>);
  return of(out);
}

/** The text of a tool's values: strings as they are, content blocks by their text, other values as JSON. */
function resultText(values: readonly ToolOutput[]): string {
  return values
    .map((v) => {
      if (typeof v === 'string') return v;
      const blocks = Array.isArray(v) ? v : [v];
      if (blocks.length && blocks.every(isContentBlock)) {
        return blocks
          .map((b: { type: string; text?: string; mediaType?: string }) =>
            b.type === 'text' ? b.text : `[${b.mediaType ?? 'data'}]`,
          )
          .join('');
      }
      return JSON.stringify(v);
    })
    .join('');
}

function isContentBlock(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const b = v as { type?: unknown; text?: unknown; mediaType?: unknown };
  return (b.type === 'text' && typeof b.text === 'string') || (b.type === 'data' && typeof b.mediaType === 'string');
}
