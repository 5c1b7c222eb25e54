/**
 * `RecordingMiddleware` and `ReplayChatModel`: record a reply against a real model once, then
 * replay it offline as a deterministic regression test — the same model answers, no server, no
 * key, no cost.
 *
 * The middleware records every model call of a reply (the request without ids and times, and the
 * model's own events, or its failure) and the reply's events (made stable, see
 * `stableEvents`), and hands the reply's {@link Cassette} to `save` when the reply ends (the
 * reply ends only once it is saved). `cassetteFile(path)` from
 * `@rxscope/middleware-builtin/node` saves the replies of a run into one JSON file and
 * `loadCassette(path)` reads it back.
 *
 * Put it last in `middlewares`: it records the model calls that reach the model, so a retry or
 * fallback middleware outside it is replayed too (each attempt is a recorded call).
 *
 * @example
 * ```ts
 * // once, against the real model:
 * const agent = new Agent({ model: realModel, tools, middlewares: [new RecordingMiddleware({ save: cassetteFile('fixtures/refund.json') })] });
 * await agent.call('Can I get a refund?');
 * // in the test, offline:
 * const cassette = await loadCassette('fixtures/refund.json');
 * const replayed = new Agent({ model: new ReplayChatModel(cassette), tools });
 * expect(stableEvents(await lastValueFrom(replayed.reply('Can I get a refund?').pipe(toArray())))).toEqual(cassette.replies[0].events);
 * ```
 *
 * @module
 */
import { concatMap, defer, from, map, Observable, of, tap } from 'rxjs';
import {
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  type ChatModel,
  ContextToken,
  type Middleware,
  type ModelCallInput,
  type ModelEvent,
  type Next,
  type RuntimeContext,
  toErrorInfo,
  checkOptionKeys,
  optionKeys,
  OptionsError,
} from '@rxscope/core';
import { CASSETTE_VERSION, type Cassette, type RecordedModelCall, recordRequest, stableEvents } from './cassette.js';

/** Options of {@link RecordingMiddleware}. */
export interface RecordingOptions {
  /** Receives each finished reply's cassette; a returned promise is awaited before the reply ends, a rejection fails it. */
  readonly save: (cassette: Cassette) => void | Promise<void>;
}

/** What one reply has recorded so far (in its context). */
interface Tape {
  readonly modelCalls: RecordedModelCall[];
}

const TAPE = new ContextToken<Tape | undefined>('RecordingMiddleware.tape', () => undefined);

// Every option, typed against RecordingOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<RecordingOptions>({
  save: true,
});

/**
 * Records replies into cassettes for offline replay. See the module documentation.
 */
export class RecordingMiddleware implements Middleware {
  readonly key = 'RecordingMiddleware';
  private readonly save: RecordingOptions['save'];

  constructor(options: RecordingOptions) {
    checkOptionKeys('RecordingMiddleware', options, OPTION_KEYS);
    if (typeof options?.save !== 'function') {
      throw new OptionsError(
        'invalid_option',
        'RecordingMiddleware.save',
        'RecordingMiddleware: save must be a function receiving each cassette, e.g. cassetteFile(path).',
      );
    }
    this.save = options.save;
  }

  onAgent(_agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() => {
      const tape: Tape = { modelCalls: [] };
      ctx.set(TAPE, tape);
      const events: AgentEvent[] = [];
      return next(input).pipe(
        tap((e) => events.push(e)),
        concatMap((e) => {
          if (e.type !== 'REPLY_END' || e.source !== ctx.agentName) return of(e);
          const cassette: Cassette = {
            version: CASSETTE_VERSION,
            modelCalls: tape.modelCalls,
            replies: [{ agent: ctx.agentName, events: stableEvents(events) }],
          };
          return from(Promise.resolve(this.save(cassette))).pipe(map(() => e));
        }),
      );
    });
  }

  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    const tape = ctx.get(TAPE);
    return tape ? next({ ...input, model: recording(input.model, tape) }) : next(input);
  }
}

/** `model`, with every call it answers written to `tape`. */
function recording(model: ChatModel, tape: Tape): ChatModel {
  return {
    modelName: model.modelName,
    provider: model.provider,
    ...(model.describeRequest
      ? {
          describeRequest: (request: Parameters<NonNullable<ChatModel['describeRequest']>>[0]) =>
            model.describeRequest!(request),
        }
      : {}),
    stream: (request) =>
      new Observable<ModelEvent>((subscriber) => {
        const events: ModelEvent[] = [];
        const record = (error?: unknown) =>
          tape.modelCalls.push({
            model: model.modelName,
            provider: model.provider,
            ...(model.describeRequest ? { info: model.describeRequest(request) } : {}),
            request: recordRequest(request),
            events,
            ...(error !== undefined ? { error: toErrorInfo(error) } : {}),
          });
        return model.stream(request).subscribe({
          next: (e) => {
            events.push(e);
            subscriber.next(e);
          },
          error: (err: unknown) => {
            record(err);
            subscriber.error(err);
          },
          complete: () => {
            record();
            subscriber.complete();
          },
        });
      }),
  };
}
