import { concatMap, defer, from, type Observable, type OperatorFunction } from 'rxjs';
import type { AgentEvent, AgentEventOf } from '../../event/events.js';
import { textOfToolResult } from '../../event/text-of-tool-result.js';
import { applyJsonPatch, type JsonObject } from '../../util/json-patch.js';
import type { UIMessageChunk } from './ui-message-chunk.js';

/**
 * Maps a reply to the AI SDK's UI message stream (protocol of `ai` 6, what `useChat` reads):
 *
 * | rxscope | UI message chunks |
 * | --- | --- |
 * | `REPLY_START` | `start {messageId: replyId}` |
 * | `MODEL_CALL_START` / `_END` | `start-step` / `finish-step` |
 * | `TEXT_BLOCK_*`, `THINKING_BLOCK_*` | `text-*`, `reasoning-*` (`id`: the block id) |
 * | `TOOL_CALL_START/DELTA/END` | `tool-input-start/delta`, then `tool-input-available` (or `tool-input-error` for arguments that are not JSON) |
 * | `TOOL_RESULT_END` | `tool-output-available` (the returned value, else the text), `tool-output-error`, `tool-output-denied` |
 * | `REQUIRE_USER_CONFIRM` | `tool-approval-request {approvalId: toolCallId}` per call |
 * | `TOOL_PROGRESS` | `data-tool-progress {id: 'progress:<toolCallId>'}` (replaced in place) |
 * | `STATE_SNAPSHOT` / `STATE_DELTA` | `data-shared-state {id: 'shared-state', data: the whole state}` |
 * | `CUSTOM {name, value}` | `data-<name> {data: value}` |
 * | `DATA_BLOCK_*` | `file {url: data URL or the block's url, mediaType}` |
 * | `REPLY_END` | `message-metadata {replyId, finishReason, usage}`, then `finish` (`error` first for an error; `abort` for an interrupted reply) |
 *
 * Events of other agents (a subagent's reply) and hints are left out.
 *
 * @example
 * ```ts
 * agent.reply('Hi').pipe(toUIMessageStream()).subscribe((chunk) => send(`data: ${JSON.stringify(chunk)}\n\n`));
 * ```
 */
export function toUIMessageStream(): OperatorFunction<AgentEvent, UIMessageChunk> {
  return (source$: Observable<AgentEvent>) =>
    defer(() => {
      const mapper = new UIMessageMapper();
      return source$.pipe(concatMap((e) => from(mapper.map(e))));
    });
}

class UIMessageMapper {
  private source: string | undefined;
  private readonly calls = new Map<string, { name: string; args: string }>();
  private readonly data = new Map<string, { mediaType: string; url?: string; base64: string }>();
  private state: JsonObject = {};

