import { OpenAIEmbeddings } from '@langchain/openai';
import { of, throwError } from 'rxjs';
import { Agent } from '@rxscope/core';
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';
import { add, closeTestServer, customValues, ofType, run, testServerModel } from '../__tests__/helpers.js';
import { InMemoryKnowledgeBase } from '../knowledge/in-memory-knowledge-base.js';
import type { KnowledgeBase } from '../knowledge/knowledge-base.js';
import { RAGMiddleware, type RagRetrievedValue } from './index.js';

const HANDBOOK = [
  {
    id: 'refunds',
    content: '# Refunds\n\nCustomers get a refund within 14 days of returning the item.',
    metadata: { source: 'handbook/refunds.md' },
  },
  {
    id: 'shipping',
    content: '# Shipping\n\nParcels ship from Lyon and arrive in three working days.',
    metadata: { source: 'handbook/shipping.md' },
  },
];
const FAQ = [
  {
    id: 'kettle',
    content: 'Q: Does the kettle have a warranty? A: Yes, two years against defects.',
    metadata: { source: 'faq/kettle.md' },
  },
  {
    id: 'refund-faq',
    content: 'Q: Can I get a refund without a receipt? A: Only as store credit.',
    metadata: { source: 'faq/receipts.md' },
  },
];

const textOfWire = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p: { text?: string }) => p.text ?? '').join('')
      : '';

/**
 * A "model" that searches once with the user's words (and the bases named after `@` in them),
 * then answers with the first source of the tool result.
 */
function searchingModel(request: RecordedRequest): ServerTurn {
  const messages = request.body.messages!;
  const last = messages.at(-1)!;
  if (last.role === 'tool') {
    const text = textOfWire(last.content);
    return { text: `According to [${/\] (\S+) \(/.exec(text)?.[1] ?? 'nothing'}].` };
  }
  const question = textOfWire(messages.filter((m) => m.role === 'user').at(-1)!.content);
  const named = [...question.matchAll(/@([\w-]+)/g)].map((m) => m[1]!);
  return {
    toolCalls: [
      {
        name: 'search_knowledge',
        input: { query: question.replace(/@[\w-]+/g, '').trim(), ...(named.length ? { knowledge_bases: named } : {}) },
      },
    ],
  };
}

