/**
 * # PiiRedactionMiddleware
 *
 * Keeps personal data and secrets away from the model and out of what the agent streams:
 * e-mail addresses, phone numbers, card numbers (Luhn checked: a 16-digit number that fails
 * the check is left alone), IBANs (mod-97 checked) and API-key-like secrets (`sk-…`, `ghp_…`,
 * AWS `AKIA…`, Slack `xox…`, Google `AIza…`, Stripe `sk_live_…`, JWTs, and long random-looking
 * tokens; conservative, so identifiers, hex hashes and UUIDs pass).
 *
 * **Where.** In the request (`onModelCall`: the messages the model receives are rewritten; the
 * stored conversation is not touched, the system prompt only with `systemPrompt: true`), and in
 * the output: text and thinking deltas and tool-call arguments of the model (`onModelCall`), and
 * tool results (`onActing`). Redacting the output changes what subscribers see **and** the reply
 * message the agent stores (it is folded from the redacted events).
 *
 * **Across chunk boundaries.** A card number split over three deltas is redacted all the same:
 * each block holds back only the tail that could still become a match (the current word, a
 * number being written...) and releases it as soon as it is decided, or when the block ends.
 * The deltas emitted concatenate to the redacted text, for any split.
 *
 * **Strategies** per type: `mask` (`[EMAIL]`, `[PHONE]`, `****1234` for cards, `[IBAN]`,
 * `[SECRET]`), `hash` (`[EMAIL:3b5d5c3712aa]`: a salted SHA-256 prefix, stable across calls, so
 * the model can tell two addresses apart), `block`, `off`, or a function of the match.
 * `block` in the request replaces the whole block holding the match with
 * `[removed: contained a card number]`; in a tool result, the result becomes an `error` result
 * with that notice; in the model's output, the text stops right before the match and the model
 * call fails with a non-retryable `ModelError {code: 'pii_blocked'}` (the reply ends with
 * `REPLY_END {finishReason: 'error'}`): the matched data is never emitted.
 *
 * Place it outside retry and fallback (it redacts the request once, and `block` should not
 * trigger a fallback), and outside tracing when traces record message content.
 *
 * @example
 * ```ts
 * import { PiiRedactionMiddleware } from '@rxscope/middleware-builtin';
 *
 * const agent = new Agent({
 *   model,
 *   middlewares: [new PiiRedactionMiddleware({ types: { email: 'hash', secret: 'block' } })],
 * });
 * await agent.call('Write to jane@example.com, card 4111 1111 1111 1111');
 * // the model receives: 'Write to [EMAIL:…], card ****1111'
 * ```
 *
 * @module
 */
import { defer, Observable, Subscription } from 'rxjs';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type ContentBlock,
  type Middleware,
  type ModelCallInput,
  ModelError,
  type Msg,
  type Next,
  type RuntimeContext,
  type ToolResultContent,
  toErrorInfo,
  closeOpenStream,
  OpenStream,
  checkOptionKeys,
  optionKeys,
} from '@rxscope/core';
import type { PiiMatch, PiiType } from './detect.js';
import { RedactionPolicy, StreamRedactor, type PiiStrategy } from './stream.js';

export { detectPii, PII_TYPES } from './detect.js';
export type { PiiMatch, PiiType } from './detect.js';
export type { PiiStrategy } from './stream.js';

/** What to redact in the output. */
export interface PiiOutputOptions {
  /** The model's text. Default true. */
  readonly text?: boolean;
  /** The model's thinking. Default true. */
  readonly thinking?: boolean;
  /** Tool-call arguments streamed by the model (the tool then receives the redacted values). Default false. */
  readonly toolArguments?: boolean;
  /** Tool results (deltas and the authoritative `output`). Default true. */
  readonly toolResults?: boolean;
}

/** Options of {@link PiiRedactionMiddleware}. */
export interface PiiRedactionOptions {
  /** Strategy per type. Default: every type `mask`. */
  readonly types?: Partial<Record<PiiType, PiiStrategy>>;
  /** Redact the messages sent to the model. Default true. */
  readonly request?: boolean;
  /** Also redact the system prompt in the request. Default false (it is the developer's text). */
  readonly systemPrompt?: boolean;
  /** Redact the output: `true`/`false` for all of it, or per part. Default: text, thinking and tool results. */
  readonly output?: boolean | PiiOutputOptions;
  /** Salt of the `hash` strategy; set a secret one, or hashes of phone numbers can be reversed by trying them all. Default `''`. */
  readonly hashSalt?: string;
  /** Longest tail a streamed block holds back while it could still be a match. Default 4 096. */
  readonly maxHoldChars?: number;
}

type StreamedDelta = 'TEXT_BLOCK_DELTA' | 'THINKING_BLOCK_DELTA' | 'TOOL_CALL_DELTA';

