import { SpanKind, trace } from '@opentelemetry/api';
import {
  type ActingInput,
  type ErrorInfo,
  type RuntimeContext,
  toErrorInfo,
  type ToolResultEndEvent,
} from '@rxscope/core';
import { ATTR, markFailed, reportException, structured } from './attributes.js';
import { resultText } from './content.js';
import type { PausedCall, ReplyTrace, SpanRun } from './traced.js';

/** The `execute_tool` span of one tool call, a child of the reply span. */
export function toolSpan(ctx: RuntimeContext, input: ActingInput, reply: ReplyTrace, capture: boolean): SpanRun {
  const { toolCall, tool } = input;
  reply.executed.add(toolCall.id);
  // A confirmed call: its span covers the wait for the person too.
  const paused = reply.paused.get(toolCall.id);
  const confirmed = paused?.kind === 'confirm';
  const span = reply.tracer.startSpan(
    `execute_tool ${tool.name}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [ATTR.operation]: 'execute_tool',
        [ATTR.toolName]: tool.name,
        [ATTR.toolCallId]: toolCall.id,
        [ATTR.toolDescription]: tool.description,
        [ATTR.toolType]: 'function',
        [ATTR.agentName]: ctx.agentName,
        ...(reply.conversationId !== undefined ? { [ATTR.conversationId]: reply.conversationId } : {}),
        ...(capture ? { [ATTR.toolArguments]: structured(input.input) } : {}),
        ...(confirmed ? { [ATTR.toolConfirmed]: true } : {}),
      },
      ...(confirmed ? { startTime: paused.at } : {}),
    },
    reply.context,
  );
  let result: ToolResultEndEvent | undefined;
  return {
    context: trace.setSpan(reply.context, span),
    event: (e) => {
      if (e.type === 'TOOL_RESULT_END' && e.toolCallId === toolCall.id) result = e;
    },
    end: (outcome) => {
      if (result) {
        span.setAttribute(ATTR.toolStatus, result.status);
        if (result.status === 'success' && capture) span.setAttribute(ATTR.toolResult, resultText(result.output));
        if (result.status === 'error') {
          const info: ErrorInfo = { name: 'ToolError', message: resultText(result.output), code: 'tool_error' };
          reportException(reply.logger, span, info);
          markFailed(span, info);
        }
      }
      if (outcome.kind === 'error') {
        reportException(
          reply.logger,
          span,
          outcome.error instanceof Error ? outcome.error : toErrorInfo(outcome.error),
        );
        markFailed(span, toErrorInfo(outcome.error));
      } else if (outcome.kind === 'cancelled' && !result) {
        span.setAttribute(ATTR.cancelled, true);
      }
      span.end();
    },
  };
}

/**
 * The `execute_tool` span of a call executed outside the agent: from the suspension that handed
 * it to its executor to the result the resume brought (`rxscope.tool.external`).
 */
export function externalToolSpan(
  ctx: RuntimeContext,
  reply: ReplyTrace,
  call: PausedCall,
  result: { readonly isError?: boolean },
): void {
  const span = reply.tracer.startSpan(
    `execute_tool ${call.name}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: call.at,
      attributes: {
        [ATTR.operation]: 'execute_tool',
        [ATTR.toolName]: call.name,
        [ATTR.toolCallId]: call.id,
        [ATTR.toolType]: 'function',
        [ATTR.agentName]: ctx.agentName,
        ...(reply.conversationId !== undefined ? { [ATTR.conversationId]: reply.conversationId } : {}),
        [ATTR.toolExternal]: true,
        [ATTR.toolStatus]: result.isError === true ? 'error' : 'success',
      },
    },
    reply.context,
  );
  if (result.isError === true)
    markFailed(span, { name: 'ToolError', message: 'the external execution failed', code: 'tool_error' });
  span.end();
}
