import { Observable, type Subscriber } from 'rxjs';
import type { ModelEvent } from '../event/events.js';
import type { ChatModel, ModelRequest } from '../model/chat-model.js';
import { textOfMsg } from '../message/msg.js';
import { newId } from '../util/id.js';
import { scriptedTurnEvents, type ScriptedTurn } from './scripted-turn.js';

/** How to pick pending calls: text contained in the last message, or a predicate. */
export type ModelCallMatch = string | ((request: ModelRequest) => boolean);

/**
 * One model call held by the {@link ModelTestingController} until the test answers it.
 */
export class TestModelCall {
  private textBlock: string | undefined;
  /** True once the agent unsubscribed from this call (its signal is aborted too). */
  cancelled = false;
  /** True once answered (flushed or failed). */
  answered = false;

  constructor(
    readonly request: ModelRequest,
    private readonly subscriber: Subscriber<ModelEvent>,
    private readonly modelName: string,
    private readonly onDone: (call: TestModelCall) => void,
  ) {}

  /** Streams events without finishing the call (for mid-stream tests). */
  emit(...events: ModelEvent[]): this {
    this.assertOpen();
    for (const e of events) this.subscriber.next(e);
    return this;
  }

  /** Streams a piece of text without finishing the call. */
  streamText(delta: string): this {
    if (this.textBlock === undefined) {
      this.textBlock = newId('blk');
      this.emit({ type: 'TEXT_BLOCK_START', blockId: this.textBlock });
    }
    return this.emit({ type: 'TEXT_BLOCK_DELTA', blockId: this.textBlock, delta });
  }

  /** Answers with a scripted turn and completes the call. */
  flush(turn: ScriptedTurn = { text: 'ok' }): void {
    this.assertOpen();
    if (this.textBlock !== undefined) {
      this.subscriber.next({ type: 'TEXT_BLOCK_END', blockId: this.textBlock });
      this.textBlock = undefined;
    }
    for (const e of scriptedTurnEvents(turn, this.modelName)) this.subscriber.next(e);
    this.finish();
    if (turn.error) this.subscriber.error(turn.error);
    else this.subscriber.complete();
  }

  /** Fails the call. */
  error(error: Error): void {
    this.assertOpen();
    this.finish();
    this.subscriber.error(error);
  }

  private finish(): void {
    this.answered = true;
    this.onDone(this);
  }

  private assertOpen(): void {
    if (this.answered) throw new Error('This model call was already answered.');
    if (this.cancelled) throw new Error('This model call was cancelled by the agent; it cannot be answered.');
  }
}

/**
 * A test double for model calls in the style of Angular's `HttpTestingController`: calls stay
 * pending until the test answers them with `flush` or `error`, and `verify()` fails on calls
 * nobody answered.
 *
 * @example
 * ```ts
 * const controller = new ModelTestingController();
 * const agent = new Agent({ model: controller.model });
 * const events: AgentEvent[] = [];
 * agent.reply('hi').subscribe((e) => events.push(e));
 * controller.expectOne('hi').flush({ text: 'Hello!' });
 * controller.verify();
 * ```
 */
export class ModelTestingController {
  readonly model: ChatModel;
  private readonly pending: TestModelCall[] = [];

  constructor(modelName = 'test-model') {
    const pending = this.pending;
    this.model = {
      modelName,
      provider: 'test',
      stream: (request) =>
        new Observable<ModelEvent>((subscriber) => {
          const call = new TestModelCall(request, subscriber, modelName, (c) => {
            const i = pending.indexOf(c);
            if (i >= 0) pending.splice(i, 1);
          });
          pending.push(call);
          return () => {
            if (!call.answered) call.cancelled = true;
            const i = pending.indexOf(call);
            if (i >= 0) pending.splice(i, 1);
          };
        }),
    };
  }

  /** Pending calls matching `match` (all when omitted), without removing them. */
  match(match?: ModelCallMatch): TestModelCall[] {
    return this.pending.filter((c) => matches(c.request, match));
  }

  /** The single pending call matching `match`; throws when there are none or several. */
  expectOne(match?: ModelCallMatch): TestModelCall {
    const found = this.match(match);
    if (found.length !== 1) {
      throw new Error(
        `Expected one pending model call${describe(match)}, found ${found.length}.` +
          (this.pending.length
            ? ` Pending: ${this.pending.map((c) => JSON.stringify(lastText(c.request))).join(', ')}`
            : ''),
      );
    }
    return found[0]!;
  }

  /** Throws when a call matching `match` is pending. */
  expectNone(match?: ModelCallMatch): void {
    const found = this.match(match);
    if (found.length) throw new Error(`Expected no pending model call${describe(match)}, found ${found.length}.`);
  }

  /** Throws when any call is still pending. */
  verify(): void {
    if (this.pending.length) {
      throw new Error(
        `${this.pending.length} model call(s) were never answered: ${this.pending.map((c) => JSON.stringify(lastText(c.request))).join(', ')}`,
      );
    }
  }
}

function lastText(request: ModelRequest): string {
  const last = request.messages[request.messages.length - 1];
  return last ? textOfMsg(last) : '';
}

function matches(request: ModelRequest, match: ModelCallMatch | undefined): boolean {
  if (match === undefined) return true;
  if (typeof match === 'function') return match(request);
  return request.messages.some((m) => m.role === 'user' && textOfMsg(m).includes(match));
}

function describe(match: ModelCallMatch | undefined): string {
  return match === undefined ? '' : typeof match === 'string' ? ` matching "${match}"` : ' matching the predicate';
}
