import {
  type Attributes,
  context,
  type Logger,
  SeverityNumber,
  type Span,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { ErrorInfo, ModelOptions, ModelRequestInfo } from '@rxscope/core';

/**
 * Attribute and event names: the OpenTelemetry GenAI semantic conventions (`gen_ai.*`,
 * `error.type`), plus `rxscope.*` for what the conventions have no name for.
 */
export const ATTR = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  /** The user the reply acts for (`ctx.userId`), from the OTel general conventions. */
  userId: 'user.id',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  reasoningTokens: 'gen_ai.usage.reasoning.output_tokens',
  requestStream: 'gen_ai.request.stream',
  responseId: 'gen_ai.response.id',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  exceptionType: 'exception.type',
  exceptionMessage: 'exception.message',
  exceptionStacktrace: 'exception.stacktrace',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolDescription: 'gen_ai.tool.description',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  toolDefinitions: 'gen_ai.tool.definitions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  errorType: 'error.type',
  replyId: 'rxscope.reply.id',
  replyFinishReason: 'rxscope.reply.finish_reason',
  replyIterations: 'rxscope.reply.iterations',
  cancelled: 'rxscope.cancelled',
  attempts: 'rxscope.model_call.attempts',
  toolStatus: 'rxscope.tool.status',
  permissionReason: 'rxscope.permission.reason',
  confirmed: 'rxscope.tool_call.confirmed',
  alwaysAllow: 'rxscope.tool_call.always_allow',
  editedInput: 'rxscope.tool_call.edited_input',
  externalError: 'rxscope.tool_call.is_error',
  toolExternal: 'rxscope.tool.external',
  toolConfirmed: 'rxscope.tool.confirmed',
} as const;

/** The log event an operation's failure is reported as (span exception events are deprecated there). */
export const EXCEPTION_EVENT = 'gen_ai.client.operation.exception';

/** Names of the span events recorded on the reply span. */
export const EVENT = {
  awaitingConfirmation: 'rxscope.tool_call.awaiting_confirmation',
  awaitingExternal: 'rxscope.tool_call.awaiting_external_execution',
  confirmationResult: 'rxscope.tool_call.confirmation_result',
  externalResult: 'rxscope.tool_call.external_result',
  answeredWithoutRunning: 'rxscope.tool_call.answered',
} as const;

/** Sampling options of a model call as `gen_ai.request.*` attributes (only those set). */
export function requestAttributes(options: ModelOptions): Attributes {
  const attributes: Attributes = {};
  if (typeof options.temperature === 'number') attributes['gen_ai.request.temperature'] = options.temperature;
  if (typeof options.topP === 'number') attributes['gen_ai.request.top_p'] = options.topP;
  if (typeof options.maxTokens === 'number') attributes['gen_ai.request.max_tokens'] = options.maxTokens;
  if (typeof options.seed === 'number') attributes['gen_ai.request.seed'] = options.seed;
  if (options.stop?.length) attributes['gen_ai.request.stop_sequences'] = [...options.stop];
  if (typeof options['frequencyPenalty'] === 'number')
    attributes['gen_ai.request.frequency_penalty'] = options['frequencyPenalty'];
  if (typeof options['presencePenalty'] === 'number')
    attributes['gen_ai.request.presence_penalty'] = options['presencePenalty'];
  return attributes;
}

/** What a model call sends (`ChatModel.describeRequest`) as `gen_ai.request.*`, `server.*` attributes. */
export function requestInfoAttributes(info: ModelRequestInfo): Attributes {
  return {
    ...(info.options ? requestAttributes(info.options) : {}),
    ...(info.stream !== undefined ? { [ATTR.requestStream]: info.stream } : {}),
    ...(info.serverAddress !== undefined ? { [ATTR.serverAddress]: info.serverAddress } : {}),
    ...(info.serverPort !== undefined ? { [ATTR.serverPort]: info.serverPort } : {}),
  };
}

/**
 * A finish reason as the GenAI conventions spell it (`stop`, `length`, `content_filter`,
 * `tool_call`, `error`); a reason they have no value for is kept as the provider gave it.
 */
export function genAiFinishReason(raw: string): string {
  switch (raw) {
    case 'stop':
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_calls':
    case 'tool_use':
    case 'function_call':
    case 'tool_call':
      return 'tool_call';
    case 'length':
    case 'max_tokens':
      return 'length';
    case 'content_filter':
    case 'error':
      return raw;
    default:
      return raw;
  }
}

/**
 * Reports the failure of the operation of `span` as a `gen_ai.client.operation.exception` log
 * event in the span's context (`exception.type`, `exception.message`, `exception.stacktrace`,
 * `error.type`).
 */
export function reportException(logger: Logger, span: Span, error: ErrorInfo | Error): void {
  const info: ErrorInfo =
    error instanceof Error ? { name: error.name, message: error.message, ...codeOf(error) } : error;
  logger.emit({
    eventName: EXCEPTION_EVENT,
    severityNumber: SeverityNumber.WARN,
    context: trace.setSpan(context.active(), span),
    attributes: {
      [ATTR.exceptionType]: info.name,
      [ATTR.exceptionMessage]: info.message,
      ...(error instanceof Error && error.stack ? { [ATTR.exceptionStacktrace]: error.stack } : {}),
      [ATTR.errorType]: errorType(info),
    },
  });
}

function codeOf(error: Error): { code?: string } {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? { code } : {};
}

/** The low-cardinality `error.type` of a failure: its code, else its class name. */
export function errorType(info: ErrorInfo): string {
  return info.code ?? (info.name || '_OTHER');
}

/** A value as a structured attribute (plain JSON data: what survives a JSON round trip). */
export function structured(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value) ?? 'null') as unknown;
  } catch {
    return String(value); // cycles, BigInt
  }
}

/** Marks a span failed: status `ERROR` with the message, and `error.type` (the error's code, else its name). */
export function markFailed(span: Span, info: ErrorInfo): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: info.message });
  span.setAttribute(ATTR.errorType, errorType(info));
}

/** JSON text of a value for a content attribute; never throws (cycles, BigInt). */
export function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}
