import { defer, type Observable } from 'rxjs';
import type { AgentEvent } from '@rxscope/core';

/**
 * True for events that put content in front of the consumer and into the reply message: block
 * starts, deltas and ends (text, thinking, tool calls, data) and hint blocks. Once an attempt of a
 * model call emitted one, calling the model again would show that content twice, so retry and
 * fallback layers stop there (unless they buffer). `MODEL_CALL_START`/`MODEL_CALL_END` and
 * `CUSTOM` events are not content.
 *
 * @internal Shared by the retry and fallback middlewares.
 */
export function isStreamedContent(e: AgentEvent): boolean {
  switch (e.type) {
    case 'TEXT_BLOCK_START':
    case 'TEXT_BLOCK_DELTA':
    case 'TEXT_BLOCK_END':
    case 'THINKING_BLOCK_START':
    case 'THINKING_BLOCK_DELTA':
    case 'THINKING_BLOCK_END':
    case 'TOOL_CALL_START':
    case 'TOOL_CALL_DELTA':
    case 'TOOL_CALL_END':
    case 'DATA_BLOCK_START':
    case 'DATA_BLOCK_DELTA':
    case 'DATA_BLOCK_END':
    case 'HINT_BLOCK':
      return true;
    default:
      return false;
  }
}

/**
 * An Observable that fails with `error` as it is (the failure of an inner layer passed on
 * unchanged, whatever its type).
 *
 * @internal
 */
export function rethrow(error: unknown): Observable<never> {
  return defer(() => {
    throw error;
  });
}
