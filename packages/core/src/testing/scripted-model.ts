import {
  asapScheduler,
  concat,
  defer,
  from,
  type Observable,
  type SchedulerLike,
  throwError,
  timer,
  concatMap,
  map,
  EMPTY,
} from 'rxjs';
import type { ModelEvent } from '../event/events.js';
import type { ChatModel, ModelRequest } from '../model/chat-model.js';
import { scriptedTurnEvents, type ScriptedTurn } from './scripted-turn.js';

/** A turn, or a function computing it from the request (and the 0-based call index). */
export type TurnSource = ScriptedTurn | ((request: ModelRequest, index: number) => ScriptedTurn);

/** Options of {@link ScriptedChatModel}. */
export interface ScriptedChatModelOptions {
  readonly modelName?: string;
  /** Delay before each event, in ms (default 0: everything synchronous). */
  readonly delayMs?: number;
  /** Scheduler of the delays (a `TestScheduler` in marble tests). */
  readonly scheduler?: SchedulerLike;
  /** Declare native structured output (`request.responseFormat` is recorded; the turns give the JSON). Default false. */
  readonly supportsResponseFormat?: boolean;
}

/**
 * An in-memory {@link ChatModel} that plays scripted turns in order and records every request.
 *
 * @example
 * ```ts
 * const model = new ScriptedChatModel([
 *   { toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] },
 *   { text: ['The sum ', 'is 5.'] },
 * ]);
 * const agent = new Agent({ model, tools: [add] });
 * await agent.call('2 + 3?');
 * expect(model.requests).toHaveLength(2);
 * ```
 */
export class ScriptedChatModel implements ChatModel {
  readonly modelName: string;
  readonly provider = 'scripted';
  readonly supportsResponseFormat: boolean;
  /** Every request received, in order (its `signal` tells whether it was aborted). */
  readonly requests: ModelRequest[] = [];
  private readonly turns: readonly TurnSource[] | ((request: ModelRequest, index: number) => ScriptedTurn);

  constructor(
    turns: readonly TurnSource[] | ((request: ModelRequest, index: number) => ScriptedTurn),
    private readonly options: ScriptedChatModelOptions = {},
  ) {
    this.turns = turns;
    this.modelName = options.modelName ?? 'scripted-model';
    this.supportsResponseFormat = options.supportsResponseFormat ?? false;
  }

  stream(request: ModelRequest): Observable<ModelEvent> {
    return defer(() => {
      const index = this.requests.length;
      this.requests.push(request);
      const source = typeof this.turns === 'function' ? this.turns : this.turns[index];
      if (source === undefined) {
        return throwError(
          () =>
            new Error(
              `ScriptedChatModel: no scripted turn for call #${index + 1} (script has ${(this.turns as readonly TurnSource[]).length}).`,
            ),
        );
      }
      const turn = typeof source === 'function' ? source(request, index) : source;
      const events = scriptedTurnEvents(turn, this.modelName);
      const delay = this.options.delayMs ?? 0;
      const body =
        delay > 0
          ? from(events).pipe(
              concatMap((e) => timer(delay, this.options.scheduler ?? asapScheduler).pipe(map(() => e))),
            )
          : from(events);
      const error = turn.error;
      return concat(body, error ? throwError(() => error) : EMPTY);
    });
  }
}
