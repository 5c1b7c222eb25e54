import { OpenAIEmbeddings } from '@langchain/openai';
import { firstValueFrom } from 'rxjs';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { InMemoryKnowledgeBase } from './in-memory-knowledge-base.js';
import type { KnowledgeHit } from './knowledge-base.js';
import { reciprocalRankFusion } from './reciprocal-rank-fusion.js';

const REFUNDS = [
  '# Refunds',
  '',
  'Customers get a refund within 14 days of returning the item.',
  'Refunds go back to the original payment method.',
].join('\n');
const SHIPPING = ['# Shipping', '', 'Parcels ship from Lyon and arrive in three working days.'].join('\n');
const WARRANTY = ['# Warranty', '', 'Every kettle has a two year warranty against defects.'].join('\n');

const docs = [
  { id: 'refunds', content: REFUNDS, metadata: { source: 'handbook/refunds.md', team: 'billing' } },
  { id: 'shipping', content: SHIPPING, metadata: { source: 'handbook/shipping.md', team: 'logistics' } },
  { id: 'warranty', content: WARRANTY, metadata: { team: 'support' } },
];

const embeddingsFor = (server: OpenAITestServer) =>
  new OpenAIEmbeddings({ model: 'text-embedding-3-small', apiKey: 'sk-test', configuration: { baseURL: server.url } });

describe('InMemoryKnowledgeBase', () => {
  let server: OpenAITestServer;
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('finds the chunk that answers a question, with its source and lines, through real embeddings on the wire', async () => {
    const kb = new InMemoryKnowledgeBase({ embeddings: embeddingsFor(server) });
    expect(await kb.add(docs)).toEqual({ chunks: { refunds: 1, shipping: 1, warranty: 1 } });

    const hits = await firstValueFrom(kb.search('How many days until I get my refund?', { topK: 2 }));

    expect(hits).toHaveLength(2);
    expect(hits[0]).toMatchObject({
      id: 'refunds#0',
      documentId: 'refunds',
      source: 'handbook/refunds.md',
      lines: { from: 1, to: 4 },
    });
    expect(hits[0]!.content).toBe(REFUNDS);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    // A document without metadata.source is cited by its id.
    const warranty = await firstValueFrom(kb.search('kettle warranty', { topK: 1 }));
    expect(warranty[0]).toMatchObject({ source: 'warranty' });
    // Chunks were embedded in one batch, the query on its own.
    const embeddingCalls = server.requests.filter((r) => r.path === '/v1/embeddings');
    expect(embeddingCalls[0]!.body['input']).toHaveLength(3);
    expect(embeddingCalls[1]!.body['input']).toBe('How many days until I get my refund?');
  });

  it('finds meaning without a shared word only through the vectors, and drops weak matches below scoreThreshold', async () => {
    const kb = new InMemoryKnowledgeBase({ embeddings: embeddingsFor(server) });
    await kb.add(docs);
    // "parcels arrive" shares words with the shipping text only.
    const [best] = await firstValueFrom(kb.search('parcels arrive', { topK: 3 }));
    expect(best!.documentId).toBe('shipping');
    // A query unrelated to every document finds nothing once vector matches need a real similarity.
    expect(await firstValueFrom(kb.search('zebra xylophone', { scoreThreshold: 0.3 }))).toEqual([]);
  });

  it('searches full text alone without embeddings, with stemming and without stop words', async () => {
    const kb = new InMemoryKnowledgeBase();
    await kb.add(docs);
    const hits = await firstValueFrom(kb.search('is the item refunded?'));
    expect(hits.map((h) => h.documentId)).toEqual(['refunds']);
    expect(server.requests).toHaveLength(0);
  });

  it('splits long documents into chunks whose line ranges cover the text, and replaces a document added again', async () => {
    const long = Array.from(
      { length: 40 },
      (_, i) => `Line ${i + 1} is about topic ${i % 2 ? 'apples' : 'pears'}.`,
    ).join('\n');
    const kb = new InMemoryKnowledgeBase({ embeddings: embeddingsFor(server), chunkSize: 200, chunkOverlap: 0 });
    const { chunks } = await kb.add([{ id: 'long', content: long, metadata: { source: 'long.md' } }]);
    expect(chunks['long']).toBeGreaterThan(3);
    const all = await firstValueFrom(kb.search('topic apples pears line', { topK: 100 }));
    const ranges = all.map((h) => h.lines!).sort((a, b) => a.from - b.from);
    expect(ranges[0]!.from).toBe(1);
    expect(ranges.at(-1)!.to).toBe(40);
    for (const h of all)
      expect(
        long
          .split('\n')
          .slice(h.lines!.from - 1, h.lines!.to)
          .join('\n'),
      ).toBe(h.content);

    await kb.add([{ id: 'long', content: 'Now only bananas.', metadata: { source: 'long.md' } }]);
    expect(kb.size).toBe(1);
    const after = await firstValueFrom(kb.search('apples bananas', { topK: 10 }));
    expect(after.map((h) => h.content)).toEqual(['Now only bananas.']);
  });

  it('filters by metadata equality or a predicate', async () => {
    const kb = new InMemoryKnowledgeBase({ embeddings: embeddingsFor(server) });
    await kb.add(docs);
    const billing = await firstValueFrom(kb.search('days', { filter: { team: 'logistics' } }));
    expect(billing.map((h) => h.documentId)).toEqual(['shipping']);
    const handbook = await firstValueFrom(
      kb.search('refund shipping warranty', { topK: 5, filter: (h) => h.source.startsWith('handbook/') }),
    );
    expect(handbook.map((h) => h.documentId).sort()).toEqual(['refunds', 'shipping']);
  });

  it('refuses bad options at construction, bad documents at add, and vectors of another size', async () => {
    expect(() => new InMemoryKnowledgeBase({ chunkSize: 0 })).toThrow(/chunkSize must be a positive integer/);
    expect(() => new InMemoryKnowledgeBase({ chunkSize: 100, chunkOverlap: 100 })).toThrow(
      /chunkOverlap must be an integer from 0 to chunkSize - 1/,
    );
    const kb = new InMemoryKnowledgeBase({ embeddings: embeddingsFor(server) });
    expect(() => kb.add([{ content: 42 as unknown as string }])).toThrow(/document 0 has no string 'content'/);
    await kb.add(docs);
    // A deployment that switched embedding models under a live base: a clear error instead of a broken index.
    let current = new OpenAIEmbeddings({
      model: 'm',
      dimensions: 8,
      apiKey: 'sk-test',
      configuration: { baseURL: server.url },
    });
    const mixed = new InMemoryKnowledgeBase({
      embeddings: { embedDocuments: (t) => current.embedDocuments(t), embedQuery: (t) => current.embedQuery(t) },
    });
    await mixed.add([docs[0]!]);
    current = embeddingsFor(server);
    await expect(mixed.add([docs[1]!])).rejects.toThrow(/256-dimensional vector; the base holds 8-dimensional ones/);
    await expect(firstValueFrom(kb.search('x', { topK: 0 }))).rejects.toThrow(/topK must be a positive integer/);
  });

  it('stops before calling the embeddings when the search is already aborted', async () => {
    const kb = new InMemoryKnowledgeBase({ embeddings: embeddingsFor(server) });
    await kb.add(docs);
    const before = server.requests.length;
    const controller = new AbortController();
    controller.abort();
    await expect(firstValueFrom(kb.search('refund', { signal: controller.signal }))).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(server.requests.length).toBe(before);
  });
});

