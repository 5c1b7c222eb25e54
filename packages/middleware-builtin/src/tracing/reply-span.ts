import { isValidSpanId, isValidTraceId, type Link, type Span } from '@opentelemetry/api';
import { type Agent, type AgentInput, createReplyReducer, type ErrorInfo, type RuntimeContext, toErrorInfo } from '@rxscope/core';
import { asException, ATTR, EVENT, exceptionOf, json, markFailed } from './attributes.js';
import { toGenAiMessages, toOutputMessage } from './content.js';
import type { ReplyTrace, SpanRun } from './traced.js';

/** The reply span of a suspended reply, persisted so that the resumed reply links to it. */
export interface SuspendedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
}

/** A link to the span of the suspended reply this one resumes (kept in the agent's state; checked, since state is data). */
export function linkToSuspended(suspended: SuspendedSpan | undefined): Link[] | undefined {
  if (!suspended || !isValidTraceId(suspended.traceId) || !isValidSpanId(suspended.spanId)) return undefined;
  const { traceId, spanId, traceFlags } = suspended;
  const flags = typeof traceFlags === 'number' ? traceFlags : 0;
  return [{ context: { traceId, spanId, traceFlags: flags, isRemote: true }, attributes: { 'rxscope.link.type': 'suspended_reply' } }];
}

/**
 * The `invoke_agent` span of one reply: calls waiting for confirmation or external execution,
 * resume answers and calls answered without running as span events; the reply's usage, finish
 * reason and failure at its end. `stateKey` is the middleware's state key (the suspended span is
 * kept there).
 */
export function replySpan(
  agent: Agent,
  ctx: RuntimeContext,
  input: AgentInput,
  span: Span,
  reply: ReplyTrace,
  capture: boolean,
  stateKey: string,
): SpanRun {
  const slot = ctx.state<SuspendedSpan>(stateKey);
  if (slot.get() !== undefined) slot.delete(); // linked at the span's start, or stale
  if (capture && input.messages.length) span.setAttribute(ATTR.inputMessages, json(toGenAiMessages(input.messages).messages));
  const reducer = capture ? createReplyReducer({ source: agent.name }) : undefined;
  let finishReason: string | undefined;
  return {
    context: reply.context,
    event: (e) => {
      if (e.source !== agent.name) return; // a subagent's events: its own middlewares trace them
      reducer?.apply(e);
      switch (e.type) {
        case 'REQUIRE_USER_CONFIRM':
        case 'REQUIRE_EXTERNAL_EXECUTION': {
          const name = e.type === 'REQUIRE_USER_CONFIRM' ? EVENT.awaitingConfirmation : EVENT.awaitingExternal;
          for (const call of e.toolCalls) {
            span.addEvent(name, {
              [ATTR.toolCallId]: call.id,
              [ATTR.toolName]: call.name,
              ...(call.reason !== undefined ? { [ATTR.permissionReason]: call.reason } : {}),
              ...(capture ? { [ATTR.toolArguments]: json(call.input) } : {}),
            });
          }
          // Saved before the agent stores its state, so a resume in another process links too.
          const { traceId, spanId, traceFlags } = span.spanContext();
          slot.set({ traceId, spanId, traceFlags });
          break;
        }
        case 'USER_CONFIRM_RESULT':
          for (const r of e.results) {
            span.addEvent(EVENT.confirmationResult, {
              [ATTR.toolCallId]: r.toolCallId,
              [ATTR.confirmed]: r.confirmed,
              ...(r.alwaysAllow ? { [ATTR.alwaysAllow]: true } : {}),
              ...(r.input !== undefined ? { [ATTR.editedInput]: true } : {}),
            });
          }
          break;
        case 'EXTERNAL_EXECUTION_RESULT':
          for (const r of e.results) {
            span.addEvent(EVENT.externalResult, { [ATTR.toolCallId]: r.toolCallId, [ATTR.externalError]: r.isError === true });
          }
          break;
        case 'TOOL_RESULT_END':
          if (!reply.executed.has(e.toolCallId)) {
            span.addEvent(EVENT.answeredWithoutRunning, { [ATTR.toolCallId]: e.toolCallId, [ATTR.toolStatus]: e.status });
          }
          break;
        case 'REPLY_END':
          finishReason = e.finishReason;
          span.setAttribute(ATTR.replyFinishReason, e.finishReason);
          if (e.usage) span.setAttributes({ [ATTR.inputTokens]: e.usage.inputTokens, [ATTR.outputTokens]: e.usage.outputTokens });
          if (e.finishReason === 'error') {
            const info: ErrorInfo = e.error ?? { name: 'Error', message: 'the reply failed' };
            span.recordException(exceptionOf(info));
            markFailed(span, info);
          }
          break;
        default:
          break;
      }
    },
    end: (outcome) => {
      span.setAttribute(ATTR.replyIterations, ctx.iteration);
      if (outcome.kind === 'error') {
        span.recordException(asException(outcome.error));
        markFailed(span, toErrorInfo(outcome.error));
      } else if (outcome.kind === 'cancelled' && finishReason === undefined) {
        span.setAttribute(ATTR.cancelled, true);
      }
      if (reducer) span.setAttribute(ATTR.outputMessages, json([toOutputMessage(reducer.message(), finishReason ?? outcome.kind)]));
      span.end();
    },
  };
}
