import { type Observable, of } from 'rxjs';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type Middleware,
  newId,
  type Next,
  type RuntimeContext,
} from '../../index.js';

/** Short-circuit: answers calls of tools that are not read-only with a `denied` result. */
export class ReadOnlyGuard implements Middleware {
  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    if (input.tool.readOnly) return next(input);
    const blockId = newId('blk');
    return of(
      ctx.event('TOOL_RESULT_START', { blockId, toolCallId: input.toolCall.id, name: input.tool.name }),
      ctx.event('TOOL_RESULT_END', {
        blockId,
        toolCallId: input.toolCall.id,
        status: 'denied',
        output: [{ type: 'text', text: `${input.tool.name} is not allowed in this session.` }],
      }),
    );
  }
}
