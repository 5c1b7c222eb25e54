// Test helpers shared by the specs of the built-in middlewares.
import { z } from 'zod';
import { type Agent, type AgentEvent, defineTool, isEvent, ModelError, type ReplyInput } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { ofType, replyEndOf, runReply } from '@rxscope/core/testing';
import type { OpenAITestServer } from '@rxscope/core/testing/node';

// The testing kit's ofType and virtualClock, re-exported for the specs that import them from here.
export { ofType, virtualClock } from '@rxscope/core/testing';

// --- events ----------------------------------------------------------------------------------

/** The text the reply streamed (all TEXT_BLOCK_DELTA deltas joined). */
export const textOf = (events: readonly AgentEvent[]): string =>
  ofType(events, 'TEXT_BLOCK_DELTA')
    .map((e) => e.delta)
    .join('');

/** The values of the CUSTOM events called `name`. */
export const customValues = <T = unknown>(events: readonly AgentEvent[], name: string): T[] =>
  events
    .filter(isEvent('CUSTOM'))
    .filter((e) => e.name === name)
    .map((e) => e.value as T);

/** The text of the HINT_BLOCK events. */
export const hints = (events: readonly AgentEvent[]): string[] =>
  events.filter(isEvent('HINT_BLOCK')).map((e) => e.text);

// --- replies ---------------------------------------------------------------------------------

/**
 * Collects one whole reply and checks it (the testing kit's `runReply`: reply grammar, consistent
 * conversation). Returns the events and the REPLY_END event.
 */
export async function run(agent: Agent, input: ReplyInput = 'hi') {
  const events = await runReply(agent, input);
  return { events, end: replyEndOf(events) };
}

/** {@link run}, for specs that only want the events. */
export async function runEvents(agent: Agent, input: ReplyInput = 'hi'): Promise<AgentEvent[]> {
  return (await run(agent, input)).events;
}

/** Starts a reply and collects its events as they come (for specs that drive time or the model by hand). */
export function start(agent: Agent, input: ReplyInput = 'hi') {
  const events: AgentEvent[] = [];
  let done = false;
  const sub = agent.reply(input).subscribe({ next: (e) => events.push(e), complete: () => (done = true) });
  return { events, sub, done: () => done };
}

// --- models, tools and errors ----------------------------------------------------------------

/** A retryable 503 `server_error`, as from an overloaded provider. */
export const overloaded = (message = 'overloaded') =>
  new ModelError(message, { status: 503, retryable: true, code: 'server_error' });

/** A 401 `unauthorized` that is not worth retrying. */
export const unauthorized = (message = 'bad key') =>
  new ModelError(message, { status: 401, retryable: false, code: 'unauthorized' });

/** A read-only tool that adds two numbers. */
export const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  readOnly: true,
  execute: ({ a, b }) => String(a + b),
});

// --- OpenAI-compatible test server -----------------------------------------------------------

/** The real OpenAIChatModel, talking to the test server (with the client's logging off). */
export const testServerModel = (server: OpenAITestServer) =>
  new OpenAIChatModel({
    model: 'gpt-test',
    apiKey: 'sk-test',
    baseURL: server.url,
    configuration: { logLevel: 'off' },
  });

/** Closes the test server once every connection to it has ended (for `afterEach`). */
export async function closeTestServer(server: OpenAITestServer): Promise<void> {
  try {
    await server.waitForConnections(0, 1000);
  } finally {
    await server.close();
  }
}
