import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { Observable } from 'rxjs';
import type { ModelEvent, Usage } from '../../event/events.js';
import { BlockAssembler } from '../block-assembler.js';
import type { ChatModel, ModelRequest, ModelRequestInfo, ToolChoice } from '../chat-model.js';
import { ModelError } from '../model-error.js';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';
import { toModelError } from '../to-model-error.js';
import { withoutCredentials } from '../redact-credentials.js';
import { langChainCredentials } from './langchain-credentials.js';
import { toOpenAITool } from '../openai/openai-messages.js';
import { toLangChainMessages } from './langchain-messages.js';
import { linkAbort } from '../../util/abort-link.js';
import { markSelfAborting } from '../self-aborting.js';
import { type ServerAddress, serverAddressOf } from '../server-address.js';

/**
 * Options of {@link LangChainChatModel}.
 *
 * @example
 * ```ts
 * const options: LangChainChatModelOptions = { model: new ChatOllama({ model: 'llama3.2' }), streaming: true, callOptions: { tags: ['agent'] } };
 * ```
 */
export interface LangChainChatModelOptions {
  /** Any LangChain chat model (`ChatAnthropic`, `ChatGoogleGenerativeAI`, `ChatOllama`, `ChatOpenAI`...). */
  readonly model: BaseChatModel;
  /** Name for events and telemetry. Default: the model's `model`/`modelName` field, else its LangChain name. */
  readonly modelName?: string;
  /** Provider name for telemetry. Default: the model's `_llmType()`. */
  readonly provider?: string;
  /** Use `stream()` (default true) or `invoke()`; both emit the same events. */
  readonly streaming?: boolean;
  /** Extra call options for every call (`callbacks`, `tags`, `metadata`, provider options...). */
  readonly callOptions?: Readonly<Record<string, unknown>>;
}

const KEYS = optionKeys<LangChainChatModelOptions>({
  model: true,
  modelName: true,
  provider: true,
  streaming: true,
  callOptions: true,
});

/** Refuses unknown keys, and a LangChain model given where its options object goes. */
function checkKeys(options: LangChainChatModelOptions): void {
  const fail = (code: string, message: string) =>
    new ModelError(`LangChainChatModel: ${message}`, {
      code: code === 'unknown_option' ? code : 'invalid_configuration',
    });
  const given = options as unknown as { invoke?: unknown } | null;
  if (given && typeof given.invoke === 'function')
    throw fail('invalid_configuration', 'pass the LangChain model as an option: new LangChainChatModel({ model }).');
  checkOptionKeys('LangChainChatModel', options, KEYS, { error: (code, _o, message) => fail(code, message) });
}

/** Our tool choice in LangChain's convention: `'any'` forces a tool call, a string names the tool. */
function toLangChainToolChoice(choice: ToolChoice): string {
  if (typeof choice !== 'string') return choice.name;
  return choice === 'required' ? 'any' : choice;
}

type Content = AIMessageChunk['content'];

/** Why a call ends when its request's signal aborts. */
const abortedCall = () => new ModelError('model call aborted', { code: 'cancelled' });

/**
 * A {@link ChatModel} over any LangChain chat model. Tools are bound with `bindTools` (as
 * OpenAI-format function tools, which LangChain's providers accept) with the request's tool
 * choice (`required` is passed as LangChain's `'any'`, a named tool as its name); the request's
 * `stop` and `signal` go with the call, other sampling options are the LangChain model's own.
 *
 * Each `AIMessageChunk` is mapped to the same events as {@link OpenAIChatModel}: string content
 * and `text` content blocks as TEXT, `thinking`/`reasoning` blocks and
 * `additional_kwargs.reasoning_content` as THINKING, `tool_call_chunks` (or complete `tool_calls`)
 * as one block per call with streamed arguments; usage is summed from `usage_metadata` and the
 * finish reason read from `response_metadata` (`finish_reason`, `stop_reason` or `finishReason`).
 * This goes through LangChain's full `stream()` (callbacks, tracing): prefer
 * {@link OpenAIChatModel} for OpenAI-compatible servers.
 *
 * @example
 * ```ts
 * import { ChatAnthropic } from '@langchain/anthropic';
 * const model = new LangChainChatModel({ model: new ChatAnthropic({ model: 'claude-sonnet-4-5' }) });
 * const agent = new Agent({ model, tools: [add] });
 * ```
 */
