import { ChatOpenAI, ChatOpenAICompletions, type OpenAIClient } from '@langchain/openai';
import { Observable } from 'rxjs';
import type { ModelEvent, Usage } from '../../event/events.js';
import { BlockAssembler } from '../block-assembler.js';
import type { ChatModel, ModelRequest, ModelRequestInfo } from '../chat-model.js';
import { ModelError } from '../model-error.js';
import { toModelError } from '../to-model-error.js';
import { withoutCredentials } from '../redact-credentials.js';
import { credentialsOf } from './openai-credentials.js';
import {
  checkOpenAIChatModelOptions,
  type OpenAIChatModelOptions,
  withoutAuthorization,
} from './openai-chat-model-options.js';
export type { OpenAIChatModelOptions } from './openai-chat-model-options.js';
import { linkAbort } from '../../util/abort-link.js';
import { markSelfAborting } from '../self-aborting.js';
import { OpenAIRequestBodies } from './openai-request-bodies.js';
import { openChunkStream, readChunks } from './chunk-stream.js';
import { withOpenAIClient } from './openai-client.js';
import { DirectChatRequests } from './direct-chat-request.js';

type Completion = OpenAIClient.Chat.Completions.ChatCompletion;
type WireUsage = OpenAIClient.Completions.CompletionUsage;
/** Fields some OpenAI-compatible servers add: reasoning as `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter, Ollama). */
type WithReasoning = { reasoning_content?: string | null; reasoning?: string | null };

/** Per-call timer hooks: `touch` on every piece of data (idle timeout), `responded` once the response arrived (`timeout`). */
interface CallHooks {
  readonly touch: () => void;
  readonly responded: () => void;
}

/** Why a call ends when its request's signal aborts. */
const abortedCall = () => new ModelError('model call aborted', { code: 'cancelled' });

/**
 * A {@link ChatModel} for OpenAI and any OpenAI-compatible server (vLLM, Ollama, LM Studio,
 * llama.cpp, DeepSeek, OpenRouter...), built on `ChatOpenAI` from `@langchain/openai`.
 *
 * It emits text deltas in a TEXT block, reasoning (`reasoning_content` / `reasoning`) in a
 * THINKING block, each tool call in its own block with its arguments streamed as
 * `TOOL_CALL_DELTA`, and one `MODEL_CALL_END` with the usage (`cacheReadTokens` and
 * `reasoningTokens` when the server reports them) and the server's finish reason. Streaming and
 * non-streaming mode emit the same events. Unsubscribing (or the request's `signal`) aborts the
 * HTTP request. Failures are typed {@link ModelError}s (see {@link toModelError}); a stream that
 * ends without a finish reason (`incomplete_stream`) or a response without choices
 * (`empty_response`) fails too, retryably, instead of passing for a complete answer.
 *
 * **The lean path.** `ChatOpenAI.stream()` costs about 0.7 ms per call over the plain `openai`
 * client. This adapter keeps ChatOpenAI's request assembly and its client, and does itself only
 * what is specific to us, so it skips:
 * - the Runnable layer: `ensureConfig`/config merging, `AsyncLocalStorage` context, `_combineCallOptions`;
 * - callbacks and tracing: `CallbackManager.configure` (environment lookups, LangSmith tracer),
 *   `handleChatModelStart` (serialising the model with `toJSON()` and the messages for the run
 *   tree, a second `invocationParams` for tracing with tool redaction), `handleLLMNewToken` per
 *   chunk, `handleLLMEnd`/`handleLLMError`;
 * - the message round trip `Msg` → `BaseMessage` → wire: messages go to the wire format directly;
 * - per-chunk `AIMessageChunk`/`ChatGenerationChunk` objects and their `concat` into a final
 *   message, the v1 content translation and run-id stamping: chunks become events directly;
 * - with `maxRetries: 0` (the default), the `AsyncCaller` of `completionWithRetry` (a p-queue and
 *   a p-retry with nothing to retry): the call goes to ChatOpenAI's `openai` client with the
 *   same error wrapping (`wrapOpenAIClientError`); with `maxRetries > 0` the request goes
 *   through that `AsyncCaller`, retries included;
 * - the `openai` SDK's `Stream` (nested async generators, a microtask hop per event): the body of
 *   a streamed response is read with a push parser, each chunk turned into events as it arrives;
 * - for a streamed call with `maxRetries: 0`, the `openai` client's per-request machinery (options
 *   copies, header assembly, an abort controller tied to the caller's signal, log formatting):
 *   the request is sent with the client's own `fetch`, URL and headers, taken from the client
 *   once, and failures are the client's errors, wrapped the same way. A client configured with
 *   an API key callback, workload identity, `fetchOptions` or `logLevel` info/debug, and every
 *   non-streaming call, still go through the client per request.
 *
 * It keeps: ChatOpenAI's `invocationParams` (model, sampling fields, `stream_options:
 * {include_usage: true}`, `max_completion_tokens` for reasoning models, `modelKwargs`; computed
 * once per model, since without per-call LangChain options they do not change), its construction
 * of the `openai` client (base URL, environment, headers, user agent, timeout) and its error
 * wrapping. `chatOpenAI` is the same model for LangChain-native use.
 *
 * @example
 * ```ts
 * const model = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: process.env.OPENAI_API_KEY });
 * const local = new OpenAIChatModel({ model: 'qwen3:8b', baseURL: 'http://localhost:11434/v1', apiKey: 'ollama' });
 * const agent = new Agent({ model, tools: [add] });
 * const answer = await agent.call('What is 2 + 3?');
 * ```
 */
