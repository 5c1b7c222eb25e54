// One cell of the fault matrix: a fault of matrix.ts, run through an agent a configuration
// builds, on the real OpenAIChatModel over HTTP. The checks every configuration shares: the reply
// ends within a bound (no hang), with the expected REPLY_END (a clear error code or a recovery),
// obeys the stream grammar, leaves no tool call without its result, leaves a state that a new
// agent resumes from, and no socket or child process open. The harness runs the same cells from
// its own package (packages/harness/src/__tests__/fault-matrix.spec.ts).
import { readdirSync, readFileSync } from 'node:fs';
import {
  type Agent,
  type AgentEvent,
  type AgentEventOf,
  type ChatModel,
  defineTool,
  InMemorySessionStore,
  type Middleware,
  type SessionStore,
  type Tool,
} from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { assertConsistentConversation, assertReplyGrammar, ScriptedChatModel } from '@rxscope/core/testing';
import { startOpenAITestServer, type OpenAITestServer, type ServerTurn } from '@rxscope/core/testing/node';
import { lastValueFrom, timeout, toArray } from 'rxjs';
import { z } from 'zod';
import { resilient } from '../../resilient/index.js';
import { type Configuration, type Fault, outcomeOf } from './matrix.js';
import { startRawFaultServer, type RawFaultServer } from './raw-server.js';

/** No cell may take longer than this (the slowest waits a 1 s Retry-After). */
export const BOUND_MS = 4_000;

/** The tools of every configuration: a healthy one, one that throws, one that never answers. */
export const FAULT_TOOLS: readonly Tool[] = [
  defineTool({
    name: 'get_weather',
    description: 'Weather of a city',
    input: z.object({ city: z.string() }),
    readOnly: true,
    execute: ({ city }) => `Sunny in ${city}`,
  }),
  defineTool({
    name: 'explode',
    description: 'Always fails',
    input: z.object({}),
    execute: () => Promise.reject(new Error('the tool blew up')),
  }),
  // Ignores its abort signal on purpose: only a timeout or an interrupt ends the call.
  defineTool({
    name: 'hang',
    description: 'Never answers',
    input: z.object({}),
    execute: () => new Promise<string>(() => undefined),
  }),
];

const throwing: Middleware = {
  key: 'throwing',
  onModelCall: () => {
    throw new Error('the middleware blew up');
  },
};

class FailingStore extends InMemorySessionStore {
  override save(): Promise<number> {
    return Promise.reject(new Error('disk full'));
  }
}

/** What a configuration builds for a cell. */
export interface CellSetup {
  /** The agent under test: `model`, the fault's own middlewares (innermost of the user's), and a store when the fault needs one. */
  agent(options: { model: ChatModel; middlewares: Middleware[]; store?: SessionStore; sessionId?: string }): Agent;
  /** An agent built from a saved state (after JSON), to check that it resumes. */
  resume(options: { model: ChatModel; state: unknown }): Agent;
  /** Server turns for the fault in this configuration (default: the fault's own). */
  turns?(fault: Fault): readonly ServerTurn[];
  /** The text a tool result sent back to the model must contain (default: the outcome's). */
  toolResultContent?(fault: Fault): string | undefined;
}

/** The pids of this process's child processes (Linux). */
export function childPids(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync('/proc/self/task')) {
    const text = readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim();
    if (text) pids.push(...text.split(/\s+/).map(Number));
  }
  return pids.sort((a, b) => a - b);
}

async function settled(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** Runs one cell and checks everything a user relies on; throws (a failed expect) otherwise. */
export async function runCell(fault: Fault, config: Configuration, setup: CellSetup): Promise<void> {
  const expected = outcomeOf(fault, config);
  const childrenBefore = childPids();
  let server: OpenAITestServer | undefined;
  let raw: RawFaultServer | undefined;
  try {
    let baseURL: string;
    if (fault.raw) {
      raw = await startRawFaultServer(fault.raw);
      baseURL = raw.url;
    } else {
      server = await startOpenAITestServer({ script: [...(setup.turns?.(fault) ?? fault.turns ?? [])] });
      baseURL = server.url;
    }
    const model = new OpenAIChatModel({
      model: 'gpt-test',
      apiKey: 'sk-test',
      baseURL,
      configuration: { logLevel: 'off' },
    });
    const reported: string[] = [];
    const middlewares: Middleware[] = [];
    if (fault.local === 'middleware_throws') middlewares.push(throwing);
    if (fault.local === 'middleware_throws_resilient')
      middlewares.push(resilient(throwing, { onError: (e) => reported.push((e as Error).message) }));
    const agent = setup.agent({
      model,
      middlewares,
      ...(fault.local === 'store_save_fails' && { store: new FailingStore(), sessionId: 's-1' }),
    });

    const t0 = performance.now();
    const cut =
      expected.interruptAfterMs === undefined
        ? undefined
        : setTimeout(() => agent.interrupt(), expected.interruptAfterMs);
    let events: AgentEvent[];
    try {
      events = await lastValueFrom(agent.reply('hi').pipe(toArray(), timeout(BOUND_MS)));
    } finally {
      clearTimeout(cut);
    }
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeLessThan(BOUND_MS);
    if (expected.atLeastMs) expect(elapsed).toBeGreaterThanOrEqual(expected.atLeastMs);

    const end: AgentEventOf<'REPLY_END'> = assertReplyGrammar(events);
    assertConsistentConversation(agent.context);
    expect({ finish: end.finishReason, code: end.error?.code }).toEqual({
      finish: expected.finish,
      code: expected.code,
    });
    if (expected.error) expect(end.error).toMatchObject(expected.error);
    if (expected.text !== undefined) expect(textOf(events)).toBe(expected.text);
    if (expected.toolResult) {
      const results = events.filter((e): e is AgentEventOf<'TOOL_RESULT_END'> => e.type === 'TOOL_RESULT_END');
      expect(results.map((e) => e.status)).toEqual([expected.toolResult.status]);
      const sentBack = server?.requests[1]?.body.messages?.find((m) => m.role === 'tool')?.content;
      const content = setup.toolResultContent ? setup.toolResultContent(fault) : expected.toolResult.content;
      if (content) expect(sentBack).toContain(content);
    }
    if (expected.message) expect(end.error?.message).toContain(expected.message);
    if (fault.local === 'middleware_throws_resilient') expect(reported).toEqual(['the middleware blew up']);
    expect(server ? server.requests.length : raw!.requests()).toBe(expected.requests);

    // Resumable: the saved state, through JSON, builds a new agent that replies.
    const state: unknown = JSON.parse(JSON.stringify(agent.saveState()));
    const resumed = setup.resume({ model: new ScriptedChatModel([{ text: 'resumed' }]), state });
    const again = assertReplyGrammar(await lastValueFrom(resumed.reply('again').pipe(toArray(), timeout(BOUND_MS))));
    expect(again.finishReason).toBe('completed');
    assertConsistentConversation(resumed.context);
    expect(resumed.context.length).toBeGreaterThan(agent.context.length);

    // No socket left open; no child process left running (a command cut by a timeout is killed).
    // Only children started during the cell count: one an earlier test left may end meanwhile.
    if (server) await server.waitForConnections(0, 1000);
    const started = () => childPids().filter((pid) => !childrenBefore.includes(pid));
    if (!(await settled(() => started().length === 0, 2000)))
      expect({ childProcessesLeft: started() }).toEqual({ childProcessesLeft: [] });
  } finally {
    await server?.close();
    await raw?.close();
  }
}

function textOf(events: readonly AgentEvent[]): string {
  return events.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('');
}
