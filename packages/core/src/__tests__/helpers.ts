import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import type { AgentEvent } from '../event/events.js';
import { createMsg } from '../message/msg.js';
import type { ChatModel } from '../model/chat-model.js';
import { defineTool } from '../tool/tool.js';
import { ofType } from '../testing/run-reply.js';

// runReply (the grammar and the conversation checked on every reply), ofType and the REPLY_END of
// a reply come from the public testing kit, as a user's tests would use them.
export { ofType, replyEndOf as endOf, runReply } from '../testing/run-reply.js';

export function textOf(events: readonly AgentEvent[]): string {
  return ofType(events, 'TEXT_BLOCK_DELTA')
    .map((e) => e.delta)
    .join('');
}

export const addTool = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  readOnly: true,
  execute: ({ a, b }) => Promise.resolve(String(a + b)),
});

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** What one call of `model` with a one-message request fails with (undefined when it succeeds). */
export function streamFailure(model: ChatModel): Promise<unknown> {
  const request = {
    messages: [createMsg('user', 'hi')],
    tools: [],
    toolChoice: 'auto' as const,
    options: {},
    signal: new AbortController().signal,
  };
  return lastValueFrom(model.stream(request).pipe(toArray())).then(
    () => undefined,
    (e: unknown) => e,
  );
}
