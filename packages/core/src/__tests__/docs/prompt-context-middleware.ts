import { map, type Observable, take } from 'rxjs';
import type { AgentHandle, Middleware, RuntimeContext } from '../../index.js';

export interface UserProfile {
  readonly name: string;
  readonly language: string;
}

export interface PromptContextOptions {
  /** The current user's profile (an HTTP call, a store selector, a BehaviorSubject...). */
  readonly profile$: Observable<UserProfile>;
  /** Clock. Default: `new Date()`. */
  readonly today?: () => Date;
}

/** Appends today's date and the user's profile to the system prompt of every reasoning step. */
export class PromptContextMiddleware implements Middleware {
  readonly key = 'promptContext';

  constructor(private readonly options: PromptContextOptions) {}

  onSystemPrompt(_agent: AgentHandle, _ctx: RuntimeContext, prompt: string): Observable<string> {
    const today = (this.options.today ?? (() => new Date()))().toISOString().slice(0, 10);
    return this.options.profile$.pipe(
      take(1),
      map((profile) => {
        const section = [
          '## Context',
          `Today is ${today}.`,
          `The user is ${profile.name}; answer in ${profile.language}.`,
        ].join('\n');
        return prompt ? `${prompt}\n\n${section}` : section;
      }),
    );
  }
}
