import { finalize, tap } from 'rxjs';
import { Agent, type ChatModel, type Middleware } from '../../index.js';

export function layeredAgent(model: ChatModel, seen: string[]) {
  const spy = (name: string): Middleware => ({
    onAgent: (_a, _c, input, next) => {
      seen.push(`${name}:enter`);
      return next(input).pipe(
        tap((e) => e.type === 'MODEL_CALL_END' && seen.push(`${name}:saw MODEL_CALL_END`)),
        finalize(() => seen.push(`${name}:exit`)),
      );
    },
  });
  // after a reply, seen holds:
  // outer:enter, inner:enter, inner:saw MODEL_CALL_END, outer:saw MODEL_CALL_END, inner:exit, outer:exit
  return new Agent({ model, middlewares: [spy('outer'), spy('inner')] });
}
