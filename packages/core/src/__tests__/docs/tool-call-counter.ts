import { concatMap, type Observable, of } from 'rxjs';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  ContextToken,
  type Middleware,
  type Next,
  type RuntimeContext,
} from '../../index.js';

/** Per-reply count in a ContextToken, lifetime count persisted with the agent's state. */
const CALLS_THIS_REPLY = new ContextToken<number>('callsThisReply', () => 0);

export class ToolCallCounter implements Middleware {
  readonly key = 'toolCallCounter';

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    ctx.set(CALLS_THIS_REPLY, ctx.get(CALLS_THIS_REPLY) + 1);
    const lifetime = ctx.state<number>(this.key);
    lifetime.set((lifetime.get() ?? 0) + 1);
    return next(input);
  }

  onAgent(_agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return next(input).pipe(
      concatMap((e) =>
        e.type === 'REPLY_END' && e.replyId === ctx.replyId
          ? of(
              ctx.event('CUSTOM', {
                name: 'tool_calls',
                value: { reply: ctx.get(CALLS_THIS_REPLY), lifetime: ctx.state<number>(this.key).get() ?? 0 },
              }),
              e,
            )
          : of(e),
      ),
    );
  }
}
