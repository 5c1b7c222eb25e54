/**
 * `GuardrailMiddleware`: checks that cancel. Checks look at the user's input (`input`), the
 * model's text (`output`), a tool's arguments (`toolInput`) and a tool's result (`toolOutput`),
 * and answer `{ tripped, reason }` as a value, a Promise or an Observable. A trip ends the reply
 * at once: a `CUSTOM guardrail_tripped {check, reason, stage}` event (for a UI), then
 * `REPLY_END {finishReason: 'stopped', stopReason: {code: 'guardrail', message}}`.
 *
 * `mode: 'parallel'` (default) keeps latency down: the input checks run beside the reply's
 * first model call, and a trip aborts that call (its HTTP request too); the output checks see
 * the text as it streams (the whole text so far, at every delta) and a trip cuts it: the open
 * block is closed and nothing after the trip reaches the consumer or the conversation. A
 * synchronous check (`denylist`, `maxLength`) cuts at the very delta that tripped it; an
 * asynchronous one (`moderation`) runs one call at a time and checks the newest text when it
 * returns, and the model call ends only once it has answered the final text. Text streamed
 * before an asynchronous trip has been seen. `mode: 'blocking'` checks the input before the
 * model is called and holds each model call's events back until its whole text passed. Tool
 * arguments are always checked before the tool runs, and a tool's result before anyone sees it.
 *
 * A check that throws, rejects or answers no verdict ends the reply `error` with a
 * `GuardrailCheckError` (code `guardrail_check_failed`) naming the check; wrapped in
 * `resilient()`, the middleware is skipped instead. Built-in checks: {@link denylist},
 * {@link maxLength}, {@link moderation} (an OpenAI-compatible `/v1/moderations` endpoint) and
 * {@link promptInjection} (a classifier call).
 *
 * @example
 * ```ts
 * const guard = new GuardrailMiddleware({
 *   input: [moderation({ apiKey: process.env.OPENAI_API_KEY }), promptInjection({ model: classifier })],
 *   output: [denylist(['internal use only']), maxLength(20_000)],
 *   toolInput: denylist([/rm\s+-rf/]),
 * });
 * const agent = new Agent({ model, tools, middlewares: [guard] });
 * agent.reply(question).subscribe((e) => {
 *   if (e.type === 'CUSTOM' && e.name === 'guardrail_tripped') showBanner(e.value);
 * });
 * ```
 *
 * @module
 */
import { concat, concatMap, defer, EMPTY, type Observable, of } from 'rxjs';
import {
  type ActingInput,
  type AgentEvent,
  type AgentHandle,
  type AgentInput,
  ContextToken,
  type Middleware,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  textOfMsg,
} from '@rxscope/core';
import { checkKeys, MiddlewareOptionError } from '../internal/option-error.js';
import { checkList, type GuardrailCheck, type GuardrailStage, type NamedVerdict } from './check.js';
import { firstTrip, guarded } from './guarded.js';

export { GuardrailCheckError } from './check.js';
export type { GuardrailCheck, GuardrailCheckContext, GuardrailStage, GuardrailVerdict } from './check.js';

/** One check or several. */
export type GuardrailChecks = GuardrailCheck | readonly GuardrailCheck[];

/**
 * Options of {@link GuardrailMiddleware}. At least one stage needs a check.
 *
 * @example
 * ```ts
 * const options: GuardrailOptions = { input: moderation(), output: denylist(['secret']), mode: 'parallel' };
 * ```
 */
export interface GuardrailOptions {
  /** Checks of the user's new messages (once per reply). */
  readonly input?: GuardrailChecks;
  /** Checks of the model's text (every model call of the agent). */
  readonly output?: GuardrailChecks;
  /** Checks of a tool call's arguments (JSON), before the tool runs. */
  readonly toolInput?: GuardrailChecks;
  /** Checks of a tool's result text, before the model or the consumer sees it. */
  readonly toolOutput?: GuardrailChecks;
  /** `'parallel'` (default): beside the model call, cutting it on a trip; `'blocking'`: before the model call, and model output held back until checked. */
  readonly mode?: 'parallel' | 'blocking';
}

/** The value of the `guardrail_tripped` event. */
export interface GuardrailTripped {
  readonly check: string;
  readonly reason: string;
  readonly stage: GuardrailStage;
}

/** The text of this reply's new messages, until the input checks ran. */
const INPUT = new ContextToken<string | undefined>('GuardrailMiddleware.input', () => undefined);

