import { OpenAIEmbeddings } from '@langchain/openai';
import { z } from 'zod';
import { Agent, defineTool, type ModelRequest } from '@rxscope/core';
import { ScriptedChatModel, type ScriptedTurn } from '@rxscope/core/testing';
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';
import { closeTestServer, customValues, ofType, run, testServerModel } from '../__tests__/helpers.js';
import { KnowledgeMemoryBackend } from './knowledge-memory-backend.js';
import type { Memory } from './memory-backend.js';
import { StaticMemoryMiddleware, type MemoryExchange } from './static-memory.js';

const textOf = (content: unknown) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p: { text?: string }) => p.text ?? '').join('')
      : '';
const isWriter = (r: RecordedRequest) =>
  textOf(r.body.messages?.[0]?.content).startsWith('You keep long-term memories');

/** The writer keeps a preference stated by the user (plus one invalid entry); the agent answers plainly. */
function handler(request: RecordedRequest): ServerTurn {
  if (!isWriter(request))
    return JSON.stringify(request.body.messages).includes('fail please')
      ? { fault: 'unauthorized' }
      : { text: 'Answered.' };
  const exchange = textOf(request.body.messages!.at(-1)!.content);
  if (!exchange.includes('prefer')) return { text: '[]' };
  const memories = [
    {
      name: 'user-preferences',
      description: 'How the user likes answers',
      type: 'user',
      content: 'Metric units. Short answers.',
    },
    { name: 'bad name!', description: 'x', type: 'user', content: 'dropped' },
  ];
  return { text: JSON.stringify(memories) };
}

