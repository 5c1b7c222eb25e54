import { type Attributes, type Exception, type Span, SpanStatusCode } from '@opentelemetry/api';
import type { ErrorInfo, ModelOptions } from '@rxscope/core';

/**
 * Attribute and event names: the OpenTelemetry GenAI semantic conventions (`gen_ai.*`,
 * `error.type`), plus `rxscope.*` for what the conventions have no name for.
 */
export const ATTR = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
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
} as const;

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
  if (typeof options['frequencyPenalty'] === 'number') attributes['gen_ai.request.frequency_penalty'] = options['frequencyPenalty'];
  if (typeof options['presencePenalty'] === 'number') attributes['gen_ai.request.presence_penalty'] = options['presencePenalty'];
  return attributes;
}

/** The exception of an {@link ErrorInfo}, as `recordException` takes it. */
export function exceptionOf(info: ErrorInfo): Exception {
  return info.code !== undefined ? { name: info.name, message: info.message, code: info.code } : { name: info.name, message: info.message };
}

/** What `recordException` takes: the error itself (with its stack), else its text. */
export const asException = (error: unknown): Exception => (error instanceof Error ? error : String(error));

/** Marks a span failed: status `ERROR` with the message, and `error.type` (the error's code, else its name). */
export function markFailed(span: Span, info: ErrorInfo): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: info.message });
  span.setAttribute(ATTR.errorType, info.code ?? (info.name || '_OTHER'));
}

/** JSON text of a value for a content attribute; never throws (cycles, BigInt). */
export function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}
