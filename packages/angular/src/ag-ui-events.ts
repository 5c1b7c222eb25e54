import type { AgentEvent, ToolResultStatus } from '@rxscope/core';
import type { SharedStateEvent } from './shared-state.js';

/** An AG-UI event as it comes over the wire: read by its `type`, every field checked before use. */
type Wire = Readonly<Record<string, unknown>> & { readonly type: string };

const STATUSES: readonly ToolResultStatus[] = ['success', 'error', 'denied', 'interrupted'];
let counter = 0;

/**
 * Reads the AG-UI events of one run (what `createAgUiHandler` streams) as the rxscope events the
 * chat folds: text messages as text blocks, tool calls and their results, tool progress, the
 * run's usage, its interrupts as `REQUIRE_USER_CONFIRM`, and its end as `REPLY_END`. The events
 * of a resumed run carry the `replyId` of the run it resumes, as rxscope's own do.
 */
export class AgUiEventReader {
  private readonly source = 'ag-ui';

  constructor(private readonly replyId: string) {}

  read(event: Wire): (AgentEvent | SharedStateEvent)[] {
    const str = (key: string) => (typeof event[key] === 'string' ? event[key] : '');
    switch (event.type) {
      case 'RUN_STARTED':
        return [this.make({ type: 'REPLY_START' })];
      case 'TEXT_MESSAGE_START':
        return [this.make({ type: 'TEXT_BLOCK_START', blockId: str('messageId') })];
      case 'TEXT_MESSAGE_CONTENT':
        return [this.make({ type: 'TEXT_BLOCK_DELTA', blockId: str('messageId'), delta: str('delta') })];
      case 'TEXT_MESSAGE_END':
        return [this.make({ type: 'TEXT_BLOCK_END', blockId: str('messageId') })];
      case 'TOOL_CALL_START':
        return [
          this.make({
            type: 'TOOL_CALL_START',
            blockId: str('toolCallId'),
            toolCallId: str('toolCallId'),
            name: str('toolCallName'),
          }),
        ];
      case 'TOOL_CALL_ARGS':
        return [this.make({ type: 'TOOL_CALL_DELTA', blockId: str('toolCallId'), delta: str('delta') })];
      case 'TOOL_CALL_END':
        return [this.make({ type: 'TOOL_CALL_END', blockId: str('toolCallId') })];
      case 'TOOL_CALL_RESULT':
        return this.result(event);
      case 'CUSTOM':
        return this.custom(event);
      case 'STATE_SNAPSHOT':
        return [{ type: 'STATE_SNAPSHOT', replyId: this.replyId, snapshot: event['snapshot'] as never }];
      case 'STATE_DELTA':
        return [{ type: 'STATE_DELTA', replyId: this.replyId, delta: event['delta'] as never }];
      case 'RUN_FINISHED':
        return [...this.usage(event), ...this.finished(event)];
      case 'RUN_ERROR':
        return [
          ...this.usage(event),
          this.make({
            type: 'REPLY_END',
            finishReason: 'error',
            error: {
              name: 'AgUiRunError',
              message: str('message') || 'The run failed.',
              code: str('code') || 'run_error',
            },
          }),
        ];
      default:
        return []; // steps, reasoning, snapshots of messages: nothing the chat shows
    }
  }

  private result(event: Wire): AgentEvent[] {
    const toolCallId = typeof event['toolCallId'] === 'string' ? event['toolCallId'] : '';
    const meta = (event['metadata'] as { rxscope?: { status?: unknown } } | undefined)?.rxscope;
    const status = STATUSES.find((s) => s === meta?.status) ?? 'success';
    const content = event['content'];
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((p: { type?: unknown; text?: unknown }) => (p.type === 'text' ? String(p.text) : '')).join('')
          : '';
    const blockId = `result:${toolCallId}`;
    return [
      this.make({ type: 'TOOL_RESULT_START', blockId, toolCallId, name: '' }),
      this.make({ type: 'TOOL_RESULT_END', blockId, toolCallId, status, output: [{ type: 'text', text }] }),
    ];
  }

  private custom(event: Wire): AgentEvent[] {
    const name = typeof event['name'] === 'string' ? event['name'] : '';
    const value = event['value'] as Record<string, unknown> | undefined;
    if (name === 'rxscope.tool_progress' && value && typeof value['toolCallId'] === 'string') {
      const n = (key: string) => (typeof value[key] === 'number' ? { [key]: value[key] } : {});
      return [
        this.make({
          type: 'TOOL_PROGRESS',
          blockId: `result:${value['toolCallId']}`,
          toolCallId: value['toolCallId'],
          message: typeof value['message'] === 'string' ? value['message'] : '',
          ...n('progress'),
          ...n('total'),
        }),
      ];
    }
    // rxscope's events without an AG-UI equivalent travel as CUSTOM "rxscope.<TYPE>" (the chat
    // reads the run's interrupts instead of REQUIRE_USER_CONFIRM); a CUSTOM event keeps its name.
    if (name.startsWith('rxscope.')) return [];
    return [this.make({ type: 'CUSTOM', name, value })];
  }

  /** The run's usage (one entry per provider and model) as model-call ends. */
  private usage(event: Wire): AgentEvent[] {
    const entries = Array.isArray(event['usage']) ? (event['usage'] as Record<string, unknown>[]) : [];
    return entries.map((u) =>
      this.make({
        type: 'MODEL_CALL_END',
        model: typeof u['model'] === 'string' ? u['model'] : '',
        finishReason: 'stop',
        usage: {
          inputTokens: typeof u['inputTokens'] === 'number' ? u['inputTokens'] : 0,
          outputTokens: typeof u['outputTokens'] === 'number' ? u['outputTokens'] : 0,
        },
      }),
    );
  }

  private finished(event: Wire): AgentEvent[] {
    const outcome = event['outcome'] as { type?: unknown; interrupts?: unknown } | undefined;
    if (outcome?.type === 'interrupt' && Array.isArray(outcome.interrupts)) {
      const toolCalls = (outcome.interrupts as Record<string, unknown>[]).map((i) => {
        const meta = (i['metadata'] as { rxscope?: { name?: unknown; input?: unknown } } | undefined)?.rxscope;
        return {
          id: String(i['toolCallId'] ?? i['id']),
          name: typeof meta?.name === 'string' ? meta.name : '',
          input: meta?.input,
          ...(typeof i['message'] === 'string' ? { reason: i['message'] } : {}),
        };
      });
      return [
        this.make({ type: 'REQUIRE_USER_CONFIRM', toolCalls }),
        this.make({ type: 'REPLY_END', finishReason: 'awaiting_confirmation' }),
      ];
    }
    const finishReason = outcome?.type === 'cancelled' ? 'interrupted' : 'completed';
    return [this.make({ type: 'REPLY_END', finishReason })];
  }

  private make<E extends Omit<AgentEvent, 'id' | 'replyId' | 'createdAt' | 'source'>>(fields: E): AgentEvent {
    return {
      ...fields,
      id: `ag-ui-${++counter}`,
      replyId: this.replyId,
      createdAt: Date.now(),
      source: this.source,
    } as unknown as AgentEvent;
  }
}
