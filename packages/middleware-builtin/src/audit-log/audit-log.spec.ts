import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, filter as rxFilter, take } from 'rxjs';
import { z } from 'zod';
import { Agent, AgentError, createMsg, defineTool } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, run, testServerModel } from '../__tests__/helpers.js';
import { jsonLinesFileSink } from '../node/index.js';
import { AuditLogMiddleware } from './index.js';
import { type AuditRecord, memoryAuditSink } from './records.js';

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys a service',
  input: z.object({ service: z.string(), credentials: z.object({ user: z.string(), password: z.string() }) }),
  needsApproval: true,
  execute: ({ service }) => `deployed ${service}`,
});
const wipe = defineTool({
  name: 'wipe',
  description: 'Wipes a disk',
  input: z.object({ disk: z.string() }),
  execute: () => 'wiped',
});

const deployCall = {
  name: 'deploy',
  arguments: { service: 'billing', credentials: { user: 'ops', password: 'hunter2' } },
};
const shape = (records: readonly AuditRecord[]) =>
  records.map((r) => (r.type === 'permission' ? `permission:${r.decision}` : r.type));

describe('AuditLogMiddleware', () => {
  let server: OpenAITestServer;
  afterEach(() => closeTestServer(server));

  it('records who asked what, the confirmation asked and given, the tool run with redacted arguments, and each end', async () => {
    server = await startOpenAITestServer({
      script: [{ toolCalls: [{ ...deployCall, id: 'call_1' }] }, { text: 'Deployed.' }],
    });
    const sink = memoryAuditSink();
    const agent = new Agent({
      name: 'ops',
      model: testServerModel(server),
      tools: [deploy],
      middlewares: [new AuditLogMiddleware({ sink })],
    });

    const first = await run(agent, createMsg('user', 'Deploy billing', { name: 'alice' }));
    expect(first.end.finishReason).toBe('awaiting_confirmation');
    const second = await run(agent, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: 'call_1', confirmed: true, alwaysAllow: true }],
    });
    expect(second.end.finishReason).toBe('completed');

    const records = sink.records;
    expect(shape(records)).toEqual([
      'reply_start',
      'permission:ask',
      'reply_end',
      'reply_start',
      'permission:confirmed',
      'tool_run',
      'tool_result',
      'reply_end',
    ]);
    expect(records[0]).toMatchObject({
      type: 'reply_start',
      agent: 'ops',
      actor: 'alice',
      input: 'Deploy billing',
      replyId: first.end.replyId,
    });
    expect(records[1]).toMatchObject({
      toolCallId: 'call_1',
      tool: 'deploy',
      input: { service: 'billing', credentials: { user: 'ops', password: '[REDACTED]' } },
    });
    expect(records[2]).toMatchObject({ type: 'reply_end', finishReason: 'awaiting_confirmation' });
    expect(records[3]).toMatchObject({ type: 'reply_start', resume: 'USER_CONFIRM_RESULT', input: '' });
    expect(records[4]).toMatchObject({ toolCallId: 'call_1', tool: 'deploy', alwaysAllow: true });
    expect(records[5]).toMatchObject({
      type: 'tool_run',
      tool: 'deploy',
      input: { credentials: { password: '[REDACTED]' } },
    });
    expect(records[6]).toMatchObject({ type: 'tool_result', status: 'success' });
    expect(records[7]).toMatchObject({
      type: 'reply_end',
      finishReason: 'completed',
      usage: { inputTokens: expect.any(Number) },
    });
    expect(JSON.stringify(records)).not.toContain('hunter2');
    for (const r of records) expect(new Date(r.at).toISOString()).toBe(r.at);
  });

  it('records a call denied by a rule, with the tool and the reason, and no run', async () => {
    server = await startOpenAITestServer({
      script: [{ toolCalls: [{ name: 'wipe', input: { disk: '/dev/sda' } }] }, { text: 'Refused.' }],
    });
    const sink = memoryAuditSink();
    const agent = new Agent({
      name: 'ops',
      model: testServerModel(server),
      tools: [wipe],
      permissions: { rules: [{ behavior: 'deny', tool: 'wipe', reason: 'Disks are never wiped by the agent.' }] },
      middlewares: [new AuditLogMiddleware({ sink })],
    });
    await run(agent, 'wipe it');
    expect(shape(sink.records)).toEqual(['reply_start', 'permission:denied', 'reply_end']);
    expect(sink.records[1]).toMatchObject({
      tool: 'wipe',
      reason: expect.stringContaining('Disks are never wiped by the agent.'),
    });
  });

  it('appends JSON lines to a file from several agents, each reply in order, with custom redaction', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'audit-'));
    try {
      server = await startOpenAITestServer({
        chunkDelayMs: 3,
        handler: (req) =>
          req.body.messages!.at(-1)!.role === 'tool'
            ? { text: 'ok' }
            : { toolCalls: [{ name: 'wipe', input: { disk: 'tmp' } }] },
      });
      const path = join(dir, 'logs', 'audit.jsonl');
      const audit = new AuditLogMiddleware({
        sink: jsonLinesFileSink(path),
        redactKeys: ['disk'],
        // Keep what was asked out of the log.
        redact: (r) => (r.type === 'reply_start' ? { ...r, input: '(omitted)' } : r),
      });
      const agents = ['a', 'b', 'c'].map(
        (name) => new Agent({ name, model: testServerModel(server), tools: [wipe], middlewares: [audit] }),
      );
      const ends = await Promise.all(agents.map((a) => run(a, 'secret question')));

      const lines = (await readFile(path, 'utf8')).trim().split('\n');
      const records = lines.map((l) => JSON.parse(l) as AuditRecord);
      expect(records).toHaveLength(12);
      for (const { end } of ends) {
        const mine = records.filter((r) => r.replyId === end.replyId);
        expect(shape(mine)).toEqual(['reply_start', 'tool_run', 'tool_result', 'reply_end']);
        expect(mine[0]).toMatchObject({ input: '(omitted)', agent: end.source });
        expect(mine[1]).toMatchObject({ input: { disk: '[REDACTED]' } });
      }
      expect(lines.join('\n')).not.toContain('secret question');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails the reply when its trail cannot be written (fail closed)', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'hello' }] });
    const sink = {
      write: (r: AuditRecord) => (r.type === 'reply_end' ? Promise.reject(new Error('disk full')) : undefined),
    };
    const agent = new Agent({
      name: 'a',
      model: testServerModel(server),
      middlewares: [new AuditLogMiddleware({ sink })],
    });
    const { end } = await run(agent, 'hi');
    expect(end).toMatchObject({ finishReason: 'error', error: { message: 'disk full' } });
    server.enqueue({ text: 'again' });
    await expect(agent.call('again')).rejects.toBeInstanceOf(AgentError);
  });

  it('records a reply cancelled by unsubscribing as interrupted', async () => {
    server = await startOpenAITestServer({ script: [{ text: ['a', 'b', 'c', 'd'], chunkDelayMs: 200 }] });
    const sink = memoryAuditSink();
    const agent = new Agent({
      name: 'a',
      model: testServerModel(server),
      middlewares: [new AuditLogMiddleware({ sink })],
    });
    await firstValueFrom(
      agent.reply('hi').pipe(
        rxFilter((e) => e.type === 'TEXT_BLOCK_DELTA'),
        take(1),
      ),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(shape(sink.records)).toEqual(['reply_start', 'reply_end']);
    expect(sink.records[1]).toMatchObject({ finishReason: 'interrupted' });
  });

  it('refuses a missing sink at construction', () => {
    expect(() => new AuditLogMiddleware({} as never)).toThrow(/sink must be an object with a write\(record\) method/);
  });
});
