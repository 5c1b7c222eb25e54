import { finalize, type Observable, tap } from 'rxjs';
import type {
  ActingInput,
  AgentHandle,
  AgentEvent,
  Middleware,
  Next,
  RuntimeContext,
  ToolResultStatus,
} from '../../index.js';

export interface ToolCallLogOptions {
  /** Where the lines go. Default: `console.info`. */
  readonly log?: (line: string) => void;
  /** Clock in milliseconds. Default: `performance.now()`. */
  readonly now?: () => number;
}

/** Logs one line per executed tool call: name, input, status and duration. */
export class ToolCallLogMiddleware implements Middleware {
  readonly key = 'toolCallLog';
  private readonly log: (line: string) => void;
  private readonly now: () => number;

  constructor(options: ToolCallLogOptions = {}) {
    this.log = options.log ?? ((line) => console.info(line));
    this.now = options.now ?? (() => performance.now());
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    const startedAt = this.now();
    let status: ToolResultStatus | 'cancelled' = 'cancelled';
    return next(input).pipe(
      tap({
        next: (e) => {
          if (e.type === 'TOOL_RESULT_END' && e.toolCallId === input.toolCall.id) status = e.status;
        },
        error: () => (status = 'error'),
      }),
      finalize(() => {
        const ms = Math.round(this.now() - startedAt);
        this.log(`[${ctx.agentName}] ${input.tool.name} ${JSON.stringify(input.input)} -> ${status} in ${ms} ms`);
      }),
    );
  }
}
