import { SpanKind, trace } from '@opentelemetry/api';
import { type ErrorInfo, type ModelCallInput, type RuntimeContext, toErrorInfo } from '@rxscope/core';
import { asException, ATTR, exceptionOf, json, markFailed, requestAttributes } from './attributes.js';
import { StreamedOutput, toGenAiMessages } from './content.js';
import type { ReplyTrace, SpanRun } from './traced.js';

/**
 * The `chat` span of one model call, a child of the reply span. With retry or fallback layers
 * inside it covers every attempt: a failed attempt is an `exception` event, and the span fails
 * only when the call does.
 */
export function chatSpan(ctx: RuntimeContext, input: ModelCallInput, reply: ReplyTrace, capture: boolean): SpanRun {
  const model = input.model;
  const span = reply.tracer.startSpan(
    `chat ${model.modelName}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR.operation]: 'chat',
        [ATTR.provider]: model.provider,
        [ATTR.requestModel]: model.modelName,
        [ATTR.agentName]: ctx.agentName,
        [ATTR.conversationId]: ctx.sessionId,
        ...requestAttributes(input.options),
      },
    },
    reply.context,
  );
  const output = capture ? new StreamedOutput() : undefined;
  if (output) {
    const { system, messages } = toGenAiMessages(input.messages);
    span.setAttribute(ATTR.inputMessages, json(messages));
    if (system.length) span.setAttribute(ATTR.systemInstructions, json(system));
    if (input.tools.length) span.setAttribute(ATTR.toolDefinitions, json(input.tools.map((t) => ({ type: 'function', ...t }))));
  }
  let attempts = 0;
  let open = false;
  let usage = { input: 0, output: 0, cacheRead: 0 };
  let finishReason: string | undefined;
  let responseModel: string | undefined;
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
          usage = {
            input: usage.input + e.usage.inputTokens,
            output: usage.output + e.usage.outputTokens,
            cacheRead: usage.cacheRead + (e.usage.cacheReadTokens ?? 0),
          };
          finishReason = e.finishReason;
          responseModel = e.responseModel ?? e.model;
          failed = e.finishReason === 'error' ? (e.error ?? { name: 'Error', message: 'the model call failed' }) : undefined;
          if (failed) span.recordException(exceptionOf(failed));
          break;
        default:
          output?.add(e);
      }
    },
    end: (outcome) => {
      if (responseModel !== undefined) span.setAttribute(ATTR.responseModel, responseModel);
      if (finishReason !== undefined) {
        span.setAttributes({ [ATTR.finishReasons]: [finishReason], [ATTR.inputTokens]: usage.input, [ATTR.outputTokens]: usage.output });
        if (usage.cacheRead) span.setAttribute(ATTR.cacheReadTokens, usage.cacheRead);
      }
      if (attempts > 1) span.setAttribute(ATTR.attempts, attempts);
      if (outcome.kind === 'error') {
        // A failed attempt already recorded its exception from MODEL_CALL_END {error}.
        if (!failed) span.recordException(asException(outcome.error));
        markFailed(span, failed ?? toErrorInfo(outcome.error));
      } else if (outcome.kind === 'cancelled' && (open || finishReason === undefined || failed)) {
        span.setAttribute(ATTR.cancelled, true);
      } else if (failed) {
        markFailed(span, failed);
      }
      if (output) span.setAttribute(ATTR.outputMessages, json([output.message(finishReason)]));
      span.end();
    },
  };
}