describe('reciprocalRankFusion', () => {
  const hit = (id: string, score: number): KnowledgeHit => ({
    id,
    documentId: id,
    content: id,
    source: `${id}.md`,
    score,
    metadata: {},
  });

  it('ranks by position, not by the raw scores of different bases', () => {
    // Base b's scores are on a far larger scale; only ranks count.
    const fused = reciprocalRankFusion({
      a: [hit('a1', 0.9), hit('a2', 0.8)],
      b: [hit('b1', 120), hit('b2', 90), hit('b3', 80)],
    });
    expect(fused.map((h) => `${h.knowledgeBase}:${h.id}`)).toEqual(['a:a1', 'b:b1', 'a:a2', 'b:b2', 'b:b3']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61);
    expect(fused[0]!.baseScore).toBe(0.9);
  });

  it('keeps chunks of different bases apart even with the same id, and cuts at topK', () => {
    const fused = reciprocalRankFusion(
      { x: [hit('c1', 1), hit('shared', 1)], y: [hit('c2', 1), hit('shared', 1)] },
      { topK: 3 },
    );
    expect(fused.map((h) => `${h.knowledgeBase}:${h.id}`)).toEqual(['x:c1', 'y:c2', 'x:shared']);
    const flat = reciprocalRankFusion({ x: [hit('s', 1)], y: [hit('t', 1), hit('s', 1)] }, { k: 0 });
    expect(flat.map((h) => [h.knowledgeBase, h.id, h.score])).toEqual([
      ['x', 's', 1],
      ['y', 't', 1],
      ['y', 's', 0.5],
    ]);
    expect(() => reciprocalRankFusion({}, { k: -1 })).toThrow(/k must be a number >= 0/);
  });
});