export class OpenAIChatModel implements ChatModel {
  readonly modelName: string;
  readonly provider: string;
  readonly supportsResponseFormat: boolean;
  /** The equivalent LangChain model (for chains, `withStructuredOutput`...); shares this model's client. */
  readonly chatOpenAI: ChatOpenAI;
  private readonly completions: ChatOpenAICompletions;
  private readonly streaming: boolean;
  private readonly maxRetries: number;
  private readonly requests: OpenAIRequestBodies;
  /** Streamed calls without client retries go here: `fetch` with the client's URL and headers. */
  private readonly direct: DirectChatRequests;
  /** Redacted from the errors this model raises (see `withoutCredentials`). */
  private readonly credentials: readonly string[];

  /** @throws ModelError `invalid_configuration`, naming the option, for a missing `model` or key or a base URL that is not http(s). */
  constructor(private readonly options: OpenAIChatModelOptions) {
    checkOpenAIChatModelOptions(options);
    this.modelName = options.model;
    this.provider = options.provider ?? 'openai';
    this.supportsResponseFormat = options.supportsResponseFormat ?? true;
    this.streaming = options.streaming ?? true;
    this.maxRetries = options.maxRetries ?? 0;
    const fields = {
      model: options.model,
      // No key on purpose: the openai client insists on one, so it gets a placeholder that its fetch drops.
      ...(options.apiKey === null
        ? { apiKey: 'no-key' }
        : options.apiKey !== undefined
          ? { apiKey: options.apiKey }
          : {}),
      configuration: {
        ...options.configuration,
        ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
        ...(options.apiKey === null ? { fetch: withoutAuthorization(options.configuration?.fetch) } : {}),
      },
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.topP !== undefined ? { topP: options.topP } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      ...(options.stop !== undefined ? { stop: [...options.stop] } : {}),
      ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
      ...(options.modelKwargs !== undefined ? { modelKwargs: { ...options.modelKwargs } } : {}),
      maxRetries: this.maxRetries,
      streaming: this.streaming,
      streamUsage: true,
    };
    this.credentials = credentialsOf(options);
    // Its stream() aborts the request on unsubscribe: the agent need not make a signal per call for it.
    markSelfAborting(this);
    this.completions = new ChatOpenAICompletions(fields);
    this.chatOpenAI = new ChatOpenAI({ ...fields, completions: this.completions });
    this.requests = new OpenAIRequestBodies(options, this.completions, this.provider, this.streaming);
    this.direct = new DirectChatRequests(this.completions);
  }

