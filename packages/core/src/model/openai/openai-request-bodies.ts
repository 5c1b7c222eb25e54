import type { ChatOpenAICompletions, OpenAIClient } from '@langchain/openai';
import type { ModelOptions, ModelRequest, ModelRequestInfo, ToolSchema } from '../chat-model.js';
import type { OpenAIChatModelOptions } from './openai-chat-model-options.js';
import { type ServerAddress, serverAddressOf } from '../server-address.js';
import { toOpenAIMessages, toOpenAITool, toOpenAIToolChoice, type ToOpenAIMessagesOptions } from './openai-messages.js';

type CreateParams = OpenAIClient.Chat.ChatCompletionCreateParams;

/** Camel-case request options we translate; any other key of {@link ModelOptions} is sent as is. */
const OPTION_NAMES: Readonly<Record<string, string>> = {
  topP: 'top_p',
  frequencyPenalty: 'frequency_penalty',
  presencePenalty: 'presence_penalty',
  parallelToolCalls: 'parallel_tool_calls',
  reasoningEffort: 'reasoning_effort',
  responseFormat: 'response_format',
  logitBias: 'logit_bias',
};

/** Wire names of the sampling options {@link OpenAIChatModel.describeRequest} reports, with their option names. */
const WIRE_OPTIONS: readonly (readonly [string, string])[] = [
  ['temperature', 'temperature'],
  ['top_p', 'topP'],
  ['max_tokens', 'maxTokens'],
  ['max_completion_tokens', 'maxTokens'],
  ['stop', 'stop'],
  ['seed', 'seed'],
  ['frequency_penalty', 'frequencyPenalty'],
  ['presence_penalty', 'presencePenalty'],
];

/** Wire form of each tool schema, computed once per schema (tools are the same objects every call). */
const wireTools = new WeakMap<ToolSchema, ReturnType<typeof toOpenAITool>>();
function openAITool(tool: ToolSchema): ReturnType<typeof toOpenAITool> {
  let wire = wireTools.get(tool);
  if (!wire) wireTools.set(tool, (wire = toOpenAITool(tool)));
  return wire;
}

/**
 * The request bodies of one {@link OpenAIChatModel}: ChatOpenAI's invocation params (computed once
 * per mode) with each request's messages, tools and options laid over them, and the description
 * of a request its `MODEL_CALL_START` carries.
 */
export class OpenAIRequestBodies {
  private streamBase: Readonly<Record<string, unknown>> | undefined;
  private onceBase: Readonly<Record<string, unknown>> | undefined;
  private maxTokensKey: 'max_tokens' | 'max_completion_tokens' = 'max_tokens';
  private messageOptions: ToOpenAIMessagesOptions = {};

  constructor(
    private readonly options: OpenAIChatModelOptions,
    private readonly completions: ChatOpenAICompletions,
    private readonly provider: string,
    private readonly streaming: boolean,
  ) {}

  /** {@link OpenAIChatModel.describeRequest}: the server, whether it streams, the sampling options in effect. */
  describe(request: Omit<ModelRequest, 'signal'>): ModelRequestInfo {
    // The description depends on the request's options alone: an agent passes the same object to every call.
    const last = this.described;
    if (last?.options === request.options) return last.info;
    const base = this.baseParams(this.streaming);
    const sent: Record<string, unknown> = {};
    for (const [wire, name] of WIRE_OPTIONS) if (base[wire] !== undefined) sent[name] = base[wire];
    for (const key in request.options) if (request.options[key] !== undefined) sent[key] = request.options[key];
    const info: ModelRequestInfo = { provider: this.provider, ...this.server(), stream: this.streaming, options: sent };
    this.described = { options: request.options, info };
    return info;
  }

  private described: { readonly options: ModelOptions; readonly info: ModelRequestInfo } | undefined;

  private server(): ServerAddress {
    // Parsed once: it is part of every call's MODEL_CALL_START.
    return (this.serverInfo ??= this.parseServer());
  }

  private serverInfo: ServerAddress | undefined;

  private parseServer(): ServerAddress {
    return serverAddressOf(this.options.baseURL ?? this.options.configuration?.baseURL ?? 'https://api.openai.com/v1');
  }

  /**
   * ChatOpenAI's invocation params for this model without per-call options (model, sampling
   * fields, `stream_options`, `max_tokens`/`max_completion_tokens`, `modelKwargs`), computed once
   * per mode; undefined fields dropped.
   */
  private baseParams(stream: boolean): Readonly<Record<string, unknown>> {
    const cached = stream ? this.streamBase : this.onceBase;
    if (cached) return cached;
    const params: Record<string, unknown> = {};
    const all = this.completions.invocationParams(undefined, { streaming: stream });
    // ChatOpenAI sets one of the two keys (maybe undefined): max_completion_tokens for reasoning models.
    this.maxTokensKey = 'max_completion_tokens' in all ? 'max_completion_tokens' : 'max_tokens';
    // The same test ChatOpenAI uses to send system messages as `developer` messages.
    this.messageOptions = {
      sendReasoning: this.options.sendReasoning ?? false,
      systemRole: this.maxTokensKey === 'max_completion_tokens' ? 'developer' : 'system',
    };
    for (const [key, value] of Object.entries(all)) {
      if (value !== undefined) params[key] = value;
    }
    if (!stream) delete params['stream_options'];
    // seed is a per-call option in ChatOpenAI; ours may also come from the constructor.
    if (this.options.seed !== undefined) params['seed'] = this.options.seed;
    if (stream) this.streamBase = params;
    else this.onceBase = params;
    return params;
  }

  /**
   * The request body: the base params plus what ChatOpenAI's `invocationParams` adds per call
   * (tools, `tool_choice`, `stop`, `seed`), our messages, and the request's sampling options.
   */
  body(request: ModelRequest, stream: true): OpenAIClient.Chat.ChatCompletionCreateParamsStreaming;
  body(request: ModelRequest, stream: false): OpenAIClient.Chat.ChatCompletionCreateParamsNonStreaming;
  body(request: ModelRequest, stream: boolean): CreateParams {
    const base = this.baseParams(stream);
    const params: Record<string, unknown> = {
      ...base,
      messages: toOpenAIMessages(request.messages, this.messageOptions),
      stream,
    };
    if (request.tools.length) {
      params['tools'] = request.tools.map(openAITool);
      params['tool_choice'] = toOpenAIToolChoice(request.toolChoice);
    }
    const format = request.responseFormat;
    if (format) {
      // The shape ChatOpenAI sends for `response_format` with `method: 'jsonSchema'`.
      params['response_format'] = {
        type: 'json_schema',
        json_schema: { name: format.name, schema: format.schema, strict: format.strict },
      };
    }
    const o = request.options;
    for (const key in o) {
      const value = o[key];
      if (value === undefined) continue;
      switch (key) {
        case 'stop':
          params['stop'] = [...(value as readonly string[])];
          break;
        case 'maxTokens':
          params[this.maxTokensKey] = value;
          break;
        case 'temperature':
        case 'seed':
          params[key] = value;
          break;
        default:
          params[OPTION_NAMES[key] ?? key] = value;
      }
    }
    return params as unknown as CreateParams;
  }
}