export class LangChainChatModel implements ChatModel {
  readonly modelName: string;
  readonly provider: string;
  private readonly model: BaseChatModel;
  /** Redacted from the errors this model raises (see `withoutCredentials`). */
  private readonly credentials: readonly string[];

  constructor(private readonly options: LangChainChatModelOptions) {
    checkKeys(options);
    this.model = options.model;
    this.credentials = langChainCredentials(options.model);
    const m = options.model as BaseChatModel & { model?: unknown; modelName?: unknown };
    this.modelName =
      options.modelName ??
      (typeof m.model === 'string' ? m.model : typeof m.modelName === 'string' ? m.modelName : m.getName());
    this.provider = options.provider ?? m._llmType();
    // Its stream() aborts the request on unsubscribe: the agent need not make a signal per call for it.
    markSelfAborting(this);
  }

  /**
   * What a call with this request sends, as far as the wrapped model tells: its sampling options
   * (LangChain's `getLsParams()` — temperature, max tokens — and `invocationParams()` — top-p,
   * seed, penalties — of the model), the request's `stop`, the server of the model's base URL
   * when it has one (`baseURL`, `baseUrl`, `apiUrl`, `configuration.baseURL`, ...), and whether
   * it streams. The request's other options are not sent (the model's own are), so they are not
   * reported.
   *
   * @example
   * ```ts
   * const model = new LangChainChatModel({ model: new ChatOpenAI({ model: 'gpt-4o-mini', temperature: 0.2 }) });
   * model.describeRequest({ messages: [], tools: [], toolChoice: 'auto', options: {} });
   * // { provider: 'openai', stream: true, options: { temperature: 0.2 } }
   * ```
   */
  describeRequest(request: Omit<ModelRequest, 'signal'>): ModelRequestInfo {
    const stop = request.options.stop !== undefined ? [...request.options.stop] : undefined;
    const callOptions = { ...this.options.callOptions, ...(stop ? { stop } : {}) };
    const options: Record<string, unknown> = {};
    const m = this.model as BaseChatModel & { invocationParams?: (options: unknown) => unknown };
    const invocation = safely(() => m.invocationParams?.(callOptions));
    if (invocation && typeof invocation === 'object') {
      const params = invocation as Record<string, unknown>;
      // Ollama-style models nest the sampling options under `options`.
      const nested =
        params['options'] && typeof params['options'] === 'object'
          ? (params['options'] as Record<string, unknown>)
          : {};
      for (const source of [nested, params]) {
        for (const [wire, name] of WIRE_OPTIONS) if (isOption(source[wire])) options[name] = source[wire];
      }
    }
    const ls = safely(() => this.model.getLsParams(callOptions as never));
    if (ls) {
      if (isOption(ls.ls_temperature)) options['temperature'] = ls.ls_temperature;
      if (isOption(ls.ls_max_tokens)) options['maxTokens'] = ls.ls_max_tokens;
    }
    if (stop) options['stop'] = stop;
    return {
      provider: this.provider,
      ...serverOf(this.model),
      stream: this.options.streaming ?? true,
      options: options,
    };
  }

