import { isValidSpanId, isValidTraceId, type Link, type Span } from '@opentelemetry/api';
import {
  type AgentEventOf,
  type AgentHandle,
  type AgentInput,
  createReplyReducer,
  type ErrorInfo,
  type RuntimeContext,
  type StateSlot,
  toErrorInfo,
} from '@rxscope/core';
import { ATTR, EVENT, genAiFinishReason, markFailed, reportException, structured } from './attributes.js';
import { toGenAiMessages, toOutputMessage } from './content.js';
import { externalToolSpan } from './tool-span.js';
import type { PausedCall, ReplyTrace, SpanRun } from './traced.js';

/** The reply span of a suspended reply, persisted so that the resumed reply links to it. */
export interface SuspendedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  /** The calls the reply waits on, since when (their `execute_tool` spans start there). */
  readonly calls?: readonly PausedCall[];
}

/** A link to the span of the suspended reply this one resumes (kept in the agent's state; checked, since state is data). */
export function linkToSuspended(suspended: SuspendedSpan | undefined): Link[] | undefined {
  if (!suspended || !isValidTraceId(suspended.traceId) || !isValidSpanId(suspended.spanId)) return undefined;
  const { traceId, spanId, traceFlags } = suspended;
  const flags = typeof traceFlags === 'number' ? traceFlags : 0;
  return [
    {
      context: { traceId, spanId, traceFlags: flags, isRemote: true },
      attributes: { 'rxscope.link.type': 'suspended_reply' },
    },
  ];
}

/**
 * The `invoke_agent` span of one reply: calls waiting for confirmation or external execution,
 * resume answers and calls answered without running as span events; the reply's usage, finish
 * reason and failure at its end. `stateKey` is the middleware's state key (the suspended span is
 * kept there).
 */