  map(e: AgentEvent): UIMessageChunk[] {
    if (this.source === undefined && e.type === 'REPLY_START') this.source = e.source;
    if (e.source !== this.source) return [];
    switch (e.type) {
      case 'REPLY_START':
        return [{ type: 'start', messageId: e.replyId, messageMetadata: { replyId: e.replyId } }];
      case 'MODEL_CALL_START':
        return [{ type: 'start-step' }];
      case 'MODEL_CALL_END':
        return [{ type: 'finish-step' }];
      case 'TEXT_BLOCK_START':
        return [{ type: 'text-start', id: e.blockId }];
      case 'TEXT_BLOCK_DELTA':
        return [{ type: 'text-delta', id: e.blockId, delta: e.delta }];
      case 'TEXT_BLOCK_END':
        return [{ type: 'text-end', id: e.blockId }];
      case 'THINKING_BLOCK_START':
        return [{ type: 'reasoning-start', id: e.blockId }];
      case 'THINKING_BLOCK_DELTA':
        return [{ type: 'reasoning-delta', id: e.blockId, delta: e.delta }];
      case 'THINKING_BLOCK_END':
        return [{ type: 'reasoning-end', id: e.blockId }];
      case 'TOOL_CALL_START':
        this.calls.set(e.toolCallId, { name: e.name, args: '' });
        return [{ type: 'tool-input-start', toolCallId: e.toolCallId, toolName: e.name }];
      case 'TOOL_CALL_DELTA': {
        const call = this.calls.get(e.toolCallId);
        if (call) call.args += e.delta;
        return e.delta ? [{ type: 'tool-input-delta', toolCallId: e.toolCallId, inputTextDelta: e.delta }] : [];
      }
      case 'TOOL_CALL_END':
        return [this.inputOf(e.toolCallId)];
      case 'TOOL_RESULT_END':
        return [this.outputOf(e)];
      case 'REQUIRE_USER_CONFIRM':
        return e.toolCalls.map((c) => ({ type: 'tool-approval-request', approvalId: c.id, toolCallId: c.id }) as const);
      case 'TOOL_PROGRESS': {
        const { toolCallId, message, progress, total } = e;
        const data = {
          toolCallId,
          message,
          ...(progress !== undefined ? { progress } : {}),
          ...(total !== undefined ? { total } : {}),
        };
        return [{ type: 'data-tool-progress', id: `progress:${toolCallId}`, data }];
      }
      case 'STATE_SNAPSHOT':
        this.state = e.snapshot;
        return [{ type: 'data-shared-state', id: 'shared-state', data: this.state }];
      case 'STATE_DELTA':
        this.state = applyJsonPatch(this.state, e.delta);
        return [{ type: 'data-shared-state', id: 'shared-state', data: this.state }];
      case 'CUSTOM':
        return [{ type: `data-${e.name}`, data: e.value }];
      case 'DATA_BLOCK_START':
        this.data.set(e.blockId, { mediaType: e.mediaType, ...(e.url ? { url: e.url } : {}), base64: '' });
        return [];
      case 'DATA_BLOCK_DELTA': {
        const block = this.data.get(e.blockId);
        if (block) block.base64 += e.delta;
        return [];
      }
      case 'DATA_BLOCK_END': {
        const block = this.data.get(e.blockId);
        this.data.delete(e.blockId);
        if (!block) return [];
        return [
          {
            type: 'file',
            mediaType: block.mediaType,
            url: block.url ?? `data:${block.mediaType};base64,${block.base64}`,
          },
        ];
      }
      case 'REPLY_END':
        return this.end(e);
      default:
        return [];
    }
  }

  private inputOf(toolCallId: string): UIMessageChunk {
    const call = this.calls.get(toolCallId) ?? { name: 'unknown', args: '' };
    try {
      return {
        type: 'tool-input-available',
        toolCallId,
        toolName: call.name,
        input: JSON.parse(call.args || '{}') as unknown,
      };
    } catch {
      return {
        type: 'tool-input-error',
        toolCallId,
        toolName: call.name,
        input: call.args,
        errorText: 'The arguments are not JSON.',
      };
    }
  }

  private outputOf(e: AgentEventOf<'TOOL_RESULT_END'>): UIMessageChunk {
    if (e.status === 'denied') return { type: 'tool-output-denied', toolCallId: e.toolCallId };
    if (e.status !== 'success')
      return { type: 'tool-output-error', toolCallId: e.toolCallId, errorText: textOfToolResult(e) };
    return {
      type: 'tool-output-available',
      toolCallId: e.toolCallId,
      output: 'value' in e ? e.value : textOfToolResult(e),
    };
  }

  private end(e: AgentEventOf<'REPLY_END'>): UIMessageChunk[] {
    const usage = e.usage
      ? {
          inputTokens: e.usage.inputTokens,
          outputTokens: e.usage.outputTokens,
          totalTokens: e.usage.inputTokens + e.usage.outputTokens,
        }
      : undefined;
    const messageMetadata = { replyId: e.replyId, finishReason: e.finishReason, ...(usage ? { usage } : {}) };
    const out: UIMessageChunk[] = [{ type: 'message-metadata', messageMetadata }];
    switch (e.finishReason) {
      case 'error':
      case 'shutdown':
        out.push({ type: 'error', errorText: e.error?.message ?? e.stopReason?.message ?? 'The reply failed.' });
        return out;
      case 'interrupted':
        out.push({ type: 'abort', reason: 'interrupted' });
        return out;
      case 'max_iters':
        out.push({ type: 'finish', finishReason: 'length', messageMetadata });
        return out;
      case 'awaiting_confirmation':
      case 'awaiting_external_execution':
        out.push({ type: 'finish', finishReason: 'tool-calls', messageMetadata });
        return out;
      default:
        out.push({ type: 'finish', finishReason: 'stop', messageMetadata });
        return out;
    }
  }
}
