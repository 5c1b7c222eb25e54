// The devtools of the node-service at /_devtools: the "audit" reply of the offline model (two
// tool calls, a subagent, a confirmation) driven over the service's HTTP API, then read back from
// the devtools' API and live feed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAIChatModel } from '@rxscope/core/openai';
import type { OpenAITestServer } from '@rxscope/core/testing/node';
import type { ReplyRecord, ReplySummary } from '@rxscope/devtools';
import { startOfflineModel } from './offline.js';
import { startService, type RunningService } from './service.js';

describe('node-service devtools', () => {
  let offline: OpenAITestServer;
  let service: RunningService;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'node-service-devtools-'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><base href="/"><title>devtools</title>');
    offline = await startOfflineModel();
    service = await startService({
      model: new OpenAIChatModel({ model: 'offline-scripted', apiKey: 'offline', baseURL: offline.url }),
      modelLabel: 'offline',
      port: 0,
      staticDir: dir,
      corsOrigins: [],
      devtools: { enabled: true, uiDir: dir },
    });
  });
  afterAll(async () => {
    await service?.close();
    await offline?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const json = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const res = await fetch(`${service.url}${path}`, init);
    expect(res.ok).toBe(true);
    return (await res.json()) as T;
  };
  const post = <T>(path: string, body: unknown) =>
    json<T>(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const summaryOf = async (replyId: string, status: string) => {
    for (let i = 0; i < 400; i++) {
      const { replies } = await json<{ replies: ReplySummary[] }>('/_devtools/api/replies');
      const found = replies.find((r) => r.replyId === replyId);
      if (found?.status === status) return found;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`reply ${replyId} never reached ${status}`);
  };

  it('records the audit reply: two tool calls, the auditor subagent under it, the confirmation and its answer', async () => {
    const { replyId } = await post<{ replyId: string }>('/api/sessions/audit-1/messages', {
      text: 'Please audit order A-17',
    });
    await summaryOf(replyId, 'awaiting_confirmation');
    const state = await json<{ pending: { toolCalls: { id: string; name: string }[] } }>('/api/sessions/audit-1');
    expect(state.pending.toolCalls).toEqual([expect.objectContaining({ name: 'refund_order' })]);
    await post('/api/sessions/audit-1/confirmations', {
      results: [{ toolCallId: state.pending.toolCalls[0]!.id, confirmed: true }],
    });
    const done = await summaryOf(replyId, 'completed');
    expect(done).toMatchObject({ agentName: 'assistant', sessionId: 'audit-1', toolCalls: 3 });

    const record = await json<ReplyRecord>(`/_devtools/api/replies/${replyId}`);
    const types = record.events.map((e) => e.event['type']);
    const calls = record.events.filter((e) => e.event['type'] === 'TOOL_CALL_START').map((e) => e.event['name']);
    expect(calls).toEqual(['order_status', 'order_auditor', 'refund_order']);
    expect(types).toEqual(expect.arrayContaining(['REQUIRE_USER_CONFIRM', 'USER_CONFIRM_RESULT', 'MODEL_REQUEST']));
    expect(record.chain.find((c) => c.hook === 'onActing')!.layers).toEqual(['devtools', 'TodoListMiddleware']);
    const status = record.events.find((e) => e.event['type'] === 'TOOL_RESULT_END')!;
    expect(status).toMatchObject({ hook: 'onActing', layers: ['TodoListMiddleware'] });
    expect(record.children).toHaveLength(1);
    const child = await json<ReplyRecord>(`/_devtools/api/replies/${record.children[0]}`);
    expect(child.summary).toMatchObject({ agentName: 'auditor', parentReplyId: replyId, status: 'completed' });
    expect(service.refunds).toEqual([expect.objectContaining({ orderId: 'A-17', amount: 80 })]);
  });

  it('serves the UI under /_devtools/ and refuses nothing else of the service', async () => {
    const page = await fetch(`${service.url}/_devtools/`);
    expect(await page.text()).toContain('<base href="/_devtools/">');
    const session = await fetch(`${service.url}/api/sessions`, { method: 'POST' });
    expect(session.status).toBe(201);
  });
});
