import { EventType, PROTOCOL_VERSION, type BaseEvent, type Interrupt, type Message } from '@ag-ui/core';
import { concatMap, defer, from, type Observable, type OperatorFunction } from 'rxjs';
import type { AgentEvent, AgentEventOf, PendingToolCall } from '../../event/events.js';
import { questionInterrupt } from './question-interrupt.js';
import { AgUiMessageLog } from './ag-ui-message-log.js';
import { AgUiUsage } from './ag-ui-usage.js';
import { toAgUiContent } from './ag-ui-content.js';
import { ACTIVITY_OF_CUSTOM, activityContent, AgUiActivities } from './ag-ui-activities.js';
import { applyJsonPatch, type JsonObject } from '../../util/json-patch.js';

/** Options of {@link toAgUiEvents}. */
export interface ToAgUiEventsOptions {
  /** The AG-UI thread (conversation). Default: the `sessionId` of `REPLY_START`, else the reply id. */
  readonly threadId?: string;
  /** The AG-UI run id. Default: the reply id. */
  readonly runId?: string;
  /** The agent whose events are the run's own; events of other sources are subagent runs. Default: the source of the first `REPLY_START`. */
  readonly source?: string;
  /**
   * The run's input messages. When given, a run that ends with an interrupt first sends
   * `MESSAGES_SNAPSHOT` (these messages plus the run's own), as AG-UI asks of an interrupt.
   */
  readonly messages?: readonly Message[];
  /** The run's input state. When given, it is sent as `STATE_SNAPSHOT` before an interrupt. */
  readonly state?: unknown;
  /** The agent's tools, so a tool-call interrupt's `responseSchema` can describe `editedArgs` with the tool's own schema. */
  readonly tools?: readonly {
    readonly name: string;
    readonly schema: { readonly parameters: Readonly<Record<string, unknown>> };
  }[];
}

/** Prefix of the `CUSTOM` events that carry rxscope events with no AG-UI equivalent. */
export const AG_UI_CUSTOM_PREFIX = 'rxscope.';

/**
 * Maps one rxscope reply to AG-UI events, so AG-UI frontends (CopilotKit and others) render it
 * unchanged:
 *
 * | rxscope | AG-UI |
 * | --- | --- |
 * | `REPLY_START` | `RUN_STARTED {threadId, runId, protocolVersion}` (the AG-UI version spoken) |
 * | `MODEL_CALL_START` / `MODEL_CALL_END` | `STEP_STARTED` / `STEP_FINISHED` (`stepName` `model_call_<n>`) |
 * | `TEXT_BLOCK_START/DELTA/END` | `TEXT_MESSAGE_START/CONTENT/END` (one assistant message per model call) |
 * | `THINKING_BLOCK_START/DELTA/END` | `REASONING_START`, `REASONING_MESSAGE_START/CONTENT/END`, `REASONING_END` |
 * | `TOOL_CALL_START/DELTA/END` | `TOOL_CALL_START/ARGS/END` (`parentMessageId`: the call's assistant message) |
 * | `TOOL_RESULT_END` | `TOOL_CALL_RESULT` (text, or content parts when the output has media; `metadata.rxscope.status`, and `metadata.rxscope.value` for a returned object) |
 * | `TOOL_PROGRESS` | `ACTIVITY_SNAPSHOT` (then `ACTIVITY_DELTA`) `{activityType: 'tool_progress', content: {toolCallId, message, progress?, total?}}`, one activity message per call |
 * | `CUSTOM todos_updated` / `plan_mode_changed` | `ACTIVITY_SNAPSHOT` (then `ACTIVITY_DELTA`), `activityType` `'todos'` / `'plan_mode'`, one activity message per thread |
 * | `STATE_SNAPSHOT` / `STATE_DELTA` | `STATE_SNAPSHOT {snapshot}` / `STATE_DELTA {delta}` |
 * | `REPLY_END` completed / max_iters / stopped | `RUN_FINISHED {outcome: success}`, `usage` one entry per provider and model |
 * | `REPLY_END` awaiting_confirmation | `MESSAGES_SNAPSHOT`/`STATE_SNAPSHOT` (when the input is known), then `RUN_FINISHED {outcome: interrupt}`: one interrupt per call, `reason: 'tool_call'`, a `responseSchema` of `{approved, editedArgs}`; a question a running tool asked (an MCP elicitation) is `reason: 'user_input'`, its `responseSchema` `{approved, input: <the question's schema>}`, its URL in `metadata.rxscope.url` |
 * | `REPLY_END` awaiting_external_execution | `RUN_FINISHED {outcome: success, pendingToolCallIds}` |
 * | `REPLY_END` interrupted | `RUN_FINISHED {outcome: cancelled}` |
 * | `REPLY_END` error | `RUN_ERROR {message, code}` |
 * | a subagent's reply (another `source`) | `SUBAGENT_STARTED` … `SUBAGENT_FINISHED` (or `SUBAGENT_ERROR`), its events carrying `subagentRunId` |
 * | anything else (`CUSTOM`, `HINT_BLOCK`, data blocks, tool progress, HITL events) | `CUSTOM {name: 'rxscope.<TYPE>' (or the CUSTOM's own name), value}` |
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

/** The mapping state of one reply: the run's own, or one subagent run. */
class Segment {
  steps = 0;
  messageId: string | undefined;
  provider: string | undefined;
  readonly openResults: string[] = []; // toolCallIds whose tools run now
  constructor(readonly subagentRunId?: string) {}
}

