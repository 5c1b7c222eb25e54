import { concat, from, type Observable, of, switchMap } from 'rxjs';
import type { AgentEvent, Next, ReasoningInput, RuntimeContext } from '@rxscope/core';
import type { Memory } from './memory-backend.js';

/** What a recall found: the memories read, and the names asked for that do not exist. */
export interface RecalledMemories {
  readonly memories: readonly Memory[];
  readonly dropped: readonly string[];
}

/**
 * The first reasoning step of a reply with its recall: once `recall` settles, the memories
 * become a step hint (id `<key>:<replyId>`) and `CUSTOM memory.recalled` is emitted (or
 * `memory.error`; the reply goes on without memories), then the step runs.
 */
export function withRecalledMemories(
  key: string,
  ctx: RuntimeContext,
  recall: Promise<RecalledMemories>,
  input: ReasoningInput,
  next: Next<ReasoningInput>,
): Observable<AgentEvent> {
  return from(
    recall.then(
      ({ memories, dropped }): AgentEvent => {
        if (memories.length) {
          const text = `Memories that may matter here:\n\n${memories.map((m) => `### ${m.name} (${m.type})\n${m.content}`).join('\n\n')}`;
          ctx.conversation.addHint(text, { id: `${key}:${ctx.replyId}`, lifetime: 'step', source: 'memory' });
        }
        return ctx.event('CUSTOM', { name: 'memory.recalled', value: { names: memories.map((m) => m.name), dropped } });
      },
      (err: unknown) =>
        ctx.event('CUSTOM', {
          name: 'memory.error',
          value: { message: err instanceof Error ? err.message : String(err) },
        }),
    ),
  ).pipe(switchMap((event) => concat(of(event), next(input))));
}