  /**
   * Streams one call as {@link ModelEvent}s (cold: the call starts on subscribe).
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
      let settled = false;
      const emit = (e: ModelEvent) => {
        if (!subscriber.closed) subscriber.next(e);
      };
      this.run(request, controller.signal, emit).then(
        () => {
          settled = true;
          subscriber.complete();
        },
        (err: unknown) => {
          settled = true;
          const reason: unknown = controller.signal.reason;
          subscriber.error(
            controller.signal.aborted && reason instanceof ModelError
              ? reason
              : withoutCredentials(toModelError(err), this.credentials),
          );
        },
      );
      return () => {
        unlink();
        if (!settled) controller.abort(new ModelError('model call cancelled', { code: 'cancelled' }));
      };
    });
  }

  private async run(request: ModelRequest, signal: AbortSignal, emit: (e: ModelEvent) => void): Promise<void> {
    let runnable: Pick<BaseChatModel, 'stream' | 'invoke'> = this.model;
    if (request.tools.length) {
      if (typeof this.model.bindTools !== 'function') {
        throw new ModelError(`LangChain model ${this.model.getName()} does not support tools (it has no bindTools)`, {
          code: 'unsupported',
        });
      }
      runnable = this.model.bindTools(request.tools.map(toOpenAITool), {
        tool_choice: toLangChainToolChoice(request.toolChoice),
      });
    }
    const messages = toLangChainMessages(request.messages);
    const callOptions = {
      ...this.options.callOptions,
      signal,
      ...(request.options.stop !== undefined ? { stop: [...request.options.stop] } : {}),
    };
    const mapper = new ChunkMapper(emit);
    if (this.options.streaming ?? true) {
      const stream = await runnable.stream(messages, callOptions);
      for await (const chunk of stream as AsyncIterable<AIMessageChunk>) {
        if (signal.aborted) break;
        mapper.add(chunk);
      }
    } else {
      mapper.add(await runnable.invoke(messages, callOptions));
    }
    if (signal.aborted) throw signal.reason;
    emit(mapper.end(this.modelName));
  }
}

/** Wire names of the sampling options LangChain models report, with their option names. */
const WIRE_OPTIONS: readonly (readonly [string, string])[] = [
  ['temperature', 'temperature'],
  ['top_p', 'topP'],
  ['topP', 'topP'],
  ['top_k', 'topK'],
  ['topK', 'topK'],
  ['max_tokens', 'maxTokens'],
  ['max_completion_tokens', 'maxTokens'],
  ['maxOutputTokens', 'maxTokens'],
  ['num_predict', 'maxTokens'],
  ['seed', 'seed'],
  ['frequency_penalty', 'frequencyPenalty'],
  ['presence_penalty', 'presencePenalty'],
];

const isOption = (v: unknown): boolean => typeof v === 'number' || (Array.isArray(v) && v.length > 0);

/** A describing call must never fail a model call: a model whose introspection throws reports less. */
function safely<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** The server of the model's base URL, from the fields LangChain's providers keep it in. */
function serverOf(model: BaseChatModel): ServerAddress {
  const m = model as unknown as Record<string, unknown>;
  const nested = (key: string) =>
    m[key] && typeof m[key] === 'object' ? (m[key] as Record<string, unknown>)['baseURL'] : undefined;
  const base = [
    m['baseURL'],
    m['baseUrl'],
    m['apiUrl'],
    nested('clientConfig'),
    nested('configuration'),
    nested('clientOptions'),
  ].find((v): v is string => typeof v === 'string' && v.length > 0);
  return base ? serverAddressOf(base) : {};
}

/** Maps LangChain message chunks to block events, summing usage. */
class ChunkMapper {
  private readonly blocks: BlockAssembler;
  private readonly usage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    reasoningTokens: 0,
    cache: false,
    reasoning: false,
  };
  private finishReason: string | undefined;
  private responseModel: string | undefined;
  private responseId: string | undefined;
  /** Tool-call chunk keys (index, else id) to assembler indexes. */
  private readonly callIndex = new Map<string, number>();

  constructor(emit: (e: ModelEvent) => void) {
    this.blocks = new BlockAssembler(emit);
  }