export function replySpan(
  agent: AgentHandle,
  ctx: RuntimeContext,
  input: AgentInput,
  span: Span,
  reply: ReplyTrace,
  capture: boolean,
  stateKey: string,
): SpanRun {
  const slot = ctx.state<SuspendedSpan>(stateKey);
  const saved = slot.get();
  if (saved !== undefined) slot.delete(); // linked at the span's start, or stale
  if (input.resume) for (const call of pausedCalls(saved)) reply.paused.set(call.id, call);
  if (capture && input.messages.length)
    span.setAttribute(ATTR.inputMessages, structured(toGenAiMessages(input.messages).messages));
  const reducer = capture ? createReplyReducer({ source: agent.name }) : undefined;
  let finishReason: string | undefined;
  let modelFinish: string | undefined; // the last answered model call's, as the conventions spell it
  return {
    context: reply.context,
    event: (e) => {
      if (e.source !== agent.name) return; // a subagent's events: its own middlewares trace them
      reducer?.apply(e);
      switch (e.type) {
        case 'MODEL_CALL_END':
          if (e.finishReason !== 'error') modelFinish = genAiFinishReason(e.finishReason);
          break;
        case 'REQUIRE_USER_CONFIRM':
        case 'REQUIRE_EXTERNAL_EXECUTION':
        case 'USER_CONFIRM_RESULT':
        case 'EXTERNAL_EXECUTION_RESULT':
          addPauseEvents(span, e, capture, slot);
          if (e.type === 'EXTERNAL_EXECUTION_RESULT')
            for (const r of e.results) {
              const call = reply.paused.get(r.toolCallId);
              if (call?.kind === 'external') externalToolSpan(ctx, reply, call, r);
            }
          break;
        case 'TOOL_RESULT_END':
          if (!reply.executed.has(e.toolCallId)) {
            span.addEvent(EVENT.answeredWithoutRunning, {
              [ATTR.toolCallId]: e.toolCallId,
              [ATTR.toolStatus]: e.status,
            });
          }
          break;
        case 'REPLY_END':
          finishReason = e.finishReason;
          span.setAttribute(ATTR.replyFinishReason, e.finishReason);
          if (e.usage) {
            span.setAttributes({ [ATTR.inputTokens]: e.usage.inputTokens, [ATTR.outputTokens]: e.usage.outputTokens });
            if (e.usage.reasoningTokens) span.setAttribute(ATTR.reasoningTokens, e.usage.reasoningTokens);
          }
          span.setAttribute(ATTR.finishReasons, [replyFinish(e.finishReason, modelFinish)]);
          if (e.finishReason === 'error') {
            const info: ErrorInfo = e.error ?? { name: 'Error', message: 'the reply failed' };
            reportException(reply.logger, span, info);
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
        reportException(
          reply.logger,
          span,
          outcome.error instanceof Error ? outcome.error : toErrorInfo(outcome.error),
        );
        markFailed(span, toErrorInfo(outcome.error));
      } else if (outcome.kind === 'cancelled' && finishReason === undefined) {
        span.setAttribute(ATTR.cancelled, true);
      }
      if (reducer) {
        const finish =
          finishReason !== undefined
            ? replyFinish(finishReason, modelFinish)
            : outcome.kind === 'error'
              ? 'error'
              : undefined;
        span.setAttribute(ATTR.outputMessages, structured([toOutputMessage(reducer.message(), finish)]));
      }
      span.end();
    },
  };
}

/**
 * A pause of the reply as span events: each call waiting for a confirmation or an external
 * result, then each answer when the reply resumes. The span's context is saved in the
 * middleware state at the pause, so a resume (in this process or another) links to it.
 */
function addPauseEvents(
  span: Span,
  e: AgentEventOf<
    'REQUIRE_USER_CONFIRM' | 'REQUIRE_EXTERNAL_EXECUTION' | 'USER_CONFIRM_RESULT' | 'EXTERNAL_EXECUTION_RESULT'
  >,
  capture: boolean,
  slot: StateSlot<SuspendedSpan>,
): void {
  switch (e.type) {
    case 'REQUIRE_USER_CONFIRM':
    case 'REQUIRE_EXTERNAL_EXECUTION': {
      const name = e.type === 'REQUIRE_USER_CONFIRM' ? EVENT.awaitingConfirmation : EVENT.awaitingExternal;
      for (const call of e.toolCalls) {
        span.addEvent(name, {
          [ATTR.toolCallId]: call.id,
          [ATTR.toolName]: call.name,
          ...(call.reason !== undefined ? { [ATTR.permissionReason]: call.reason } : {}),
          ...(capture ? { [ATTR.toolArguments]: structured(call.input) } : {}),
        });
      }
      // Saved before the agent stores its state, so a resume in another process links too.
      const { traceId, spanId, traceFlags } = span.spanContext();
      const kind = e.type === 'REQUIRE_USER_CONFIRM' ? 'confirm' : 'external';
      const before = slot.get();
      const calls = [
        ...(before?.spanId === spanId ? pausedCalls(before) : []),
        ...e.toolCalls.map((c) => ({ id: c.id, name: c.name, kind, at: Date.now() }) as const),
      ];
      slot.set({ traceId, spanId, traceFlags, calls });
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
        span.addEvent(EVENT.externalResult, {
          [ATTR.toolCallId]: r.toolCallId,
          [ATTR.externalError]: r.isError === true,
        });
      }
      break;
  }
}

/**
 * A reply's finish reason as the GenAI conventions spell it: `error` for a failed reply,
 * `tool_call` for one waiting for tool answers, else the last model call's (`stop`, `length`, ...).
 */
function replyFinish(reason: string, lastModelCall: string | undefined): string {
  if (reason === 'error') return 'error';
  if (reason === 'awaiting_confirmation' || reason === 'awaiting_external_execution') return 'tool_call';
  if (reason === 'max_iters') return lastModelCall ?? 'length';
  return lastModelCall ?? 'stop';
}

/** The paused calls of a saved span (checked: state is data). */
function pausedCalls(saved: SuspendedSpan | undefined): PausedCall[] {
  const calls: unknown = saved?.calls;
  if (!Array.isArray(calls)) return [];
  return calls.filter(
    (c: Partial<PausedCall> | null): c is PausedCall =>
      typeof c?.id === 'string' &&
      typeof c.name === 'string' &&
      (c.kind === 'confirm' || c.kind === 'external') &&
      typeof c.at === 'number' &&
      Number.isFinite(c.at),
  );
}
