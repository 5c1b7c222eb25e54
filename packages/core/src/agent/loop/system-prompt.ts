import { concatMap, defaultIfEmpty, from, type Observable, of, take } from 'rxjs';
import type { Middleware } from '../../middleware/middleware.js';
import type { AgentHandle } from '../../middleware/agent-handle.js';
import type { ReplyContext } from './reply-context.js';

/**
 * The system prompt through the `onSystemPrompt` layers, in order: a string while every layer
 * answers with a string (no stream to subscribe to on each reasoning step), a stream from the
 * first layer that answers with an ObservableInput on (its first value; an empty answer keeps
 * the prompt as it was).
 */
export function systemPromptThrough(
  layers: readonly Middleware[],
  agent: AgentHandle,
  ctx: ReplyContext,
  base: string,
): string | Observable<string> {
  let prompt = base;
  for (let i = 0; i < layers.length; i++) {
    const out = layers[i]!.onSystemPrompt!(agent, ctx, prompt);
    if (typeof out === 'string') {
      prompt = out;
      continue;
    }
    return layers.slice(i + 1).reduce<Observable<string>>(
      (prompt$, mw) =>
        prompt$.pipe(
          concatMap((p) => {
            const next = mw.onSystemPrompt!(agent, ctx, p);
            if (typeof next === 'string') return of(next);
            return from(next).pipe(take(1), defaultIfEmpty(p));
          }),
        ),
      from(out).pipe(take(1), defaultIfEmpty(prompt)),
    );
  }
  return prompt;
}