class AgUiMapper {
  private source: string | undefined;
  private threadId: string | undefined;
  private runId: string | undefined;
  private readonly root = new Segment();
  private readonly subs = new Map<string, Segment>(); // source + replyId -> segment
  private readonly usage = new AgUiUsage();
  private readonly log: AgUiMessageLog | undefined;
  private interrupts: Interrupt[] = [];
  /** The shared state as the client holds it after the events so far. */
  private state: unknown;
  private readonly activities = new AgUiActivities();
  private pendingExternal: string[] = [];

  constructor(private readonly options: ToAgUiEventsOptions) {
    this.source = options.source;
    this.state = options.state;
    this.log = options.messages ? new AgUiMessageLog(options.messages) : undefined;
  }

  map(event: AgentEvent): BaseEvent[] {
    if (this.source === undefined && event.type === 'REPLY_START') this.source = event.source;
    const out = event.source === this.source ? this.own(event) : this.subagent(event);
    if (this.log) for (const e of out) this.log.apply(e);
    return out;
  }

  private own(event: AgentEvent): BaseEvent[] {
    const ts = { timestamp: event.createdAt };
    switch (event.type) {
      case 'REPLY_START':
        this.threadId = this.options.threadId ?? event.sessionId ?? event.replyId;
        this.runId = this.options.runId ?? event.replyId;
        return [
          {
            type: EventType.RUN_STARTED,
            threadId: this.threadId,
            runId: this.runId,
            protocolVersion: PROTOCOL_VERSION,
            ...ts,
          },
        ];
      case 'REQUIRE_USER_CONFIRM':
        this.interrupts.push(...event.toolCalls.map((call) => this.interrupt(call)));
        return [this.custom(event, this.root)];
      case 'REQUIRE_EXTERNAL_EXECUTION':
        this.pendingExternal.push(...event.toolCalls.map((call) => call.id));
        return [this.custom(event, this.root)];
      case 'REPLY_END':
        return this.end(event);
      case 'STATE_SNAPSHOT':
        this.state = event.snapshot;
        return [{ type: EventType.STATE_SNAPSHOT, snapshot: event.snapshot, timestamp: event.createdAt }];
      case 'STATE_DELTA':
        this.state = applyJsonPatch(this.state as JsonObject, event.delta);
        return [{ type: EventType.STATE_DELTA, delta: [...event.delta], timestamp: event.createdAt }];
      default:
        return this.body(event, this.root);
    }
  }

  /** An event of another agent (a subagent run inside this run). */
  private subagent(event: AgentEvent): BaseEvent[] {
    const key = `${event.source}\u0000${event.replyId}`;
    const ts = { timestamp: event.createdAt };
    if (event.type === 'REPLY_START' && !this.subs.has(key)) {
      const segment = new Segment(event.replyId);
      this.subs.set(key, segment);
      const parentToolCallId = this.root.openResults.at(-1);
      return [
        {
          type: EventType.SUBAGENT_STARTED,
          subagentRunId: event.replyId,
          name: event.source,
          ...(parentToolCallId ? { parentToolCallId } : {}),
          ...(parentToolCallId && this.root.messageId ? { parentMessageId: this.root.messageId } : {}),
          ...ts,
        },
      ];
    }
    const segment = this.subs.get(key);
    if (!segment) return [this.custom(event, this.root)]; // a stray event of an agent that never started here
    if (event.type === 'REPLY_END') {
      this.subs.delete(key);
      if (event.finishReason === 'error' || event.finishReason === 'interrupted' || event.finishReason === 'shutdown') {
        const how = event.finishReason === 'shutdown' ? 'shut down' : 'interrupted';
        const message = event.error?.message ?? `The subagent "${event.source}" was ${how}.`;
        const code = event.error?.code ?? event.finishReason;
        return [{ type: EventType.SUBAGENT_ERROR, subagentRunId: segment.subagentRunId, message, code, ...ts }];
      }
      return [
        {
          type: EventType.SUBAGENT_FINISHED,
          subagentRunId: segment.subagentRunId,
          outcome: { type: 'success' },
          ...ts,
        },
      ];
    }
    return this.body(event, segment);
  }