describe('RAGMiddleware (agentic)', () => {
  let server: OpenAITestServer;
  let handbook: InMemoryKnowledgeBase;
  let faq: InMemoryKnowledgeBase;
  beforeEach(async () => {
    server = await startOpenAITestServer({ handler: searchingModel });
    const embeddings = new OpenAIEmbeddings({
      model: 'text-embedding-3-small',
      apiKey: 'sk-test',
      configuration: { baseURL: server.url },
    });
    handbook = new InMemoryKnowledgeBase({ embeddings });
    faq = new InMemoryKnowledgeBase({ embeddings });
    await handbook.add(HANDBOOK);
    await faq.add(FAQ);
  });
  afterEach(() => closeTestServer(server));

  const agentWith = (rag: RAGMiddleware, name = 'support') =>
    new Agent({ name, model: testServerModel(server), middlewares: [rag] });
  const chatRequests = () => server.requests.filter((r) => r.path === '/v1/chat/completions');

  it('offers search_knowledge with an enum of the mounted bases and answers with cited chunks from both, fused', async () => {
    const rag = new RAGMiddleware({
      knowledgeBases: { handbook, faq },
      topK: 3,
      descriptions: { faq: 'customer questions' },
    });
    const { events, end } = await run(agentWith(rag), 'How long does a refund take?');

    expect(end.finishReason).toBe('completed');
    const tool = chatRequests()[0]!.body.tools!.find((t) => t.function.name === 'search_knowledge')!;
    expect(tool.function.description).toContain('handbook, faq (customer questions)');
    expect(tool.function.parameters).toMatchObject({
      properties: { knowledge_bases: { type: 'array', items: { enum: ['handbook', 'faq'] } } },
      required: ['query'],
    });
    const result = ofType(events, 'TOOL_RESULT_END')[0]!;
    expect(result.status).toBe('success');
    const text = result.output.map((o) => (o.type === 'text' ? o.text : '')).join('');
    // The best chunk of each base interleave (ranks fused), each with its citation and base.
    expect(text).toMatch(
      /^\[1\] handbook\/refunds\.md:1-3 \(handbook\)\n# Refunds\n\nCustomers get a refund within 14 days/,
    );
    expect(text).toContain('[2] faq/receipts.md:1-1 (faq)\nQ: Can I get a refund without a receipt?');
    expect(text.match(/^\[\d\]/gm)).toHaveLength(3);
    // What the model got back is what the tool produced, and the answer cites it.
    expect(textOfWire(chatRequests()[1]!.body.messages!.at(-1)!.content)).toBe(text);
    expect(
      ofType(events, 'TEXT_BLOCK_DELTA')
        .map((e) => e.delta)
        .join(''),
    ).toBe('According to [handbook/refunds.md:1-3].');
    // What was retrieved is reported as in static mode, right after the search's result.
    const retrieved = customValues<RagRetrievedValue>(events, 'rag.retrieved');
    expect(retrieved).toEqual([
      {
        query: 'How long does a refund take?',
        toolCallId: result.toolCallId,
        failures: [],
        hits: [
          expect.objectContaining({
            id: expect.stringContaining('refunds') as string,
            knowledgeBase: 'handbook',
            source: 'handbook/refunds.md',
            citation: 'handbook/refunds.md:1-3',
          }),
          expect.objectContaining({ knowledgeBase: 'faq', citation: 'faq/receipts.md:1-1' }),
          expect.objectContaining({ knowledgeBase: expect.any(String) as string }),
        ],
      },
    ]);
    const at = events.findIndex((e) => e.type === 'CUSTOM' && e.name === 'rag.retrieved');
    expect(events[at - 1]).toBe(result);
  });

  it('searches only the bases the model names, and refuses a name that is not mounted before searching', async () => {
    const rag = new RAGMiddleware({ knowledgeBases: { handbook, faq } });
    const { events } = await run(agentWith(rag), 'refund receipt @faq');
    const text = ofType(events, 'TOOL_RESULT_END')[0]!
      .output.map((o) => (o.type === 'text' ? o.text : ''))
      .join('');
    expect(text).toContain('(faq)');
    expect(text).not.toContain('(handbook)');

    const embedCalls = server.requests.filter((r) => r.path === '/v1/embeddings').length;
    const { events: bad } = await run(agentWith(rag), 'refund @wiki');
    const badResult = ofType(bad, 'TOOL_RESULT_END')[0]!;
    expect(badResult.status).toBe('error');
    expect(JSON.stringify(badResult.output)).toMatch(/knowledge_bases/);
    expect(JSON.stringify(badResult.output)).toMatch(/handbook.*faq/);
    expect(server.requests.filter((r) => r.path === '/v1/embeddings').length).toBe(embedCalls);
  });

  it('still answers from the other bases when one fails, naming the failure; an error result only when all fail', async () => {
    const broken: KnowledgeBase = {
      search: () => throwError(() => new Error('index offline')),
      add: () => of({ chunks: {} }),
    };
    const { events } = await run(
      agentWith(new RAGMiddleware({ knowledgeBases: { handbook, wiki: broken } })),
      'refund',
    );
    const ok = ofType(events, 'TOOL_RESULT_END')[0]!;
    expect(ok.status).toBe('success');
    expect(JSON.stringify(ok.output)).toContain('handbook/refunds.md');
    expect(JSON.stringify(ok.output)).toContain('The knowledge base \\"wiki\\" could not be searched: index offline');

    const { events: allBroken, end } = await run(
      agentWith(new RAGMiddleware({ knowledgeBases: { wiki: broken } })),
      'refund',
    );
    expect(end.finishReason).toBe('completed');
    const failed = ofType(allBroken, 'TOOL_RESULT_END')[0]!;
    expect(failed.status).toBe('error');
    expect(JSON.stringify(failed.output)).toContain('Knowledge search failed in every base: wiki: index offline');
    expect(customValues(events, 'rag.retrieved')).toEqual([
      {
        query: 'refund',
        toolCallId: ok.toolCallId,
        hits: expect.any(Array) as unknown,
        failures: [{ knowledgeBase: 'wiki', message: 'index offline' }],
      },
    ]);
    expect(customValues(allBroken, 'rag.retrieved')).toEqual([]);
    expect(customValues(allBroken, 'rag.error')).toEqual([
      {
        query: 'refund',
        toolCallId: failed.toolCallId,
        message: 'Knowledge search failed in every base: wiki: index offline',
      },
    ]);
  });

  it('serves concurrent replies of several agents from one shared instance, each with its own results', async () => {
    // A threshold keeps the base that has nothing on a question from filling the single slot.
    const rag = new RAGMiddleware({ knowledgeBases: { handbook, faq }, topK: 1, scoreThreshold: 0.3 });
    const questions = [
      'refund days returning item',
      'parcels Lyon working days',
      'kettle warranty defects',
      'receipt store credit',
    ];
    const expected = ['handbook/refunds.md', 'handbook/shipping.md', 'faq/kettle.md', 'faq/receipts.md'];
    const results = await Promise.all(questions.map((q, i) => run(agentWith(rag, `agent${i}`), q)));
    results.forEach(({ events, end }, i) => {
      expect(end.finishReason).toBe('completed');
      const text = JSON.stringify(ofType(events, 'TOOL_RESULT_END')[0]!.output);
      expect(text).toContain(expected[i]);
      for (const other of expected.filter((e) => e !== expected[i])) expect(text).not.toContain(other);
      expect(
        customValues<RagRetrievedValue>(events, 'rag.retrieved').map((r) => [r.query, r.hits.map((h) => h.source)]),
      ).toEqual([[questions[i], [expected[i]]]]);
    });
  });

  it('refuses bad options at construction with a message that says what to fix', () => {
    expect(() => new RAGMiddleware({ knowledgeBases: {} })).toThrow(/at least one knowledge base/);
    expect(() => new RAGMiddleware({ knowledgeBases: { 'my base': handbook } })).toThrow(
      /"my base" must be 1-64 letters/,
    );
    expect(() => new RAGMiddleware({ knowledgeBases: { x: {} as KnowledgeBase } })).toThrow(
      /knowledgeBases.x is not a knowledge base/,
    );
    expect(() => new RAGMiddleware({ knowledgeBases: { handbook }, topK: 0 })).toThrow(
      /topK must be a positive integer/,
    );
    expect(() => new RAGMiddleware({ knowledgeBases: { handbook }, descriptions: { faq: 'x' } })).toThrow(
      /descriptions.faq names no mounted/,
    );
    expect(() => new RAGMiddleware({ knowledgeBases: { handbook }, mode: 'dynamic' as 'agentic' })).toThrow(
      /mode must be 'agentic' or 'static'/,
    );
  });
});

