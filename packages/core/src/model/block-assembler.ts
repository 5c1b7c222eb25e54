import type { ModelEvent } from '../event/events.js';
import { newId } from '../util/id.js';
import { ModelError } from './model-error.js';

/** A piece of a streamed tool call, as providers send it (every field optional after the first). */
export interface ToolCallPiece {
  readonly id?: string | null;
  readonly name?: string | null;
  readonly arguments?: string | null;
}

interface CallState {
  state: 'pending' | 'open' | 'closed';
  id?: string;
  name: string;
  /** Arguments received while the call had no name yet. */
  buffered: string;
  blockId?: string;
}

type Current =
  | { readonly kind: 'text' | 'thinking'; readonly blockId: string }
  | { readonly kind: 'tool'; readonly blockId: string; readonly index: number };

/**
 * Turns provider deltas (text, reasoning, indexed tool-call pieces) into well-formed block
 * events: one block at a time, a new block whenever the kind changes, each tool call its own
 * block with its arguments streamed as `TOOL_CALL_DELTA`. Blocks close in order, so the events
 * nest properly. Tool-call pieces of one index must arrive together (as OpenAI-style servers
 * send them); a piece for a call that was already closed is a malformed stream and throws.
 *
 * @internal Shared by the model adapters.
 */
export class BlockAssembler {
  private current: Current | undefined;
  /** Made with the first tool call: a text-only answer needs none. */
  private calls: Map<number, CallState> | undefined;
  private content = false;

  constructor(private readonly emit: (event: ModelEvent) => void) {}

  /** True once any block was opened. */
  get hasContent(): boolean {
    return this.content;
  }

  /** Number of tool calls seen. */
  get toolCallCount(): number {
    return this.calls?.size ?? 0;
  }

  text(delta: string | null | undefined): void {
    this.prose('text', delta);
  }

  thinking(delta: string | null | undefined): void {
    this.prose('thinking', delta);
  }

  toolCall(index: number, piece: ToolCallPiece): void {
    const calls = (this.calls ??= new Map<number, CallState>());
    let call = calls.get(index);
    if (!call) {
      call = { state: 'pending', name: '', buffered: '' };
      calls.set(index, call);
    }
    if (call.state === 'closed') {
      throw new ModelError(
        `malformed response from the model server: tool call #${index} received more data after the next block started (interleaved tool-call streams are not supported)`,
        { code: 'malformed_response', retryable: true },
      );
    }
    if (piece.id && !call.id) call.id = piece.id;
    const args = piece.arguments ?? '';
    if (call.state === 'pending') {
      if (piece.name) call.name += piece.name;
      call.buffered += args;
      if (call.name) this.open(index, call);
      return;
    }
    if (args) this.emit({ type: 'TOOL_CALL_DELTA', blockId: call.blockId!, delta: args });
  }

  /** Closes the open block and starts calls that never got a name (the agent answers those with an error). */
  close(): void {
    if (this.calls) for (const [index, call] of this.calls) if (call.state === 'pending') this.open(index, call);
    this.closeCurrent();
  }

  private prose(kind: 'text' | 'thinking', delta: string | null | undefined): void {
    if (!delta) return;
    if (this.current?.kind !== kind) {
      this.closeCurrent();
      const blockId = newId('blk');
      this.current = { kind, blockId };
      this.content = true;
      this.emit(kind === 'text' ? { type: 'TEXT_BLOCK_START', blockId } : { type: 'THINKING_BLOCK_START', blockId });
    }
    const blockId = this.current.blockId;
    this.emit(
      kind === 'text' ? { type: 'TEXT_BLOCK_DELTA', blockId, delta } : { type: 'THINKING_BLOCK_DELTA', blockId, delta },
    );
  }

  private open(index: number, call: CallState): void {
    this.closeCurrent();
    const blockId = newId('blk');
    call.state = 'open';
    call.blockId = blockId;
    this.current = { kind: 'tool', blockId, index };
    this.content = true;
    this.emit({ type: 'TOOL_CALL_START', blockId, toolCallId: call.id ?? newId('call'), name: call.name });
    if (call.buffered) this.emit({ type: 'TOOL_CALL_DELTA', blockId, delta: call.buffered });
    call.buffered = '';
  }

  private closeCurrent(): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    const blockId = current.blockId;
    if (current.kind === 'tool') {
      this.calls!.get(current.index)!.state = 'closed';
      this.emit({ type: 'TOOL_CALL_END', blockId });
    } else if (current.kind === 'text') this.emit({ type: 'TEXT_BLOCK_END', blockId });
    else this.emit({ type: 'THINKING_BLOCK_END', blockId });
  }
}
