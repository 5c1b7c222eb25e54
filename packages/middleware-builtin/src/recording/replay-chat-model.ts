import { Observable } from 'rxjs';
import {
  type ChatModel,
  checkOptionKeys,
  type ModelEvent,
  ModelError,
  type ModelRequest,
  optionKeys,
} from '@rxscope/core';
import {
  type Cassette,
  checkCassette,
  type ModelRequestInfo,
  firstDifference,
  type RecordedModelRequest,
  recordRequest,
} from './cassette.js';

/**
 * Raised (as the model's failure) when the request of a replayed call differs from the recorded
 * one, or when the cassette has no call left. Not retryable: the reply ends with
 * `REPLY_END {finishReason: 'error'}` and `agent.call()` rejects with this message.
 *
 * @example
 * ```ts
 * await expect(agent.call('Something else')).rejects.toThrow(/does not match the recording/);
 * ```
 */
export class CassetteMismatchError extends ModelError {
  constructor(message: string) {
    super(message, { retryable: false, code: 'cassette_mismatch' });
  }
}

/**
 * Options of {@link ReplayChatModel}.
 *
 * @example
 * ```ts
 * // The system prompt carries today's date: leave it out of the comparison.
 * new ReplayChatModel(cassette, { normalize: (r) => ({ ...r, messages: r.messages.filter((m) => m.role !== 'system') }) });
 * ```
 */
export interface ReplayChatModelOptions {
  /** Applied to the recorded and the current request before they are compared. */
  readonly normalize?: (request: RecordedModelRequest) => RecordedModelRequest;
  /** Compare requests at all. Default true; `false` plays the calls back in order whatever is asked. */
  readonly strict?: boolean;
}

const OPTION_KEYS = optionKeys<ReplayChatModelOptions>({ normalize: true, strict: true });

/**
 * A chat model that plays back the model calls of a {@link Cassette} in order: each call gets
 * the recorded events (or the recorded failure), after its request was checked against the
 * recorded request. No network. `verify()` fails when calls were left unplayed.
 *
 * One instance plays one run of the recording: give every test its own.
 *
 * @example
 * ```ts
 * const model = new ReplayChatModel(await loadCassette('fixtures/refund.json'));
 * const agent = new Agent({ model, tools });
 * await agent.call('Can I get a refund?');
 * model.verify();
 * ```
 */
export class ReplayChatModel implements ChatModel {
  readonly modelName: string;
  /** The recorded model's provider. */
  readonly provider: string;
  private readonly cassette: Cassette;
  private readonly normalize: (request: RecordedModelRequest) => RecordedModelRequest;
  private readonly strict: boolean;
  private played = 0;

  constructor(cassette: Cassette, options: ReplayChatModelOptions = {}) {
    checkOptionKeys('ReplayChatModel', options, OPTION_KEYS);
    this.cassette = checkCassette(cassette);
    this.modelName = this.cassette.modelCalls[0]?.model ?? 'replay';
    this.provider = this.cassette.modelCalls[0]?.provider ?? 'replay';
    this.normalize = options.normalize ?? ((r) => r);
    this.strict = options.strict ?? true;
  }

  /** Calls of the cassette not played yet. */
  get remaining(): number {
    return this.cassette.modelCalls.length - this.played;
  }

  /** Throws when the run made fewer model calls than were recorded. */
  verify(): void {
    if (this.remaining > 0) {
      throw new CassetteMismatchError(
        `ReplayChatModel: ${this.remaining} recorded model call(s) were not made (${this.played} of ${this.cassette.modelCalls.length} played).`,
      );
    }
  }

  /** What the recorded model said the next call sends. */
  describeRequest(): ModelRequestInfo {
    return this.cassette.modelCalls[this.played]?.info ?? {};
  }

  stream(request: ModelRequest): Observable<ModelEvent> {
    return new Observable<ModelEvent>((subscriber) => {
      const index = this.played;
      const call = this.cassette.modelCalls[index];
      if (!call) {
        subscriber.error(
          new CassetteMismatchError(
            `ReplayChatModel: model call #${index + 1} was not recorded (the cassette has ${this.cassette.modelCalls.length}).`,
          ),
        );
        return;
      }
      if (this.strict) {
        // Through JSON, as the recording was stored.
        const current = this.normalize(JSON.parse(JSON.stringify(recordRequest(request))) as RecordedModelRequest);
        const diff = firstDifference(this.normalize(call.request), current);
        if (diff) {
          subscriber.error(
            new CassetteMismatchError(
              `ReplayChatModel: model call #${index + 1} does not match the recording: ${diff}`,
            ),
          );
          return;
        }
      }
      this.played++;
      for (const e of call.events) {
        if (subscriber.closed) return;
        subscriber.next(e);
      }
      if (call.error) {
        const { message, status, code, retryable } = call.error;
        subscriber.error(
          new ModelError(message, {
            ...(status !== undefined ? { status } : {}),
            ...(code !== undefined ? { code } : {}),
            retryable: retryable ?? false,
          }),
        );
      } else subscriber.complete();
    });
  }
}
