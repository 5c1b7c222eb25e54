import { SpanKind, trace } from '@opentelemetry/api';
import { type ErrorInfo, type ModelCallInput, type RuntimeContext, toErrorInfo } from '@rxscope/core';
import {
  ATTR,
  genAiFinishReason,
  markFailed,
  reportException,
  requestAttributes,
  requestInfoAttributes,
  structured,
} from './attributes.js';
import { StreamedOutput, toGenAiMessages } from './content.js';
import type { ReplyTrace, SpanRun } from './traced.js';

/**
 * The `chat` span of one model call, a child of the reply span. With retry or fallback layers
 * inside it covers every attempt (`rxscope.model_call.attempts`): a failed attempt that a later
 * one made good leaves no exception; the span fails — status, `error.type` and a
 * `gen_ai.client.operation.exception` log event — only when the call does. Request attributes
 * come from what the model says it sends (`describeRequest`): options in effect, streaming,
 * server address and port.
 */
export function chatSpan(ctx: RuntimeContext, input: ModelCallInput, reply: ReplyTrace, capture: boolean): SpanRun {
  const model = input.model;
  const info = model.describeRequest?.(input);
  const span = reply.tracer.startSpan(
    `chat ${model.modelName}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR.operation]: 'chat',
        [ATTR.provider]: info?.provider ?? model.provider,
        [ATTR.requestModel]: model.modelName,
        [ATTR.agentName]: ctx.agentName,
        ...(reply.conversationId !== undefined ? { [ATTR.conversationId]: reply.conversationId } : {}),
        ...(info ? requestInfoAttributes(info) : requestAttributes(input.options)),
      },
    },
    reply.context,
  );
  const output = capture ? new StreamedOutput() : undefined;
  if (output) {
    const { system, messages } = toGenAiMessages(input.messages);
    span.setAttribute(ATTR.inputMessages, structured(messages));
    if (system.length) span.setAttribute(ATTR.systemInstructions, structured(system));
    if (input.tools.length)
      span.setAttribute(ATTR.toolDefinitions, structured(input.tools.map((t) => ({ type: 'function', ...t }))));
  }
  let attempts = 0;
  let open = false;
  let answered = false;
  const usage = { input: 0, output: 0, cacheRead: 0, reasoning: 0 };
  let finishReason: string | undefined;
  let responseModel: string | undefined;
  let responseId: string | undefined;
  let failed: ErrorInfo | undefined;
  return {
    context: trace.setSpan(reply.context, span),
    event: (e) => {
      switch (e.type) {
        case 'MODEL_CALL_START':
          attempts++;
          open = true;
          output?.reset();
          break;
        case 'MODEL_CALL_END':
          open = false;
          if (e.finishReason === 'error') {
            // No response: no counts, no response model (nothing was reported, nothing is invented).
            failed = e.error ?? { name: 'Error', message: 'the model call failed' };
            break;
          }
          failed = undefined;
          answered = true;
          usage.input += e.usage.inputTokens;
          usage.output += e.usage.outputTokens;
          usage.cacheRead += e.usage.cacheReadTokens ?? 0;
          usage.reasoning += e.usage.reasoningTokens ?? 0;
          finishReason = genAiFinishReason(e.finishReason);
          responseModel = e.responseModel;
          responseId = e.responseId;
          break;
        default:
          output?.add(e);
      }
    },
    end: (outcome) => {
      if (responseModel !== undefined) span.setAttribute(ATTR.responseModel, responseModel);
      if (responseId !== undefined) span.setAttribute(ATTR.responseId, responseId);
      if (!answered && failed) span.setAttribute(ATTR.finishReasons, ['error']);
      if (answered) {
        span.setAttributes({
          [ATTR.finishReasons]: [finishReason!],
          [ATTR.inputTokens]: usage.input,
          [ATTR.outputTokens]: usage.output,
        });
        if (usage.cacheRead) span.setAttribute(ATTR.cacheReadTokens, usage.cacheRead);
        if (usage.reasoning) span.setAttribute(ATTR.reasoningTokens, usage.reasoning);
      }
      if (attempts > 1) span.setAttribute(ATTR.attempts, attempts);
      if (outcome.kind === 'error') {
        const info = failed ?? toErrorInfo(outcome.error);
        reportException(reply.logger, span, failed ?? (outcome.error instanceof Error ? outcome.error : info));
        markFailed(span, info);
      } else if (outcome.kind === 'cancelled' && (open || !answered || failed)) {
        span.setAttribute(ATTR.cancelled, true);
      } else if (failed) {
        reportException(reply.logger, span, failed);
        markFailed(span, failed);
      }
      if (output) span.setAttribute(ATTR.outputMessages, structured([output.message(finishReason)]));
      span.end();
    },
  };
}