  /** Content events, the same for the run's own events and a subagent's. */
  private body(event: AgentEvent, s: Segment): BaseEvent[] {
    const base = { timestamp: event.createdAt, ...(s.subagentRunId ? { subagentRunId: s.subagentRunId } : {}) };
    const message = () => (s.messageId ??= `${event.replyId}:${event.id}`);
    switch (event.type) {
      case 'MODEL_CALL_START':
        s.messageId = `${event.replyId}:${event.id}`;
        s.provider = event.provider ?? event.request?.provider;
        return [{ type: EventType.STEP_STARTED, stepName: `model_call_${++s.steps}`, ...base }];
      case 'MODEL_CALL_END':
        this.usage.add(s.provider, event);
        return [{ type: EventType.STEP_FINISHED, stepName: `model_call_${s.steps}`, ...base }];
      case 'TEXT_BLOCK_START':
        return [{ type: EventType.TEXT_MESSAGE_START, messageId: message(), role: 'assistant', ...base }];
      case 'TEXT_BLOCK_DELTA':
        // AG-UI refuses empty content deltas.
        return event.delta
          ? [{ type: EventType.TEXT_MESSAGE_CONTENT, messageId: message(), delta: event.delta, ...base }]
          : [];
      case 'TEXT_BLOCK_END':
        return [{ type: EventType.TEXT_MESSAGE_END, messageId: message(), ...base }];
      case 'THINKING_BLOCK_START':
        return [
          { type: EventType.REASONING_START, messageId: event.blockId, ...base },
          { type: EventType.REASONING_MESSAGE_START, messageId: event.blockId, role: 'reasoning', ...base },
        ];
      case 'THINKING_BLOCK_DELTA':
        return event.delta
          ? [{ type: EventType.REASONING_MESSAGE_CONTENT, messageId: event.blockId, delta: event.delta, ...base }]
          : [];
      case 'THINKING_BLOCK_END':
        return [
          { type: EventType.REASONING_MESSAGE_END, messageId: event.blockId, ...base },
          { type: EventType.REASONING_END, messageId: event.blockId, ...base },
        ];
      case 'TOOL_CALL_START':
        return [
          {
            type: EventType.TOOL_CALL_START,
            toolCallId: event.toolCallId,
            toolCallName: event.name,
            parentMessageId: message(),
            ...base,
          },
        ];
      case 'TOOL_CALL_DELTA':
        return event.delta
          ? [{ type: EventType.TOOL_CALL_ARGS, toolCallId: event.toolCallId, delta: event.delta, ...base }]
          : [];
      case 'TOOL_CALL_END':
        return [{ type: EventType.TOOL_CALL_END, toolCallId: event.toolCallId, ...base }];
      case 'TOOL_PROGRESS': {
        const { toolCallId, message, progress, total } = event;
        const content = {
          toolCallId,
          message,
          ...(progress !== undefined ? { progress } : {}),
          ...(total !== undefined ? { total } : {}),
        };
        return this.activities.report(`${event.replyId}:progress:${toolCallId}`, 'tool_progress', content, base);
      }
      case 'CUSTOM': {
        const activity = ACTIVITY_OF_CUSTOM[event.name];
        if (!activity) return [this.custom(event, s)];
        const messageId = `${this.threadId ?? event.replyId}:${activity.slot}`;
        return this.activities.report(messageId, activity.activityType, activityContent(event.value), base);
      }
      case 'TOOL_RESULT_START':
        s.openResults.push(event.toolCallId);
        return [this.custom(event, s)];
      case 'TOOL_RESULT_END': {
        const open = s.openResults.indexOf(event.toolCallId);
        if (open !== -1) s.openResults.splice(open, 1);
        // A run stopped by a question has no result yet: the interrupt at the end asks it.
        if (event.awaitingAnswer) return [this.custom(event, s)];
        return [
          {
            type: EventType.TOOL_CALL_RESULT,
            messageId: `${event.replyId}:${event.blockId}`,
            toolCallId: event.toolCallId,
            content: toAgUiContent(event.output),
            role: 'tool',
            metadata: { rxscope: { status: event.status, ...('value' in event ? { value: event.value } : {}) } },
            ...base,
          },
        ];
      }
      default:
        return [this.custom(event, s)];
    }
  }