  /**
   * Streams one call as {@link ModelEvent}s (cold: the request starts on subscribe).
   *
   * @example
   * ```ts
   * model.stream({ messages: [createMsg('user', 'hi')], tools: [], toolChoice: 'auto', options: {}, signal })
   *   .subscribe((e) => e.type === 'TEXT_BLOCK_DELTA' && process.stdout.write(e.delta));
   * ```
   */
  stream(request: ModelRequest): Observable<ModelEvent> {
    return new Observable<ModelEvent>((subscriber) => {
      if (request.signal.aborted) {
        subscriber.error(new ModelError('model call aborted before it started', { code: 'cancelled' }));
        return undefined;
      }
      const controller = new AbortController();
      const unlink = linkAbort(request.signal, controller, abortedCall);
      const idleMs = this.options.idleTimeoutMs;
      let idle: ReturnType<typeof setTimeout> | undefined;
      const touch = () => {
        if (idleMs === undefined) return;
        if (idle !== undefined) clearTimeout(idle);
        idle = setTimeout(() => {
          controller.abort(
            new ModelError(`the model server sent no data for ${idleMs} ms`, { code: 'timeout', retryable: true }),
          );
        }, idleMs);
      };
      // Our own timer for `timeout` (the SDK has one too): its failure is classified the same everywhere.
      const timeoutMs = this.options.timeout;
      let waiting: ReturnType<typeof setTimeout> | undefined =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              controller.abort(
                new ModelError(`no response from the model server within ${timeoutMs} ms`, {
                  code: 'timeout',
                  retryable: true,
                }),
              );
            }, timeoutMs);
      const hooks: CallHooks = {
        touch,
        responded: () => {
          if (waiting !== undefined) clearTimeout(waiting);
          waiting = undefined;
        },
      };
      const emit = (e: ModelEvent) => {
        if (!subscriber.closed) subscriber.next(e);
      };
      const fail = (err: unknown) => {
        const reason: unknown = controller.signal.reason;
        subscriber.error(
          controller.signal.aborted && reason instanceof ModelError
            ? reason
            : withoutCredentials(toModelError(err), this.credentials),
        );
      };

      let settled = false;
      touch();
      const call = this.streaming
        ? this.runStreaming(request, controller, emit, hooks)
        : this.runOnce(request, controller.signal, emit, hooks);
      call.then(
        () => {
          settled = true;
          subscriber.complete();
        },
        (err: unknown) => {
          settled = true;
          fail(err);
        },
      );
      return () => {
        if (idle !== undefined) clearTimeout(idle);
        hooks.responded();
        unlink();
        // Abort only a call still running: aborting a finished one costs an Error and an abort cascade per call.
        if (!settled) controller.abort(new ModelError('model call cancelled', { code: 'cancelled' }));
      };
    });
  }

  /**
   * What a call with this request sends: the server of `baseURL` (default `api.openai.com:443`),
   * whether it streams, and the sampling options in effect (constructor defaults merged with the
   * request's options).
   */
  describeRequest(request: Omit<ModelRequest, 'signal'>): ModelRequestInfo {
    return this.requests.describe(request);
  }

  private async runStreaming(
    request: ModelRequest,
    controller: AbortController,
    emit: (e: ModelEvent) => void,
    hooks: CallHooks,
  ): Promise<void> {
    const signal = controller.signal;
    const response = await this.openStream(request, controller);
    hooks.responded();
    const touch = hooks.touch;
    const blocks = new BlockAssembler(emit);
    let usage: WireUsage | undefined;
    let finishReason: string | undefined;
    let responseModel: string | undefined;
    let responseId: string | undefined;
    let sawChoice = false;
    await readChunks(response, signal, (chunk) => {
      touch();
      if (chunk.usage) usage = chunk.usage;
      if (chunk.model) responseModel = chunk.model;
      if (chunk.id) responseId = chunk.id;
      const choice = chunk.choices?.find((c) => c.index === 0) ?? chunk.choices?.[0];
      if (!choice) return;
      sawChoice = true;
      const delta = choice.delta as (typeof choice.delta & WithReasoning) | undefined;
      if (delta) {
        blocks.thinking(delta.reasoning_content ?? delta.reasoning);
        blocks.text(delta.content);
        blocks.text(delta.refusal);
        for (const tc of delta.tool_calls ?? []) {
          blocks.toolCall(tc.index, {
            id: tc.id ?? null,
            name: tc.function?.name ?? null,
            arguments: tc.function?.arguments ?? null,
          });
        }
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    });
    if (!sawChoice) {
      throw new ModelError('the model server answered without any choices', {
        code: 'empty_response',
        retryable: true,
      });
    }
    if (finishReason === undefined) {
      throw new ModelError('the model server ended the stream before the answer was finished (no finish_reason)', {
        code: 'incomplete_stream',
        retryable: true,
      });
    }
    blocks.close();
    emit(this.end(usage, finishReason, responseModel, responseId));
  }

  /**
   * Sends the streamed request; resolves once the response headers are in. A function of its
   * own so that the request body (the whole conversation in wire form) is not kept by the
   * frame of `runStreaming` while the answer streams.
   */
  private async openStream(request: ModelRequest, controller: AbortController): Promise<Response> {
    const body = this.requests.body(request, true);
    // Client retries need the SDK's AsyncCaller; so does a client the direct path does not serve.
    return (
      (this.maxRetries === 0 ? await this.direct.open(body, controller) : undefined) ??
      (await openChunkStream(this.completions, body, controller.signal, this.maxRetries))
    );
  }

  private async runOnce(
    request: ModelRequest,
    signal: AbortSignal,
    emit: (e: ModelEvent) => void,
    hooks: CallHooks,
  ): Promise<void> {
    const body = this.requests.body(request, false);
    const completion: Completion =
      this.maxRetries > 0
        ? await this.completions.completionWithRetry(body, { signal, maxRetries: this.maxRetries })
        : await this.create(body, signal);
    hooks.responded();
    if (signal.aborted) throw signal.reason;
    if (!completion || typeof completion !== 'object') {
      throw new ModelError('the model server answered with something that is not a chat completion', {
        code: 'malformed_response',
        retryable: true,
      });
    }
    const choice = completion.choices?.find((c) => c.index === 0) ?? completion.choices?.[0];
    if (!choice)
      throw new ModelError('the model server answered without any choices', {
        code: 'empty_response',
        retryable: true,
      });
    const message = choice.message as typeof choice.message & WithReasoning;
    const blocks = new BlockAssembler(emit);
    blocks.thinking(message.reasoning_content ?? message.reasoning);
    blocks.text(message.content);
    blocks.text(message.refusal);
    (message.tool_calls ?? []).forEach((tc, i) => {
      if (tc.type !== 'function') return;
      blocks.toolCall(i, { id: tc.id, name: tc.function.name, arguments: tc.function.arguments });
    });
    blocks.close();
    emit(
      this.end(
        completion.usage,
        choice.finish_reason ?? (blocks.toolCallCount ? 'tool_calls' : 'stop'),
        completion.model,
        completion.id,
      ),
    );
  }

  /**
   * `completionWithRetry` without its `AsyncCaller` (a p-queue and a p-retry with nothing to
   * retry when `maxRetries` is 0): the same client call and the same error wrapping.
   */
  private async create(
    body: OpenAIClient.Chat.ChatCompletionCreateParamsNonStreaming,
    signal: AbortSignal,
  ): Promise<Completion> {
    return withOpenAIClient(this.completions, (client) => client.chat.completions.create(body, { signal }));
  }

  private end(
    usage: WireUsage | undefined,
    finishReason: string,
    responseModel: string | undefined,
    responseId: string | undefined,
  ): ModelEvent {
    return {
      type: 'MODEL_CALL_END',
      model: this.modelName,
      usage: toUsage(usage),
      finishReason,
      ...(responseModel ? { responseModel } : {}),
      ...(responseId ? { responseId } : {}),
    };
  }
}

/** The wire usage as our {@link Usage}; cache and reasoning counts only when reported. */
function toUsage(u: WireUsage | undefined | null): Usage {
  if (!u) return { inputTokens: 0, outputTokens: 0 };
  const cached = u.prompt_tokens_details?.cached_tokens;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  return {
    inputTokens: u.prompt_tokens ?? 0,
    outputTokens: u.completion_tokens ?? 0,
    ...(typeof cached === 'number' ? { cacheReadTokens: cached } : {}),
    ...(typeof reasoning === 'number' ? { reasoningTokens: reasoning } : {}),
  };
}
