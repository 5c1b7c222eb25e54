// The user a reply acts for labels what the built-ins record: audit records (actor), usage
// reports and the invoke_agent span (user.id); knowledge searches keep users' documents apart.
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '@rxscope/core';
import { runReply, ScriptedChatModel } from '@rxscope/core/testing';
import { firstValueFrom } from 'rxjs';
import { AuditLogMiddleware } from '../audit-log/index.js';
import { memoryAuditSink } from '../audit-log/records.js';
import { InMemoryKnowledgeBase } from '../knowledge/in-memory-knowledge-base.js';
import { AgenticMemoryMiddleware } from '../memory/agentic-memory.js';
import type { MemoryBackend } from '../memory/memory-backend.js';
import { FileMemoryBackend } from '../node/file-memory-backend.js';
import { TracingMiddleware } from '../tracing/index.js';
import { UsageMiddleware, type ReplyUsage } from '../usage/index.js';
import { customValues, runEvents } from './helpers.js';

describe('the reply user in what the built-ins record', () => {
  it('audit records carry it (actor and userId), usage reports and the reply span too', async () => {
    const sink = memoryAuditSink();
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const usage = new UsageMiddleware({ prices: { m: { input: 1, output: 1 } } });
    const agent = new Agent({
      model: new ScriptedChatModel([{ text: 'hi', usage: { inputTokens: 10, outputTokens: 5 } }]),
      middlewares: [new TracingMiddleware({ tracerProvider }), new AuditLogMiddleware({ sink }), usage],
    });
    const events = await runReply(agent, agent.reply('hello', { userId: 'alice@example.com' }));
    expect(sink.records.map((r) => [r.type, r.userId])).toEqual([
      ['reply_start', 'alice@example.com'],
      ['reply_end', 'alice@example.com'],
    ]);
    expect(sink.records[0]).toMatchObject({ actor: 'alice@example.com' });
    expect(customValues<ReplyUsage>(events, 'usage.reply')[0]).toMatchObject({ userId: 'alice@example.com' });
    expect(usage.session(agent)).toMatchObject({ userId: 'alice@example.com', replies: 1 });
    const reply = exporter.getFinishedSpans().find((s) => s.name.startsWith('invoke_agent'))!;
    expect(reply.attributes['user.id']).toBe('alice@example.com');

    // Without a user, none of them invents one.
    const anon = new Agent({
      model: new ScriptedChatModel([{ text: 'hi' }]),
      middlewares: [new TracingMiddleware({ tracerProvider }), new AuditLogMiddleware({ sink })],
    });
    exporter.reset();
    await runEvents(anon, 'hello');
    expect(sink.records.at(-1)).not.toHaveProperty('userId');
    expect(exporter.getFinishedSpans().find((s) => s.name.startsWith('invoke_agent'))!.attributes).not.toHaveProperty(
      'user.id',
    );
  });
});

describe('scoped knowledge and memory', () => {
  it("a search with a user's scope finds shared documents and that user's own, never another user's", async () => {
    const kb = new InMemoryKnowledgeBase({ splitter: false });
    await kb.add([
      { id: 'policy', content: 'Refund policy: refunds within 14 days.' },
      { id: 'alice-note', content: 'Refund for alice approved, order 77.', scope: 'alice' },
      { id: 'bob-note', content: 'Refund for bob denied, order 88.', scope: 'bob' },
    ]);
    const ids = async (scope?: string) =>
      (await firstValueFrom(kb.search('refund order', { topK: 5, ...(scope ? { scope } : {}) })))
        .map((h) => h.documentId)
        .sort();
    expect(await ids('alice')).toEqual(['alice-note', 'policy']);
    expect(await ids('bob')).toEqual(['bob-note', 'policy']);
    expect(await ids()).toEqual(['policy']);
    await expect(kb.add([{ content: 'x', scope: '' }])).rejects.toThrow(/scope must be a non-empty string/);
  });

  it('FileMemoryBackend keeps each user in a folder of their own; hostile ids cannot leave it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rxscope-scoped-'));
    try {
      const root = new FileMemoryBackend({ dir });
      const memory = { name: 'm', description: 'd', type: 'user', content: 'secret' };
      await root.scoped('alice').write(memory);
      await root.scoped('../../etc').write(memory);
      expect(await root.list()).toEqual([]);
      expect(await root.scoped('bob').list()).toEqual([]);
      expect(await root.scoped('alice').read(['m'])).toEqual([memory]);
      const folders = (await readdir(join(dir, 'users'))).sort();
      expect(folders).toHaveLength(2);
      expect(folders[1]).toBe('u_alice');
      expect(folders[0]).toMatch(/^h_[0-9a-f]{64}$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a memory backend that cannot keep users apart fails a user's reply rather than mixing memories", async () => {
    const unscoped: MemoryBackend = {
      list: () => Promise.resolve([{ name: 'x', description: 'shared note', type: 'project' }]),
      read: () => Promise.resolve([]),
      write: () => Promise.resolve(),
      search: () => Promise.resolve([]),
    };
    const agent = new Agent({
      model: new ScriptedChatModel([{ text: 'never' }, { text: 'ok' }]),
      middlewares: [new AgenticMemoryMiddleware({ backend: unscoped, maxRecall: 0 })],
    });
    await expect(agent.call('hi', { userId: 'alice' })).rejects.toMatchObject({
      code: 'memory_unscoped',
      message: expect.stringMatching(/no scoped\(scope\)/),
    });
    const shared = new Agent({
      model: new ScriptedChatModel([{ text: 'ok' }]),
      middlewares: [new AgenticMemoryMiddleware({ backend: unscoped, maxRecall: 0, scope: 'shared' })],
    });
    await expect(shared.call('hi', { userId: 'alice' })).resolves.toBeDefined();
    expect(() => new AgenticMemoryMiddleware({ backend: unscoped, scope: 'tenant' as never })).toThrow(
      /scope must be 'user' or 'shared', got "tenant"/,
    );
  });
});
