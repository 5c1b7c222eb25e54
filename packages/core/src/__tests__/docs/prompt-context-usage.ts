import { BehaviorSubject } from 'rxjs';
import { Agent, type ChatModel } from '../../index.js';
import { PromptContextMiddleware, type UserProfile } from './prompt-context-middleware.js';

export async function askInTwoLanguages(model: ChatModel) {
  const profile$ = new BehaviorSubject<UserProfile>({ name: 'Ada', language: 'English' });
  const agent = new Agent({
    sysPrompt: 'You are a helpful assistant.',
    model,
    middlewares: [new PromptContextMiddleware({ profile$ })],
  });
  await agent.call('1 + 1?');
  // system message of every model call of this reply:
  // You are a helpful assistant.
  //
  // ## Context
  // Today is 2026-03-14.
  // The user is Ada; answer in English.
  profile$.next({ name: 'Grace', language: 'French' });
  await agent.call('Et en français ?'); // now: "The user is Grace; answer in French."
}
