/**
 * docs/middleware.md, "Cut it short: close what is open": the SilenceGuard example as written in
 * the guide, checked for what its reader relies on — the cut call ends well formed, the request is
 * cancelled, and the reply ends with the guard's error.
 */
import { catchError, concat, from, lastValueFrom, type Observable, tap, throwError, timeout, toArray } from 'rxjs';
import {
  Agent,
  type AgentEvent,
  closeOpenStream,
  type Middleware,
  type ModelCallInput,
  ModelError,
  type Next,
  OpenStream,
  type RuntimeContext,
  toErrorInfo,
} from '../index.js';
import { assertConsistentConversation, assertReplyGrammar, ModelTestingController } from '../testing/index.js';

/** Cuts a model call that goes silent for `ms`, ending it well formed as a retryable failure. */
export class SilenceGuard implements Middleware {
  readonly key = 'silence-guard';
  constructor(private readonly ms: number) {}

  onModelCall(_agent: Agent, ctx: RuntimeContext, input: ModelCallInput, next: Next<ModelCallInput>): Observable<AgentEvent> {
    const open = new OpenStream();
    const silent = () => new ModelError(`the model sent nothing for ${this.ms} ms`, { code: 'timeout', retryable: true });
    return next(input).pipe(
      timeout({ each: this.ms, with: () => throwError(() => silent()) }),
      tap((e) => open.apply(e)),
      catchError((err: unknown) => {
        const why = toErrorInfo(err).message;
        const closing = closeOpenStream(ctx, open, { status: 'error', why, error: toErrorInfo(err), answerCalls: false });
        return concat(from(closing), throwError(() => err as Error));
      }),
    );
  }
}

describe('middleware guide: SilenceGuard', () => {
  it('ends a stalled model call well formed, cancels the request and fails the reply with the guard error', async () => {
    const controller = new ModelTestingController();
    const agent = new Agent({ name: 'support', model: controller.model, middlewares: [new SilenceGuard(30)] });
    const done = lastValueFrom(agent.reply('hi').pipe(toArray()));
    await new Promise((r) => setTimeout(r, 5));
    const call = controller.expectOne('hi').streamText('Hel');
    const events = await done;
    const end = assertReplyGrammar(events);
    expect(end).toMatchObject({ finishReason: 'error', error: { code: 'timeout' } });
    const modelEnd = events.find((e) => e.type === 'MODEL_CALL_END');
    expect(modelEnd).toMatchObject({ finishReason: 'error', error: { message: 'the model sent nothing for 30 ms' } });
    expect(call.cancelled).toBe(true);
    assertConsistentConversation(agent.context);
    expect(agent.context.at(-1)?.content).toEqual([{ type: 'text', text: 'Hel' }]);
  });
});
