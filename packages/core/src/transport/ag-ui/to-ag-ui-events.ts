import { EventType, type BaseEvent, type Interrupt, type TokenUsage } from '@ag-ui/core';
import { concatMap, defer, from, type Observable, type OperatorFunction } from 'rxjs';
import type { AgentEvent, ToolResultEndEvent } from '../../event/events.js';

/** Options of {@link toAgUiEvents}. */
export interface ToAgUiEventsOptions {
  /** The AG-UI thread (conversation). Default: the `sessionId` of `REPLY_START`, else the reply id. */
  readonly threadId?: string;
  /** The AG-UI run id. Default: the reply id. */
  readonly runId?: string;
  /** The agent whose events are mapped; events of other sources (subagents) become `CUSTOM`. Default: the source of the first `REPLY_START`. */
  readonly source?: string;
}

/** Prefix of the `CUSTOM` events that carry rxscope events with no AG-UI equivalent. */
export const AG_UI_CUSTOM_PREFIX = 'rxscope.';

/**
 * Maps one rxscope reply to AG-UI events, so AG-UI frontends (CopilotKit and others) render it
 * unchanged:
 *
 * | rxscope | AG-UI |
 * | --- | --- |
 * | `REPLY_START` | `RUN_STARTED {threadId, runId}` |
 * | `MODEL_CALL_START` / `MODEL_CALL_END` | `STEP_STARTED` / `STEP_FINISHED` (`stepName` `model_call_<n>`) |
 * | `TEXT_BLOCK_START/DELTA/END` | `TEXT_MESSAGE_START/CONTENT/END` (one assistant message per model call) |
 * | `THINKING_BLOCK_START/DELTA/END` | `REASONING_START`, `REASONING_MESSAGE_START/CONTENT/END`, `REASONING_END` |
 * | `TOOL_CALL_START/DELTA/END` | `TOOL_CALL_START/ARGS/END` (`parentMessageId`: the call's assistant message) |
 * | `TOOL_RESULT_END` | `TOOL_CALL_RESULT` (text output; `metadata.rxscope.status`, and `metadata.rxscope.value` for a returned object) |
 * | `TOOL_PROGRESS` | `CUSTOM {name: 'rxscope.tool_progress', value: {toolCallId, message, progress?, total?}}` |
 * | `REPLY_END` completed / max_iters | `RUN_FINISHED {outcome: success}` with `usage` per model call |
 * | `REPLY_END` awaiting_confirmation | `RUN_FINISHED {outcome: interrupt}`, one interrupt per call (`id` = `toolCallId`, reason `tool_call_confirmation`) |
 * | `REPLY_END` awaiting_external_execution | `RUN_FINISHED {outcome: success, pendingToolCallIds}` |
 * | `REPLY_END` interrupted | `RUN_FINISHED {outcome: cancelled}` |
 * | `REPLY_END` error | `RUN_ERROR {message, code}` |
 * | anything else (`CUSTOM`, `HINT_BLOCK`, data blocks, result deltas, HITL events, subagent events) | `CUSTOM {name: 'rxscope.<TYPE>' (or the CUSTOM's own name), value}` |
 *
 * @example
 * ```ts
 * agent.reply('Hi').pipe(toAgUiEvents({ threadId: 'thread-1', runId: 'run-1' })).subscribe(sendToAgUiClient);
 * ```
 */
export function toAgUiEvents(options: ToAgUiEventsOptions = {}): OperatorFunction<AgentEvent, BaseEvent> {
  return (source$: Observable<AgentEvent>) =>
    defer(() => {
      const mapper = new AgUiMapper(options);
      return source$.pipe(concatMap((event) => from(mapper.map(event))));
    });
}

class AgUiMapper {
  private source: string | undefined;
  private threadId: string | undefined;
  private runId: string | undefined;
  private steps = 0;
  private messageId: string | undefined;
  private readonly toolCalls = new Map<string, string>(); // blockId -> toolCallId
  private readonly usage: TokenUsage[] = [];
  private interrupts: Interrupt[] = [];
  private pendingExternal: string[] = [];

  constructor(private readonly options: ToAgUiEventsOptions) {
    this.source = options.source;
  }