// Every option, typed against PiiRedactionOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<PiiRedactionOptions>({
  types: true,
  request: true,
  systemPrompt: true,
  output: true,
  hashSalt: true,
  maxHoldChars: true,
});

/**
 * Redacts personal data and secrets in model requests and streamed output (see the module
 * documentation). Stateless: one instance may serve any number of agents and concurrent replies.
 */
export class PiiRedactionMiddleware implements Middleware {
  readonly key = 'piiRedaction';
  private readonly policy: RedactionPolicy;
  private readonly request: boolean;
  private readonly systemPrompt: boolean;
  private readonly output: Required<PiiOutputOptions>;
  private readonly maxHold: number;

  constructor(options: PiiRedactionOptions = {}) {
    checkOptionKeys('PiiRedactionMiddleware', options, OPTION_KEYS);
    this.policy = new RedactionPolicy(options.types ?? {}, options.hashSalt ?? '');
    this.request = options.request ?? true;
    this.systemPrompt = options.systemPrompt ?? false;
    const o = options.output ?? {};
    const all = typeof o === 'boolean' ? o : undefined;
    const parts = typeof o === 'boolean' ? {} : o;
    this.output = {
      text: all ?? parts.text ?? true,
      thinking: all ?? parts.thinking ?? true,
      toolArguments: all ?? parts.toolArguments ?? false,
      toolResults: all ?? parts.toolResults ?? true,
    };
    this.maxHold = Math.max(64, options.maxHoldChars ?? 4096);
  }