/** Guardrails that end a reply on a trip. See the module documentation. */
export class GuardrailMiddleware implements Middleware {
  private readonly checks: Readonly<Record<GuardrailStage, readonly GuardrailCheck[]>>;
  private readonly mode: 'parallel' | 'blocking';

  constructor(options: GuardrailOptions) {
    if (!options || typeof options !== 'object')
      throw new MiddlewareOptionError('GuardrailMiddleware needs an options object.');
    checkKeys('GuardrailMiddleware', options, ['input', 'output', 'toolInput', 'toolOutput', 'mode']);
    this.checks = {
      input: checkList('input', options.input),
      output: checkList('output', options.output),
      toolInput: checkList('toolInput', options.toolInput),
      toolOutput: checkList('toolOutput', options.toolOutput),
    };
    if (Object.values(this.checks).every((c) => c.length === 0))
      throw new MiddlewareOptionError('GuardrailMiddleware: give checks for input, output, toolInput or toolOutput.');
    const mode = options.mode ?? 'parallel';
    if (mode !== 'parallel' && mode !== 'blocking')
      throw new MiddlewareOptionError(
        `GuardrailMiddleware: mode must be 'parallel' or 'blocking', got ${JSON.stringify(mode)}.`,
      );
    this.mode = mode;
  }

  onAgent(_agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() => {
      const text = input.messages
        .filter((m) => m.role === 'user')
        .map(textOfMsg)
        .join('\n');
      if (this.checks.input.length > 0 && text) ctx.set(INPUT, text);
      return next(input);
    });
  }

  onReasoning(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    return defer(() => {
      const text = ctx.get(INPUT);
      ctx.set(INPUT, undefined);
      const onTrip = (v: NamedVerdict, stage: GuardrailStage) => this.tripped(ctx, v, stage);
      const own = (e: AgentEvent) => e.source === ctx.agentName;
      let said = '';
      const textAt = (e: AgentEvent) => (e.type === 'TEXT_BLOCK_DELTA' && own(e) ? (said += e.delta) : undefined);
      const hold = (events: readonly AgentEvent[]) =>
        events.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' && own(e) ? [e.delta] : [])).join('');
      const output = this.checks.output;
      if (text === undefined && output.length === 0) return next(input);
      if (this.mode === 'parallel') {
        const beside = text !== undefined ? { text, stage: 'input' as const, checks: this.checks.input } : undefined;
        return guarded(next(input), {
          ctx,
          checks: output,
          stage: 'output',
          textAt,
          onTrip,
          ...(beside && { beside }),
        });
      }
      const run = () =>
        output.length > 0 ? guarded(next(input), { ctx, checks: output, stage: 'output', hold, onTrip }) : next(input);
      if (text === undefined) return run();
      return firstTrip(this.checks.input, text, 'input', ctx).pipe(concatMap((v) => (v ? onTrip(v, 'input') : run())));
    });
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    const onTrip = (v: NamedVerdict, stage: GuardrailStage) => this.tripped(ctx, v, stage);
    const run = () =>
      this.checks.toolOutput.length > 0
        ? guarded(next(input), { ctx, checks: this.checks.toolOutput, stage: 'toolOutput', hold: resultText, onTrip })
        : next(input);
    if (this.checks.toolInput.length === 0) return run();
    return defer(() => firstTrip(this.checks.toolInput, JSON.stringify(input.input) ?? '', 'toolInput', ctx)).pipe(
      concatMap((v) => (v ? onTrip(v, 'toolInput') : run())),
    );
  }

  /** What a trip ends with: the `guardrail_tripped` event, then the reply's stop. */
  private tripped(ctx: RuntimeContext, v: NamedVerdict, stage: GuardrailStage): Observable<AgentEvent> {
    const reason = v.reason ?? 'tripped';
    const value: GuardrailTripped = { check: v.check, reason, stage };
    return concat(
      of(ctx.event('CUSTOM', { name: 'guardrail_tripped', value })),
      defer(() => {
        ctx.stop({ code: 'guardrail', message: `Guardrail "${v.check}" tripped on the ${stage}: ${reason}` });
        return EMPTY;
      }),
    );
  }
}

/** The text of a tool's result (from its `TOOL_RESULT_END`). */
function resultText(events: readonly AgentEvent[]): string {
  return events
    .flatMap((e) => (e.type === 'TOOL_RESULT_END' ? e.output : []))
    .map((b) => (b.type === 'text' ? b.text : ''))
    .join('');
}