  map(event: AgentEvent): BaseEvent[] {
    if (this.source === undefined && event.type === 'REPLY_START') this.source = event.source;
    if (event.source !== this.source) return [this.custom(event)];
    const ts = { timestamp: event.createdAt };
    switch (event.type) {
      case 'REPLY_START':
        this.threadId = this.options.threadId ?? event.sessionId ?? event.replyId;
        this.runId = this.options.runId ?? event.replyId;
        return [{ type: EventType.RUN_STARTED, threadId: this.threadId, runId: this.runId, ...ts }];
      case 'MODEL_CALL_START':
        this.messageId = `${event.replyId}:${event.id}`;
        return [{ type: EventType.STEP_STARTED, stepName: `model_call_${++this.steps}`, ...ts }];
      case 'MODEL_CALL_END':
        this.usage.push({
          model: event.responseModel ?? event.model,
          inputTokens: event.usage.inputTokens,
          outputTokens: event.usage.outputTokens,
          totalTokens: event.usage.inputTokens + event.usage.outputTokens,
          ...(event.usage.reasoningTokens ? { reasoningTokens: event.usage.reasoningTokens } : {}),
          ...(event.usage.cacheReadTokens ? { cachedInputTokens: event.usage.cacheReadTokens } : {}),
        });
        return [{ type: EventType.STEP_FINISHED, stepName: `model_call_${this.steps}`, ...ts }];
      case 'TEXT_BLOCK_START':
        return [{ type: EventType.TEXT_MESSAGE_START, messageId: this.message(event), role: 'assistant', ...ts }];
      case 'TEXT_BLOCK_DELTA':
        // AG-UI refuses empty content deltas.
        return event.delta ? [{ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.message(event), delta: event.delta, ...ts }] : [];
      case 'TEXT_BLOCK_END':
        return [{ type: EventType.TEXT_MESSAGE_END, messageId: this.message(event), ...ts }];
      case 'THINKING_BLOCK_START':
        return [
          { type: EventType.REASONING_START, messageId: event.blockId, ...ts },
          { type: EventType.REASONING_MESSAGE_START, messageId: event.blockId, role: 'reasoning', ...ts },
        ];
      case 'THINKING_BLOCK_DELTA':
        return event.delta ? [{ type: EventType.REASONING_MESSAGE_CONTENT, messageId: event.blockId, delta: event.delta, ...ts }] : [];
      case 'THINKING_BLOCK_END':
        return [
          { type: EventType.REASONING_MESSAGE_END, messageId: event.blockId, ...ts },
          { type: EventType.REASONING_END, messageId: event.blockId, ...ts },
        ];
      case 'TOOL_CALL_START':
        this.toolCalls.set(event.blockId, event.toolCallId);
        return [
          {
            type: EventType.TOOL_CALL_START,
            toolCallId: event.toolCallId,
            toolCallName: event.name,
            parentMessageId: this.message(event),
            ...ts,
          },
        ];
      case 'TOOL_CALL_DELTA': {
        const toolCallId = this.toolCalls.get(event.blockId);
        return toolCallId && event.delta ? [{ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: event.delta, ...ts }] : [];
      }
      case 'TOOL_CALL_END': {
        const toolCallId = this.toolCalls.get(event.blockId);
        return toolCallId ? [{ type: EventType.TOOL_CALL_END, toolCallId, ...ts }] : [];
      }
      case 'TOOL_PROGRESS': {
        const { toolCallId, message, progress, total } = event;
        const value = { toolCallId, message, ...(progress !== undefined ? { progress } : {}), ...(total !== undefined ? { total } : {}) };
        return [{ type: EventType.CUSTOM, name: `${AG_UI_CUSTOM_PREFIX}tool_progress`, value, ...ts }];
      }
      case 'TOOL_RESULT_END':
        return [this.toolResult(event)];
      case 'REQUIRE_USER_CONFIRM':
        this.interrupts.push(
          ...event.toolCalls.map((call) => ({
            id: call.id,
            reason: 'tool_call_confirmation',
            toolCallId: call.id,
            message: call.reason ?? `Confirm the call of ${call.name}.`,
            metadata: { rxscope: { name: call.name, input: call.input } },
          })),
        );
        return [this.custom(event)];
      case 'REQUIRE_EXTERNAL_EXECUTION':
        this.pendingExternal.push(...event.toolCalls.map((call) => call.id));
        return [this.custom(event)];
      case 'REPLY_END':
        return [this.end(event)];
      default:
        return [this.custom(event)];
    }
  }

  private message(event: AgentEvent): string {
    this.messageId ??= `${event.replyId}:${event.id}`;
    return this.messageId;
  }

  private toolResult(event: ToolResultEndEvent): BaseEvent {
    const content = event.output
      .map((part) => (part.type === 'text' ? part.text : `[${part.mediaType}${part.url ? ` ${part.url}` : ''}]`))
      .join('');
    return {
      type: EventType.TOOL_CALL_RESULT,
      messageId: `${event.replyId}:${event.blockId}`,
      toolCallId: event.toolCallId,
      content,
      role: 'tool',
      metadata: { rxscope: { status: event.status, ...('value' in event ? { value: event.value } : {}) } },
      timestamp: event.createdAt,
    };
  }

  private end(event: Extract<AgentEvent, { type: 'REPLY_END' }>): BaseEvent {
    const base = { threadId: this.threadId ?? event.replyId, runId: this.runId ?? event.replyId, timestamp: event.createdAt };
    const usage = this.usage.length ? { usage: [...this.usage] } : {};
    switch (event.finishReason) {
      case 'error':
        return {
          type: EventType.RUN_ERROR,
          message: event.error?.message ?? 'The reply failed.',
          ...(event.error?.code ? { code: event.error.code } : {}),
          ...usage,
          timestamp: event.createdAt,
        };
      case 'awaiting_confirmation':
        return { type: EventType.RUN_FINISHED, ...base, outcome: { type: 'interrupt', interrupts: this.interrupts }, ...usage };
      case 'interrupted':
        return { type: EventType.RUN_FINISHED, ...base, outcome: { type: 'cancelled' }, ...usage };
      case 'awaiting_external_execution':
        return { type: EventType.RUN_FINISHED, ...base, outcome: { type: 'success', pendingToolCallIds: this.pendingExternal }, ...usage };
      default:
        return { type: EventType.RUN_FINISHED, ...base, outcome: { type: 'success' }, ...usage };
    }
  }

  private custom(event: AgentEvent): BaseEvent {
    if (event.type === 'CUSTOM' && event.source === this.source) {
      return { type: EventType.CUSTOM, name: event.name, value: event.value, timestamp: event.createdAt };
    }
    return { type: EventType.CUSTOM, name: `${AG_UI_CUSTOM_PREFIX}${event.type}`, value: event, timestamp: event.createdAt };
  }
}