/** The static mode on a backend beyond files: memories in memory, searched by meaning with real embeddings. */
describe('StaticMemoryMiddleware', () => {
  let server: OpenAITestServer;
  let backend: KnowledgeMemoryBackend;
  beforeEach(async () => {
    server = await startOpenAITestServer({ handler });
    const embeddings = new OpenAIEmbeddings({
      model: 'text-embedding-3-small',
      apiKey: 'sk-test',
      configuration: { baseURL: server.url },
    });
    backend = new KnowledgeMemoryBackend({
      embeddings,
      memories: [
        {
          name: 'project-billing',
          description: 'The billing service project',
          type: 'project',
          content: 'Billing runs on Postgres 16 in Lyon.',
        },
      ],
    });
  });
  afterEach(() => closeTestServer(server));
  const chat = () => server.requests.filter((r) => r.path === '/v1/chat/completions' && !isWriter(r));
  const agentWith = (memory: StaticMemoryMiddleware) =>
    new Agent({ name: 'a', model: testServerModel(server), middlewares: [memory] });

  it('writes back what the reply taught after it, and a later reply of another agent gets it injected at its first step', async () => {
    const written: string[][] = [];
    const memory = new StaticMemoryMiddleware({ backend, topK: 1, onWritten: (names) => written.push([...names]) });
    const first = await run(agentWith(memory), 'I prefer metric units and short answers.');
    expect(first.end.finishReason).toBe('completed');
    expect(ofType(first.events, 'TOOL_CALL_START')).toEqual([]);
    await memory.settled();
    expect(written).toEqual([['user-preferences']]);
    expect((await backend.list()).map((h) => h.name).sort()).toEqual(['project-billing', 'user-preferences']);
    const writerRequest = server.requests.find(isWriter)!;
    expect(textOf(writerRequest.body.messages!.at(-1)!.content)).toBe(
      'User: I prefer metric units and short answers.\n\nAssistant: Answered.',
    );
    expect(textOf(writerRequest.body.messages![0]!.content)).toContain(
      '- project-billing (project): The billing service project',
    );

    const second = await run(agentWith(memory), 'Which units should I use for the report?');
    expect(customValues(second.events, 'memory.recalled')).toEqual([{ names: ['user-preferences'], dropped: [] }]);
    expect(ofType(second.events, 'HINT_BLOCK')).toHaveLength(1);
    const sent = JSON.stringify(chat().at(-1)!.body.messages);
    expect(sent).toContain('### user-preferences (user)\\nMetric units. Short answers.');
    expect(sent).not.toContain('Postgres');
    expect(chat().at(-1)!.body.tools ?? []).toEqual([]);
    await memory.settled();
    expect(written).toEqual([['user-preferences']]); // the second reply taught nothing new
  });

  it('writes back detached: the reply ends before the write-back does, and a failing write-back goes to onError only', async () => {
    let release!: (memories: readonly Memory[]) => void;
    const errors: Error[] = [];
    const memory = new StaticMemoryMiddleware({
      backend,
      writeBack: (exchange) => {
        expect(exchange).toMatchObject({
          agentName: 'a',
          input: 'Remember: the deploy day is Tuesday.',
          answer: 'Answered.',
        });
        return new Promise((resolve) => (release = resolve));
      },
      onError: (e) => errors.push(e),
    });
    const { end } = await run(agentWith(memory), 'Remember: the deploy day is Tuesday.');
    expect(end.finishReason).toBe('completed');
    expect(release).toBeDefined();
    let settled = false;
    void memory.settled().then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    release([{ name: 'deploy-day', description: 'When deploys happen', type: 'project', content: 'Tuesday.' }]);
    await memory.settled();
    expect((await backend.read(['deploy-day']))[0]!.content).toBe('Tuesday.');

    const failing = new StaticMemoryMiddleware({
      backend,
      writeBack: () => Promise.reject(new Error('writer offline')),
      onError: (e) => errors.push(e),
    });
    expect((await run(agentWith(failing), 'Note this.')).end.finishReason).toBe('completed');
    await failing.settled();
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^The memories of reply \S+ could not be written back: writer offline$/) as string,
    ]);
  });

  it('writes nothing back for a reply that did not complete, and writeBack: false only injects', async () => {
    let extracted = 0;
    const memory = new StaticMemoryMiddleware({ backend, writeBack: async () => (extracted++, []) });
    expect((await run(agentWith(memory), 'fail please')).end.finishReason).toBe('error');
    await memory.settled();
    expect(extracted).toBe(0);

    const injectOnly = new StaticMemoryMiddleware({ backend, writeBack: false });
    await run(agentWith(injectOnly), 'I prefer short answers.');
    await injectOnly.settled();
    expect(server.requests.some(isWriter)).toBe(false);
    expect(() => new StaticMemoryMiddleware({ backend: {} as KnowledgeMemoryBackend })).toThrow(
      /backend must be a MemoryBackend/,
    );
  });

  it('writes back a reply that completed after a confirmation, also when resumed from a saved state by another agent', async () => {
    const pay = defineTool({
      name: 'pay',
      description: 'pays someone',
      input: z.object({ to: z.string(), amount: z.number() }),
      needsApproval: true,
      execute: ({ to, amount }) => `paid ${amount} to ${to}`,
    });
    const script = (request: ModelRequest): ScriptedTurn =>
      JSON.stringify(request.messages).includes('paid 5 to Bob')
        ? { text: 'Sent: 5 to Bob.' }
        : { text: 'Paying now. ', toolCalls: [{ id: 'p1', name: 'pay', input: { to: 'Bob', amount: 5 } }] };
    const exchanges: MemoryExchange[] = [];
    const memoryOf = () =>
      new StaticMemoryMiddleware({ backend, topK: 0, writeBack: async (x) => (exchanges.push(x), []) });
    const first = new Agent({
      name: 'a',
      model: new ScriptedChatModel(script),
      tools: [pay],
      middlewares: [memoryOf()],
    });
    expect((await run(first, 'Pay 5 to Bob, I prefer euros.')).end.finishReason).toBe('awaiting_confirmation');

    // Resumed in the same agent.
    const sameMemory = memoryOf();
    const same = new Agent({
      name: 'a',
      model: new ScriptedChatModel(script),
      tools: [pay],
      middlewares: [sameMemory],
      state: first.saveState(),
    });
    const resumed = await run(same, { type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 'p1', confirmed: true }] });
    expect(resumed.end.finishReason).toBe('completed');
    await sameMemory.settled();
    expect(exchanges).toEqual([
      expect.objectContaining({ input: 'Pay 5 to Bob, I prefer euros.', answer: 'Paying now. Sent: 5 to Bob.' }),
    ]);
  });
});