  add(chunk: AIMessageChunk | AIMessage): void {
    const kwargs = chunk.additional_kwargs as { reasoning_content?: unknown } | undefined;
    if (typeof kwargs?.reasoning_content === 'string') this.blocks.thinking(kwargs.reasoning_content);
    this.content(chunk.content);

    const chunks = (chunk as AIMessageChunk).tool_call_chunks;
    if (chunks?.length) {
      for (const c of chunks) {
        this.blocks.toolCall(this.indexOf(c.index, c.id), {
          id: c.id ?? null,
          name: c.name ?? null,
          arguments: c.args ?? null,
        });
      }
    } else {
      for (const c of chunk.tool_calls ?? []) {
        this.blocks.toolCall(this.indexOf(undefined, c.id), {
          id: c.id ?? null,
          name: c.name,
          arguments: JSON.stringify(c.args ?? {}),
        });
      }
      for (const c of chunk.invalid_tool_calls ?? []) {
        this.blocks.toolCall(this.indexOf(undefined, c.id), {
          id: c.id ?? null,
          name: c.name ?? '',
          arguments: c.args ?? '',
        });
      }
    }

    const u = chunk.usage_metadata;
    if (u) {
      this.usage.inputTokens += u.input_tokens ?? 0;
      this.usage.outputTokens += u.output_tokens ?? 0;
      const cache = u.input_token_details?.cache_read;
      const reasoning = u.output_token_details?.reasoning;
      if (typeof cache === 'number') {
        this.usage.cacheReadTokens += cache;
        this.usage.cache = true;
      }
      if (typeof reasoning === 'number') {
        this.usage.reasoningTokens += reasoning;
        this.usage.reasoning = true;
      }
    }
    const meta = chunk.response_metadata as Record<string, unknown> | undefined;
    const finish = meta?.['finish_reason'] ?? meta?.['stop_reason'] ?? meta?.['finishReason'];
    if (typeof finish === 'string' && finish) this.finishReason = finish;
    const model = meta?.['model_name'] ?? meta?.['model'];
    if (typeof model === 'string' && model) this.responseModel = model;
    // The provider's response id (ChatOpenAI: `chatcmpl-...`), not an id LangChain made up for its run.
    const id = (chunk as { id?: unknown }).id;
    if (this.responseId === undefined && typeof id === 'string' && id && !/^(run-|lc_run)/.test(id))
      this.responseId = id;
  }

  end(modelName: string): ModelEvent {
    this.blocks.close();
    const u = this.usage;
    const usage: Usage = {
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      ...(u.cache ? { cacheReadTokens: u.cacheReadTokens } : {}),
      ...(u.reasoning ? { reasoningTokens: u.reasoningTokens } : {}),
    };
    return {
      type: 'MODEL_CALL_END',
      model: modelName,
      usage,
      finishReason: this.finishReason ?? (this.blocks.toolCallCount ? 'tool_calls' : 'stop'),
      ...(this.responseModel ? { responseModel: this.responseModel } : {}),
      ...(this.responseId ? { responseId: this.responseId } : {}),
    };
  }

  private content(content: Content | undefined): void {
    if (typeof content === 'string') {
      this.blocks.text(content);
      return;
    }
    for (const block of content ?? []) {
      const b = block as { type?: unknown; text?: unknown; thinking?: unknown; reasoning?: unknown };
      if ((b.type === 'text' || b.type === 'text_delta') && typeof b.text === 'string') this.blocks.text(b.text);
      else if (b.type === 'thinking' && typeof b.thinking === 'string') this.blocks.thinking(b.thinking);
      else if (b.type === 'reasoning' && typeof b.reasoning === 'string') this.blocks.thinking(b.reasoning);
      // tool_use / input_json_delta blocks are covered by tool_call_chunks
    }
  }

  private indexOf(index: number | undefined, id: string | undefined): number {
    const key = index !== undefined ? `i${index}` : id ? `id:${id}` : `n${this.callIndex.size}`;
    let i = this.callIndex.get(key);
    if (i === undefined) {
      i = this.callIndex.size;
      this.callIndex.set(key, i);
    }
    return i;
  }
}
