import { type AgentEvent, type ErrorInfo, type RuntimeContext } from '@rxscope/core';

type BlockEndType = 'TEXT_BLOCK_END' | 'THINKING_BLOCK_END' | 'TOOL_CALL_END' | 'DATA_BLOCK_END';

const ZERO_USAGE = { inputTokens: 0, outputTokens: 0 } as const;

/**
 * Follows the model calls and content blocks of a stream, so that a layer cutting a model call
 * short (a timeout, a blocked output) can end it well formed: every open block closed, innermost
 * first, then a `MODEL_CALL_END {finishReason: 'error', error}` for every open call.
 *
 * @internal Shared by the timeout and PII redaction middlewares.
 */
export class OpenCallTracker {
  private readonly blocks = new Map<string, BlockEndType>();
  private readonly calls: string[] = [];

  /** Records one event that left (or is about to leave) the layer. */
  track(e: AgentEvent): void {
    switch (e.type) {
      case 'MODEL_CALL_START':
        this.calls.push(e.model);
        break;
      case 'MODEL_CALL_END':
        this.calls.pop();
        break;
      case 'TEXT_BLOCK_START':
        this.blocks.set(e.blockId, 'TEXT_BLOCK_END');
        break;
      case 'THINKING_BLOCK_START':
        this.blocks.set(e.blockId, 'THINKING_BLOCK_END');
        break;
      case 'TOOL_CALL_START':
        this.blocks.set(e.blockId, 'TOOL_CALL_END');
        break;
      case 'DATA_BLOCK_START':
        this.blocks.set(e.blockId, 'DATA_BLOCK_END');
        break;
      case 'TEXT_BLOCK_END':
      case 'THINKING_BLOCK_END':
      case 'TOOL_CALL_END':
      case 'DATA_BLOCK_END':
        this.blocks.delete(e.blockId);
        break;
      default:
        break;
    }
  }

  /** True while a block is open. */
  isOpen(blockId: string): boolean {
    return this.blocks.has(blockId);
  }

  /** The events that end everything still open, as a failure described by `error`; the tracker is then empty. */
  closing(ctx: RuntimeContext, error: ErrorInfo): AgentEvent[] {
    const out: AgentEvent[] = [];
    for (const [blockId, type] of [...this.blocks].reverse()) out.push(ctx.event(type, { blockId }));
    this.blocks.clear();
    while (this.calls.length) {
      const model = this.calls.pop()!;
      out.push(ctx.event('MODEL_CALL_END', { model, usage: ZERO_USAGE, finishReason: 'error', error }));
    }
    return out;
  }
}
