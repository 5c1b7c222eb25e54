// One unsubscribe cell: the consumer unsubscribing at one phase of a reply (streamed text, a tool
// call to a tool that takes 150 ms, a closing text), through the real OpenAIChatModel over HTTP,
// in an agent a configuration builds. The agent must come back idle, the socket close, the tool
// see its abort signal, no tool call be left without its result, no retry start after the
// consumer left, and both the same agent and one built from its saved state must reply again.
// The bare and built-ins cells run in unsubscribe.spec.ts, the harness's in its own package.
import { type Agent, type AgentEvent, type ChatModel, defineTool, type Middleware, type Tool } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { assertConsistentConversation, assertReplyGrammar, ScriptedChatModel } from '@rxscope/core/testing';
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';
import { lastValueFrom, timeout, toArray } from 'rxjs';
import { z } from 'zod';
import { RetryMiddleware } from '../../retry/index.js';
import { TimeoutMiddleware } from '../../timeout/index.js';
import type { Configuration } from './matrix.js';

/** Where the consumer unsubscribes: at the n-th event of this type. */
export interface Phase {
  readonly name: string;
  readonly at: AgentEvent['type'];
  readonly nth?: number;
  /** The first model call fails with a retryable 500 (so the cut falls in the retry wait). */
  readonly failFirst?: boolean;
  readonly configurations: readonly Configuration[];
}

const everywhere: readonly Configuration[] = ['bare', 'built-ins', 'harness'];
export const PHASES: readonly Phase[] = [
  { name: 'at REPLY_START, before the request', at: 'REPLY_START', configurations: everywhere },
  { name: 'mid model stream', at: 'TEXT_BLOCK_DELTA', configurations: everywhere },
  { name: 'mid tool call', at: 'TOOL_RESULT_START', configurations: everywhere },
  { name: 'between two model calls', at: 'MODEL_CALL_START', nth: 2, configurations: everywhere },
  { name: 'during the retry wait', at: 'MODEL_CALL_END', failFirst: true, configurations: ['built-ins', 'harness'] },
];

const BOUND_MS = 3_000;

/** The built-ins of these cells (a retry wait of 300 ms, limits that never fire here). */
export const unsubscribeBuiltIns = (): Middleware[] => [
  new RetryMiddleware({ initialDelayMs: 300, jitter: 0 }),
  new TimeoutMiddleware({ idleMs: 1_000, toolCallMs: 1_000 }),
];

/** What a configuration builds for a cell. */
export interface UnsubscribeSetup {
  agent(options: { model: ChatModel; tools: Tool[] }): Agent;
  resume(options: { model: ChatModel; tools: Tool[]; state: unknown }): Agent;
}

/** Runs one cell and checks it (a failed expect otherwise). */
export async function runUnsubscribeCell(phase: Phase, setup: UnsubscribeSetup): Promise<void> {
  let server: OpenAITestServer | undefined;
  try {
    const aborted: boolean[] = [];
    const slow = defineTool({
      name: 'slow',
      description: 'Answers after 150 ms',
      input: z.object({}),
      readOnly: true,
      execute: (_input, { signal }) =>
        new Promise<string>((resolve) => {
          const t = setTimeout(() => resolve('slow answer'), 150);
          signal?.addEventListener('abort', () => {
            clearTimeout(t);
            aborted.push(true);
            resolve('aborted');
          });
        }),
    });
    const lastUser = (r: RecordedRequest) =>
      [...(r.body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content;
    const last = (r: RecordedRequest) => r.body.messages?.at(-1)?.role;
    server = await startOpenAITestServer({
      handler: (req, i): ServerTurn => {
        if (lastUser(req) === 'again') return { text: 'again' };
        if (phase.failFirst && i === 0) return { fault: 'server_error' };
        if (last(req) === 'tool') return { text: 'done' };
        return {
          text: ['a', 'b', 'c', 'd'],
          chunkDelayMs: 20,
          toolCalls: [{ name: 'slow', input: {}, id: 'call_slow' }],
        };
      },
    });
    const model = new OpenAIChatModel({
      model: 'gpt-test',
      apiKey: 'sk-test',
      baseURL: server.url,
      configuration: { logLevel: 'off' },
    });
    const agent = setup.agent({ model, tools: [slow] });

    // Unsubscribe at the phase's event.
    const seen: AgentEvent[] = [];
    await new Promise<void>((resolve, reject) => {
      let count = 0;
      const guard = setTimeout(() => reject(new Error(`no ${phase.at} within ${BOUND_MS} ms`)), BOUND_MS);
      const sub = agent.reply('hi').subscribe({
        next: (e) => {
          seen.push(e);
          if (e.type === phase.at && ++count === (phase.nth ?? 1)) {
            clearTimeout(guard);
            queueMicrotask(() => sub.unsubscribe());
            resolve();
          }
        },
        error: reject,
        complete: () => reject(new Error(`the reply completed before ${phase.at}`)),
      });
    });
    const requestsAtCut = server.requests.length;

    await server.waitForConnections(0, 1_000); // the socket closes
    expect(agent.busy).toBe(false);
    assertConsistentConversation(agent.context);
    if (phase.at === 'TOOL_RESULT_START') expect(aborted).toEqual([true]); // the tool was told
    if (phase.failFirst) {
      await new Promise((r) => setTimeout(r, 400)); // past the retry delay
      expect(server.requests).toHaveLength(requestsAtCut); // no retry after the consumer left
    }

    // The same agent replies again...
    const again = await lastValueFrom(agent.reply('again').pipe(toArray(), timeout(BOUND_MS)));
    expect(assertReplyGrammar(again).finishReason).toBe('completed');
    expect(textOf(again)).toBe('again');
    assertConsistentConversation(agent.context);

    // ...and so does one built from its saved state.
    const state: unknown = JSON.parse(JSON.stringify(agent.saveState()));
    const resumed = setup.resume({ model: new ScriptedChatModel([{ text: 'resumed' }]), tools: [slow], state });
    const events = await lastValueFrom(resumed.reply('and again').pipe(toArray(), timeout(BOUND_MS)));
    expect(assertReplyGrammar(events).finishReason).toBe('completed');
    assertConsistentConversation(resumed.context);
  } finally {
    await server?.close();
  }
}

const textOf = (events: readonly AgentEvent[]): string =>
  events.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('');
