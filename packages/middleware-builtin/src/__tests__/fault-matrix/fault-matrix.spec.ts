// The fault matrix of docs/RELIABILITY.md: each fault of matrix.ts, in each configuration, through
// the real OpenAIChatModel over HTTP. Every cell must: end within a bound (no hang), end with the
// expected REPLY_END (a clear error code or a recovery), obey the stream grammar, leave no tool
// call without its result, and leave a state that a new Agent resumes from.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Agent,
  type AgentEvent,
  type AgentEventOf,
  defineTool,
  InMemorySessionStore,
  type Middleware,
} from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { assertConsistentConversation, assertReplyGrammar, ScriptedChatModel } from '@rxscope/core/testing';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { lastValueFrom, timeout, toArray } from 'rxjs';
import { z } from 'zod';
import { resilient } from '../../resilient/index.js';
import { RetryMiddleware } from '../../retry/index.js';
import { TimeoutMiddleware } from '../../timeout/index.js';
import { ofType, textOf } from '../helpers.js';
import { CONFIGURATIONS, type Configuration, type Fault, FAULTS, matrixTable } from './matrix.js';
import { startRawFaultServer, type RawFaultServer } from './raw-server.js';

/** No cell may take longer than this (the slowest waits a 1 s Retry-After). */
const BOUND_MS = 4_000;

const tools = [
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

function middlewaresFor(fault: Fault, config: Configuration, reported: string[]): Middleware[] {
  const layers: Middleware[] = [];
  if (config === 'built-ins') {
    layers.push(
      new RetryMiddleware({ initialDelayMs: 20, maxDelayMs: 50, jitter: 0 }),
      new TimeoutMiddleware({ idleMs: 300, toolCallMs: 200 }),
    );
  }
  if (fault.local === 'middleware_throws') layers.push(throwing);
  if (fault.local === 'middleware_throws_resilient')
    layers.push(resilient(throwing, { onError: (e) => reported.push((e as Error).message) }));
  return layers;
}

const cells = FAULTS.flatMap((fault) => CONFIGURATIONS.map((config) => [fault.name, config, fault] as const));

describe('fault matrix: OpenAIChatModel over HTTP, bare and with the built-ins', () => {
  jest.setTimeout(10_000); // above BOUND_MS, so a hang fails on the cell's own bound
  let server: OpenAITestServer | undefined;
  let raw: RawFaultServer | undefined;

  afterEach(async () => {
    if (server) {
      try {
        await server.waitForConnections(0, 1000); // no socket left open
      } finally {
        await server.close();
      }
    }
    await raw?.close();
    server = raw = undefined;
  });

  it.each(cells)('%s — %s', async (_name, config, fault) => {
    const expected = fault.outcome[config];
    let baseURL: string;
    if (fault.raw) {
      raw = await startRawFaultServer(fault.raw);
      baseURL = raw.url;
    } else {
      server = await startOpenAITestServer({ script: [...(fault.turns ?? [])] });
      baseURL = server.url;
    }
    const model = new OpenAIChatModel({
      model: 'gpt-test',
      apiKey: 'sk-test',
      baseURL,
      configuration: { logLevel: 'off' },
    });
    const store = fault.local === 'store_save_fails' ? new FailingStore() : undefined;
    const reported: string[] = [];
    const agent = new Agent({
      model,
      tools,
      middlewares: middlewaresFor(fault, config, reported),
      ...(store && { store, sessionId: 's-1' }),
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
      expect(ofType(events, 'TOOL_RESULT_END').map((e) => e.status)).toEqual([expected.toolResult.status]);
      const sentBack = server?.requests[1]?.body.messages?.find((m) => m.role === 'tool')?.content;
      if (expected.toolResult.content) expect(sentBack).toContain(expected.toolResult.content);
    }
    if (expected.message) expect(end.error?.message).toContain(expected.message);
    if (fault.local === 'middleware_throws_resilient') expect(reported).toEqual(['the middleware blew up']);
    expect(server ? server.requests.length : raw!.requests()).toBe(expected.requests);

    // Resumable: the saved state, through JSON, builds a new agent that replies.
    const state: unknown = JSON.parse(JSON.stringify(agent.saveState()));
    const resumed = new Agent({ model: new ScriptedChatModel([{ text: 'resumed' }]), tools, state });
    const again = assertReplyGrammar(await lastValueFrom(resumed.reply('again').pipe(toArray(), timeout(BOUND_MS))));
    expect(again.finishReason).toBe('completed');
    assertConsistentConversation(resumed.context);
    expect(resumed.context.length).toBeGreaterThan(agent.context.length);
  });

  // FAULT_MATRIX_WRITE=1 writes the table into the docs (between its two markers) from matrix.ts.
  it('docs/RELIABILITY.md shows this matrix', () => {
    const path = join(__dirname, '../../../../../docs/RELIABILITY.md');
    const [start, end] = ['<!-- fault-matrix:start -->', '<!-- fault-matrix:end -->'];
    let docs = readFileSync(path, 'utf8');
    if (process.env['FAULT_MATRIX_WRITE']) {
      docs = docs.replace(new RegExp(`${start}[\\s\\S]*${end}`), `${start}\n${matrixTable()}\n${end}`);
      writeFileSync(path, docs);
    }
    expect(docs).toContain(`${start}\n${matrixTable()}\n${end}`);
  });
});
