/**
 * What differs between the recording and a replay and is not the agent's doing: the date and the
 * temporary workspace folder in the system prompt. Both are replaced before the requests are
 * compared, so a replay still fails when the prompt, the tools or the conversation change.
 */
import type { ReplayChatModelOptions } from '@rxscope/middleware-builtin/recording';

type Request = Parameters<NonNullable<ReplayChatModelOptions['normalize']>>[0];

const stable = (text: string) =>
  text
    .replace(/Today is \d{4}-\d{2}-\d{2}/g, 'Today is <date>')
    .replace(/rxscope-evals-presets-[A-Za-z0-9]+/g, '<workspace>');

export const normalizeRequest = (request: Request): Request => ({
  ...request,
  messages: request.messages.map((m) => ({
    ...m,
    content: m.content.map((part) => {
      const p = part as { type?: string; text?: string };
      return p.type === 'text' && typeof p.text === 'string' ? { ...p, text: stable(p.text) } : part;
    }),
  })),
});