  private interrupt(call: PendingToolCall): Interrupt {
    if (call.question) return questionInterrupt(call, call.question);
    const parameters = this.options.tools?.find((t) => t.name === call.name)?.schema.parameters;
    return {
      id: call.id,
      reason: 'tool_call',
      toolCallId: call.id,
      message: call.reason ?? `Allow the call of ${call.name} with ${JSON.stringify(call.input)}?`,
      responseSchema: {
        type: 'object',
        properties: {
          approved: { type: 'boolean', description: 'true runs the call; false denies it.' },
          editedArgs: {
            ...(parameters ?? { type: 'object' }),
            description: 'Full replacement of the tool arguments (not merged), validated against the tool schema.',
          },
          reason: { type: 'string', description: 'Why, told to the model when the call is denied.' },
          alwaysAllow: { type: 'boolean', description: 'Approve and allow this tool from now on.' },
        },
        required: ['approved'],
      },
      metadata: { rxscope: { name: call.name, input: call.input } },
    };
  }

  private end(event: AgentEventOf<'REPLY_END'>): BaseEvent[] {
    const base = {
      threadId: this.threadId ?? event.replyId,
      runId: this.runId ?? event.replyId,
      timestamp: event.createdAt,
    };
    const entries = this.usage.entries();
    const usage = entries ? { usage: entries } : {};
    switch (event.finishReason) {
      case 'error':
        return [
          {
            type: EventType.RUN_ERROR,
            message: event.error?.message ?? 'The reply failed.',
            ...(event.error?.code ? { code: event.error.code } : {}),
            ...usage,
            timestamp: event.createdAt,
          },
        ];
      case 'awaiting_confirmation': {
        const snapshots: BaseEvent[] = [];
        if (this.log)
          snapshots.push({
            type: EventType.MESSAGES_SNAPSHOT,
            messages: this.log.snapshot(),
            timestamp: event.createdAt,
          });
        if (this.state !== undefined) {
          snapshots.push({ type: EventType.STATE_SNAPSHOT, snapshot: this.state, timestamp: event.createdAt });
        }
        return [
          ...snapshots,
          {
            type: EventType.RUN_FINISHED,
            ...base,
            outcome: { type: 'interrupt', interrupts: this.interrupts },
            ...usage,
          },
        ];
      }
      case 'interrupted':
        return [{ type: EventType.RUN_FINISHED, ...base, outcome: { type: 'cancelled' }, ...usage }];
      case 'shutdown': {
        // Saved, not finished: the server continues it after its restart (RESUME_REPLY).
        const why = event.stopReason?.message ?? 'shutdown';
        const message = `The server shut down during the reply (${why}); it continues after the restart.`;
        return [{ type: EventType.RUN_ERROR, message, code: 'shutdown', ...usage, timestamp: event.createdAt }];
      }
      case 'awaiting_external_execution':
        return [
          {
            type: EventType.RUN_FINISHED,
            ...base,
            outcome: { type: 'success', pendingToolCallIds: this.pendingExternal },
            ...usage,
          },
        ];
      default:
        return [{ type: EventType.RUN_FINISHED, ...base, outcome: { type: 'success' }, ...usage }];
    }
  }

  private custom(event: AgentEvent, s: Segment): BaseEvent {
    const attribution = s.subagentRunId ? { subagentRunId: s.subagentRunId } : {};
    if (event.type === 'CUSTOM')
      return {
        type: EventType.CUSTOM,
        name: event.name,
        value: event.value,
        ...attribution,
        timestamp: event.createdAt,
      };
    return {
      type: EventType.CUSTOM,
      name: `${AG_UI_CUSTOM_PREFIX}${event.type}`,
      value: event,
      ...attribution,
      timestamp: event.createdAt,
    };
  }
}