describe('RAGMiddleware (static)', () => {
  let server: OpenAITestServer;
  let handbook: InMemoryKnowledgeBase;
  beforeEach(async () => {
    // Step 1 calls `add`, step 2 answers.
    server = await startOpenAITestServer({
      handler: (req) =>
        req.body.messages!.at(-1)!.role === 'tool'
          ? { text: 'Done.' }
          : { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
    });
    const embeddings = new OpenAIEmbeddings({
      model: 'text-embedding-3-small',
      apiKey: 'sk-test',
      configuration: { baseURL: server.url },
    });
    handbook = new InMemoryKnowledgeBase({ embeddings });
    await handbook.add(HANDBOOK);
  });
  afterEach(() => closeTestServer(server));

  const chatRequests = () => server.requests.filter((r) => r.path === '/v1/chat/completions');
  const wire = (i: number) => JSON.stringify(chatRequests()[i]!.body.messages);

  it('adds the chunks found for the user input as a hint to the first step only, then removes it', async () => {
    const rag = new RAGMiddleware({ knowledgeBases: { handbook }, mode: 'static', topK: 1 });
    const agent = new Agent({ name: 'support', model: testServerModel(server), tools: [add], middlewares: [rag] });

    const { events, end } = await run(agent, 'How long does a refund take?');

    expect(end.finishReason).toBe('completed');
    expect(chatRequests()[0]!.body.tools!.map((t) => t.function.name)).toEqual(['add']);
    expect(wire(0)).toContain('[1] handbook/refunds.md:1-3 (handbook)');
    expect(wire(0)).toContain('Customers get a refund within 14 days');
    // Removed after the step: the second request and the stored conversation no longer hold it.
    expect(wire(1)).not.toContain('handbook/refunds.md');
    expect(JSON.stringify(agent.context)).not.toContain('handbook/refunds.md');
    const hintEvents = ofType(events, 'HINT_BLOCK');
    expect(hintEvents).toHaveLength(1);
    expect(hintEvents[0]!.text).toMatch(/^Passages from the knowledge base[\s\S]*\[1\] handbook\/refunds\.md:1-3/);
    const [retrieved] = customValues<{ query: string; hits: { citation: string; knowledgeBase: string }[] }>(
      events,
      'rag.retrieved',
    );
    expect(retrieved).toMatchObject({
      query: 'How long does a refund take?',
      hits: [{ citation: 'handbook/refunds.md:1-3', knowledgeBase: 'handbook' }],
    });
    // The search ran once, with the user's words.
    expect(server.requests.filter((r) => r.path === '/v1/embeddings').at(-1)!.body['input']).toBe(
      'How long does a refund take?',
    );
  });

  it('keeps the hint in the conversation with persistHint, in a template of your own', async () => {
    const rag = new RAGMiddleware({
      knowledgeBases: { handbook },
      mode: 'static',
      topK: 1,
      persistHint: true,
      hintTemplate: 'CONTEXT >>> {context} <<<',
    });
    const agent = new Agent({ name: 'support', model: testServerModel(server), tools: [add], middlewares: [rag] });
    await run(agent, 'parcels Lyon');
    expect(wire(0)).toContain('CONTEXT >>> [1] handbook/shipping.md');
    expect(wire(1)).toContain('CONTEXT >>> [1] handbook/shipping.md');
    expect(JSON.stringify(agent.context)).toContain('CONTEXT >>> [1] handbook/shipping.md');
  });

  it('serves concurrent replies from one shared instance, each with the context of its own question', async () => {
    const rag = new RAGMiddleware({ knowledgeBases: { handbook }, mode: 'static', topK: 1 });
    const questions = [
      'refund days returning item',
      'parcels Lyon working days',
      'refund original payment',
      'parcels arrive',
    ];
    const expected = ['refunds', 'shipping', 'refunds', 'shipping'];
    const results = await Promise.all(
      questions.map((q, i) =>
        run(new Agent({ name: `a${i}`, model: testServerModel(server), tools: [add], middlewares: [rag] }), q),
      ),
    );
    results.forEach(({ events }, i) => {
      const [hint] = ofType(events, 'HINT_BLOCK');
      expect(hint!.text).toContain(`handbook/${expected[i]}.md`);
      expect(hint!.text).not.toContain(`handbook/${expected[i] === 'refunds' ? 'shipping' : 'refunds'}.md`);
    });
  });

  it('goes on without context when every base fails, saying why', async () => {
    const broken: KnowledgeBase = {
      search: () => throwError(() => new Error('index offline')),
      add: () => of({ chunks: {} }),
    };
    const agent = new Agent({
      name: 'a',
      model: testServerModel(server),
      tools: [add],
      middlewares: [new RAGMiddleware({ knowledgeBases: { broken }, mode: 'static' })],
    });
    const { events, end } = await run(agent, 'refund');
    expect(end.finishReason).toBe('completed');
    expect(ofType(events, 'HINT_BLOCK')).toHaveLength(0);
    expect(customValues(events, 'rag.error')).toEqual([
      { query: 'refund', message: expect.stringContaining('index offline') },
    ]);
  });

  it('checks the hint template at construction and offers no tool in static mode', () => {
    expect(() => new RAGMiddleware({ knowledgeBases: { handbook }, mode: 'static', hintTemplate: 'no slot' })).toThrow(
      /exactly once \(found 0\)/,
    );
    expect(() => new RAGMiddleware({ knowledgeBases: { handbook }, hintTemplate: '{context} {context}' })).toThrow(
      /exactly once \(found 2\)/,
    );
    expect(new RAGMiddleware({ knowledgeBases: { handbook }, mode: 'static' }).tools()).toEqual([]);
  });
});