  /**
   * Redacts one text with this middleware's policy (blocked content becomes the notice).
   *
   * @example
   * ```ts
   * new PiiRedactionMiddleware().redactText('call +1 415 555 2671'); // 'call [PHONE]'
   * ```
   */
  redactText(text: string): string {
    const out = this.policy.redact(text);
    return out.blocked ? this.policy.notice(out.blocked) : out.text;
  }

  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    return defer(() => {
      const events = next(this.request ? this.redactRequest(input) : input);
      const { text, thinking, toolArguments } = this.output;
      return text || thinking || toolArguments ? this.redactModelOutput(ctx, events) : events;
    });
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    return this.output.toolResults ? this.redactToolResults(ctx, next(input)) : next(input);
  }

  private redactRequest(input: ModelCallInput): ModelCallInput {
    let changed = false;
    const messages = input.messages.map((m): Msg => {
      if (m.role === 'system' && !this.systemPrompt) return m;
      let blockChanged = false;
      const content = m.content.map((b) => {
        const r = this.redactBlock(b);
        if (r !== b) blockChanged = true;
        return r;
      });
      if (!blockChanged) return m;
      changed = true;
      return { ...m, content };
    });
    return changed ? { ...input, messages } : input;
  }

  private redactBlock(b: ContentBlock): ContentBlock {
    switch (b.type) {
      case 'text':
      case 'hint': {
        const text = this.redactText(b.text);
        return text === b.text ? b : { ...b, text };
      }
      case 'thinking': {
        const thinking = this.redactText(b.thinking);
        return thinking === b.thinking ? b : { ...b, thinking };
      }
      case 'tool_call': {
        const out = this.policy.redact(b.arguments);
        if (out.blocked) return { ...b, arguments: JSON.stringify({ redacted: this.policy.notice(out.blocked) }) };
        return out.count ? { ...b, arguments: out.text } : b;
      }
      case 'tool_result': {
        const output = this.redactOutput(b.output);
        return output === b.output ? b : { ...b, output };
      }
      default:
        return b;
    }
  }

  private redactOutput(output: readonly ToolResultContent[]): readonly ToolResultContent[] {
    let changed = false;
    const out = output.map((c) => {
      if (c.type !== 'text') return c;
      const text = this.redactText(c.text);
      if (text === c.text) return c;
      changed = true;
      return { ...c, text };
    });
    return changed ? out : output;
  }

  private covers(type: StreamedDelta): boolean {
    return type === 'TEXT_BLOCK_DELTA'
      ? this.output.text
      : type === 'THINKING_BLOCK_DELTA'
        ? this.output.thinking
        : this.output.toolArguments;
  }

  /** Redacts text, thinking and (if configured) tool-call deltas block by block; `block` cuts the call. */
  private redactModelOutput(ctx: RuntimeContext, source: Observable<AgentEvent>): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      const streams = new Map<string, StreamRedactor>();
      const tracker = new OpenStream();
      const inner = new Subscription();
      const emit = (e: AgentEvent) => {
        tracker.apply(e);
        subscriber.next(e);
      };
      const stop = (match: PiiMatch) => {
        inner.unsubscribe(); // aborts the request: nothing more of this answer is wanted
        const error = new ModelError(
          `the model's output contained ${this.policy.describe(match)}; the response was blocked`,
          {
            code: 'pii_blocked',
            retryable: false,
          },
        );
        for (const e of closeOpenStream(ctx, tracker, {
          status: 'error',
          why: error.message,
          error: toErrorInfo(error),
          answerCalls: false,
        }))
          subscriber.next(e);
        subscriber.error(error);
      };
      const open = (blockId: string, type: StreamedDelta) => {
        if (this.covers(type)) streams.set(blockId, new StreamRedactor(this.policy, this.maxHold));
      };
      const close = (blockId: string, type: StreamedDelta, toolCallId = ''): boolean => {
        const stream = streams.get(blockId);
        if (!stream) return true;
        streams.delete(blockId);
        const out = stream.flush();
        if (out.text)
          emit(
            type === 'TOOL_CALL_DELTA'
              ? ctx.event(type, { blockId, toolCallId, delta: out.text })
              : ctx.delta(type, blockId, out.text),
          );
        if (out.blocked) stop(out.blocked);
        return !out.blocked;
      };
      inner.add(
        source.subscribe({
          next: (e) => {
            switch (e.type) {
              case 'TEXT_BLOCK_START':
                open(e.blockId, 'TEXT_BLOCK_DELTA');
                break;
              case 'THINKING_BLOCK_START':
                open(e.blockId, 'THINKING_BLOCK_DELTA');
                break;
              case 'TOOL_CALL_START':
                open(e.blockId, 'TOOL_CALL_DELTA');
                break;
              case 'TEXT_BLOCK_DELTA':
              case 'THINKING_BLOCK_DELTA':
              case 'TOOL_CALL_DELTA': {
                const stream = streams.get(e.blockId);
                if (!stream) break;
                const out = stream.push(e.delta);
                if (out.text) emit(out.text === e.delta ? e : { ...e, delta: out.text });
                if (out.blocked) stop(out.blocked);
                return;
              }
              case 'TEXT_BLOCK_END':
                if (!close(e.blockId, 'TEXT_BLOCK_DELTA')) return;
                break;
              case 'THINKING_BLOCK_END':
                if (!close(e.blockId, 'THINKING_BLOCK_DELTA')) return;
                break;
              case 'TOOL_CALL_END':
                if (!close(e.blockId, 'TOOL_CALL_DELTA', e.toolCallId)) return;
                break;
              default:
                break;
            }
            emit(e);
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => subscriber.complete(),
        }),
      );
      return () => inner.unsubscribe();
    });
  }

  /** Redacts tool result deltas (streamed) and the authoritative output; `block` turns the result into an error result. */
  private redactToolResults(ctx: RuntimeContext, source: Observable<AgentEvent>): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      const streams = new Map<string, StreamRedactor>();
      const blocked = new Map<string, PiiMatch>();
      return source.subscribe({
        next: (e) => {
          switch (e.type) {
            case 'TOOL_RESULT_START':
              streams.set(e.blockId, new StreamRedactor(this.policy, this.maxHold));
              break;
            case 'TOOL_RESULT_DELTA': {
              const stream = streams.get(e.blockId);
              if (!stream) break;
              const out = stream.push(e.delta);
              if (out.text) subscriber.next(out.text === e.delta ? e : { ...e, delta: out.text });
              if (out.blocked) blocked.set(e.blockId, out.blocked);
              return;
            }
            case 'TOOL_RESULT_END': {
              const stream = streams.get(e.blockId);
              streams.delete(e.blockId);
              const rest = stream?.flush();
              if (rest?.text) subscriber.next(ctx.delta('TOOL_RESULT_DELTA', e.blockId, rest.text));
              let match = blocked.get(e.blockId) ?? rest?.blocked;
              blocked.delete(e.blockId);
              let redacted = false;
              const output = e.output.map((c) => {
                if (c.type !== 'text') return c;
                const r = this.policy.redact(c.text);
                match ??= r.blocked;
                if (r.count) redacted = true;
                return r.count ? { ...c, text: r.text } : c;
              });
              // The structured `value` is the output before redaction: it goes only when nothing was found.
              const { value: _value, ...withoutValue } = e;
              if (match) {
                const text = `Tool result withheld: it contained ${this.policy.describe(match)}.`;
                subscriber.next({ ...withoutValue, status: 'error', output: [{ type: 'text', text }] });
              } else subscriber.next(redacted ? { ...withoutValue, output } : { ...e, output });
              return;
            }
            case 'TOOL_PROGRESS': {
              // Progress is shown to people as it comes: redacted whole, dropped when it would be blocked.
              const r = this.policy.redact(e.message);
              if (r.blocked) return;
              subscriber.next(r.count ? { ...e, message: r.text } : e);
              return;
            }
            default:
              break;
          }
          subscriber.next(e);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
    });
  }
}
