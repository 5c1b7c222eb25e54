import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory';
import { OpenAIEmbeddings } from '@langchain/openai';
import { firstValueFrom } from 'rxjs';
import { Agent } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { customValues, run, testServerModel } from '../__tests__/helpers.js';
import { RAGMiddleware, type RagRetrievedValue } from '../rag/index.js';
import { InMemoryKnowledgeBase } from './in-memory-knowledge-base.js';
import { VectorStoreKnowledgeBase, type VectorStoreLike } from './vector-store-knowledge-base.js';

const REFUNDS =
  '# Refunds\n\nCustomers get a refund within 14 days of returning the item.\nRefunds go back to the original payment method.';
const SHIPPING = '# Shipping\n\nParcels ship from Lyon and arrive in three working days.';
const docs = [
  { id: 'refunds', content: REFUNDS, metadata: { source: 'handbook/refunds.md', team: 'billing' } },
  { id: 'shipping', content: SHIPPING, metadata: { source: 'handbook/shipping.md', team: 'logistics' } },
];

/** LangChain's own in-memory vector store, with real embeddings over HTTP from the test server. */
describe('VectorStoreKnowledgeBase (a LangChain VectorStore as a knowledge base)', () => {
  let server: OpenAITestServer;
  let embeddings: OpenAIEmbeddings;
  beforeEach(async () => {
    server = await startOpenAITestServer();
    embeddings = new OpenAIEmbeddings({
      model: 'text-embedding-3-small',
      apiKey: 'sk-test',
      configuration: { baseURL: server.url },
    });
  });
  afterEach(() => server.close());

  it('stores chunks in the store and finds the one that answers, with its source, lines and metadata', async () => {
    const store = new MemoryVectorStore(embeddings);
    const kb = new VectorStoreKnowledgeBase({ store });
    expect(await kb.add(docs)).toEqual({ chunks: { refunds: 1, shipping: 1 } });
    expect(store.memoryVectors).toHaveLength(2);

    const hits = await firstValueFrom(kb.search('How many days until I get my refund?', { topK: 2 }));
    expect(hits).toHaveLength(2);
    expect(hits[0]).toEqual({
      id: 'refunds#0',
      documentId: 'refunds',
      content: REFUNDS,
      source: 'handbook/refunds.md',
      lines: { from: 1, to: 4 },
      score: expect.any(Number) as number,
      metadata: { source: 'handbook/refunds.md', team: 'billing' },
    });
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(server.requests.filter((r) => r.path === '/v1/embeddings').length).toBe(2);
  });

  it('applies topK, scoreThreshold and a metadata filter; finds documents put into the store without the adapter', async () => {
    const store = new MemoryVectorStore(embeddings);
    await store.addDocuments([
      { pageContent: 'The kettle has a two year warranty against defects.', metadata: { source: 'faq/kettle.md' } },
    ]);
    const kb = new VectorStoreKnowledgeBase({ store });
    await kb.add(docs);
    const one = await firstValueFrom(kb.search('kettle warranty defects', { topK: 1 }));
    expect(one).toEqual([
      expect.objectContaining({
        source: 'faq/kettle.md',
        documentId: 'faq/kettle.md',
        content: expect.stringContaining('kettle') as string,
      }),
    ]);
    const billing = await firstValueFrom(
      kb.search('kettle warranty defects', { topK: 3, filter: { team: 'billing' } }),
    );
    expect(billing.map((h) => h.source)).toEqual(['handbook/refunds.md']);
    const all = await firstValueFrom(kb.search('kettle warranty defects', { topK: 3 }));
    const strict = await firstValueFrom(
      kb.search('kettle warranty defects', { topK: 3, scoreThreshold: all[0]!.score }),
    );
    expect(strict.map((h) => h.source)).toEqual(['faq/kettle.md']);
  });

  it('re-adding a document replaces its chunks: deleted where the store can delete, skipped in searches where it cannot', async () => {
    const deleted: string[][] = [];
    const inner = new MemoryVectorStore(embeddings);
    // MemoryVectorStore cannot delete; a store that can (as most databases) gets the old chunk ids.
    const deleting: VectorStoreLike = {
      similaritySearchWithScore: (q, k) => inner.similaritySearchWithScore(q, k),
      addDocuments: (d) => inner.addDocuments(d),
      delete: async ({ ids = [] } = {}) => {
        deleted.push(ids);
        inner.memoryVectors = inner.memoryVectors.filter((v) => !ids.includes(v.metadata['rxscopeChunkId'] as string));
      },
    };
    const kb = new VectorStoreKnowledgeBase({ store: deleting });
    await kb.add(docs);
    await kb.add([
      { id: 'refunds', content: 'Refunds now take 30 days.', metadata: { source: 'handbook/refunds.md' } },
    ]);
    expect(deleted).toEqual([['refunds#0']]);
    const hits = await firstValueFrom(kb.search('refund days', { topK: 5 }));
    expect(hits.filter((h) => h.documentId === 'refunds').map((h) => h.content)).toEqual(['Refunds now take 30 days.']);

    // LangChain's MemoryVectorStore cannot delete (its delete() always throws): the old chunk stays
    // in the store, and searches skip it, so the document is replaced all the same.
    const plain = new VectorStoreKnowledgeBase({ store: new MemoryVectorStore(embeddings) });
    await plain.add(docs);
    await plain.add([
      { id: 'refunds', content: 'Refunds now take 30 days.', metadata: { source: 'handbook/refunds.md' } },
    ]);
    const replaced = await firstValueFrom(plain.search('refund days', { topK: docs.length }));
    expect(replaced.filter((h) => h.documentId === 'refunds').map((h) => h.content)).toEqual([
      'Refunds now take 30 days.',
    ]);
    expect(replaced).toHaveLength(docs.length);
    expect(replaced.every((h) => !('rxscopeGeneration' in h.metadata))).toBe(true);
  });

  it('refuses what is not a vector store, and stops an aborted search before the store is asked', async () => {
    expect(() => new VectorStoreKnowledgeBase({ store: {} as VectorStoreLike })).toThrow(
      /store must be a LangChain VectorStore/,
    );
    const kb = new VectorStoreKnowledgeBase({ store: new MemoryVectorStore(embeddings) });
    const before = server.requests.length;
    await expect(firstValueFrom(kb.search('refund', { signal: AbortSignal.abort(new Error('gone')) }))).rejects.toThrow(
      'gone',
    );
    expect(server.requests.length).toBe(before);
  });

  it('mounted in RAGMiddleware beside an in-memory base: fused, cited, reported', async () => {
    const vectors = new VectorStoreKnowledgeBase({ store: new MemoryVectorStore(embeddings) });
    await vectors.add(docs);
    const faq = new InMemoryKnowledgeBase({ embeddings });
    await faq.add([
      {
        id: 'receipts',
        content: 'Q: Can I get a refund without a receipt? A: Only as store credit.',
        metadata: { source: 'faq/receipts.md' },
      },
    ]);
    const agent = new Agent({
      model: testServerModel(server),
      middlewares: [new RAGMiddleware({ knowledgeBases: { handbook: vectors, faq }, mode: 'static', topK: 2 })],
    });
    server.enqueue({ text: 'Within 14 days [handbook/refunds.md:1-4].' });
    const { events, end } = await run(agent, 'How long does a refund take?');
    expect(end.finishReason).toBe('completed');
    const [retrieved] = customValues<RagRetrievedValue>(events, 'rag.retrieved');
    expect(retrieved!.hits.map((h) => [h.knowledgeBase, h.citation])).toEqual([
      ['handbook', 'handbook/refunds.md:1-4'],
      ['faq', 'faq/receipts.md:1-1'],
    ]);
    const chat = server.requests.find((r) => r.path === '/v1/chat/completions')!;
    expect(JSON.stringify(chat.body.messages)).toContain('[1] handbook/refunds.md:1-4 (handbook)');
  });
});
