import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMsg, ModelError, type Msg } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';
import {
  closeTestServer,
  customValues,
  run,
  systemPromptOf,
  tempDir,
  testServerModel,
} from '../../__tests__/helpers.js';
import { createHarnessAgent } from '../../assembly/create-harness-agent.js';
import { COMPACTION_SUMMARY } from './index.js';
import { estimateTokens, TokenTally } from './token-count.js';

const SUMMARY =
  '## Intent\nShip v2.\n## Summary\nSUMMARY-MARKER: 150 modules reviewed.\n## Artifacts\n- src/\n## Next steps\nContinue.';

/** 300 messages: questions, answers, and every other answer with a tool call and its result. */
function longConversation(n = 300): Msg[] {
  const out: Msg[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) out.push(createMsg('user', `Q${i}: review module ${i}. ${'context '.repeat(30)}`));
    else
      out.push(
        createMsg('assistant', [
          { type: 'tool_call', id: `call_${i}`, name: 'read_file', arguments: `{"path":"src/m${i}.ts"}` },
          {
            type: 'tool_result',
            toolCallId: `call_${i}`,
            name: 'read_file',
            status: 'success',
            output: [{ type: 'text', text: `module ${i} ${'code '.repeat(40)}` }],
          },
          { type: 'text', text: `A${i}: module ${i} is fine.` },
        ]),
      );
  }
  return out;
}
const stateWith = (context: Msg[]) => ({
  version: 1,
  agentName: 'coder',
  sessionId: 's1',
  context,
  middlewareState: {},
  permissions: { mode: 'default', rules: [] },
});
const isSummariser = (req: RecordedRequest) => systemPromptOf(req).startsWith('You compact the history');
const userTexts = (req: RecordedRequest) =>
  (req.body.messages ?? [])
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

describe('CompactionMiddleware', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer | undefined;
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    if (server) await closeTestServer(server);
    server = undefined;
    dir.cleanup();
  });

  it('compacts a 300-message conversation with tool calls: no orphan call, the summary reaches the model, the next step does not compact again, the state holds it', async () => {
    server = await startOpenAITestServer({
      handler: (req): ServerTurn => (isSummariser(req) ? { text: SUMMARY } : { text: 'Continuing.' }),
    });
    const agent = createHarnessAgent({
      name: 'coder',
      model: testServerModel(server),
      workspace: dir.path,
      state: stateWith(longConversation()),
      compaction: { triggerTokens: 20_000, keepTokens: 2_000 },
    });
    const tokensBefore = new TokenTally(estimateTokens).total(agent.context);
    expect(tokensBefore).toBeGreaterThan(20_000);
    const first = await run(agent, 'Go on with the review.');
    const [start] = customValues<{ messages: number; reason: string }>(first.events, 'compaction_start');
    const [end] = customValues<{
      messagesBefore: number;
      messagesAfter: number;
      tokensBefore: number;
      tokensAfter: number;
      historyPath: string;
    }>(first.events, 'compaction_end');
    expect(start).toMatchObject({ messages: 301, reason: 'tokens' });
    expect(end!.messagesBefore).toBe(301);
    expect(end!.messagesAfter).toBeLessThan(40);
    expect(end!.tokensAfter).toBeLessThan(3_000);
    // The summariser saw the old messages; the agent's step saw the summary, not them.
    const [summariser, step] = server.requests;
    expect(isSummariser(summariser!)).toBe(true);
    expect(JSON.stringify(summariser!.body.messages)).toContain('Q0: review module 0');
    expect(userTexts(step!)[0]).toContain('SUMMARY-MARKER');
    expect(JSON.stringify(step!.body.messages)).not.toContain('Q0: review module 0');
    // No tool call without its result (run() checks the conversation), and the tail is intact.
    const calls = agent.context.flatMap((m) => m.content.filter((b) => b.type === 'tool_call').map((b) => b.id));
    const results = new Set(
      agent.context.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_result' ? [b.toolCallId] : []))),
    );
    expect(calls.every((id) => results.has(id))).toBe(true);
    expect(calls).toContain('call_299');
    // Saved: the full history first, then the summary in the state.
    const history = JSON.parse(readFileSync(join(dir.path, end!.historyPath), 'utf8')) as { messages: Msg[] };
    expect(history.messages).toHaveLength(301);
    const saved = agent.saveState();
    expect(saved.context[0]!.metadata?.[COMPACTION_SUMMARY]).toMatchObject({
      historyPath: end!.historyPath,
      messages: 301 - end!.messagesAfter + 1,
    });
    expect(JSON.stringify(saved.context[0])).toContain('SUMMARY-MARKER');
    // The next reply does not summarise again.
    const second = await run(agent, 'And the next one?');
    expect(customValues(second.events, 'compaction_start')).toEqual([]);
    expect(server.requests.filter(isSummariser)).toHaveLength(1);
  });

  it('folds an earlier summary into the next one', async () => {
    server = await startOpenAITestServer({
      handler: (req): ServerTurn =>
        isSummariser(req) ? { text: SUMMARY } : { text: `Answer ${'words '.repeat(400)}` },
    });
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      state: stateWith(longConversation(40)),
      compaction: { triggerTokens: 3_000, keepTokens: 600 },
    });
    await run(agent, 'first');
    for (let i = 0; i < 4; i++) await run(agent, `more ${i}`);
    const summarisers = server.requests.filter(isSummariser);
    expect(summarisers.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(summarisers[1]!.body.messages)).toContain('Earlier summary:\\n## Intent');
    expect(agent.context.filter((m) => m.metadata?.[COMPACTION_SUMMARY])).toHaveLength(1);
  });

  it('triggers on the message count too', async () => {
    server = await startOpenAITestServer({
      handler: (req): ServerTurn => (isSummariser(req) ? { text: SUMMARY } : { text: 'ok' }),
    });
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      state: stateWith(longConversation(30)),
      compaction: { triggerMessages: 20, keepTokens: 500 },
    });
    const { events } = await run(agent, 'go');
    expect(customValues(events, 'compaction_start')).toEqual([
      { messages: 31, tokens: expect.any(Number) as number, reason: 'messages' },
    ]);
  });

  it('on a context-overflow error, compacts and retries the step once', async () => {
    const overflow = new ModelError("This model's maximum context length is 8192 tokens", {
      code: 'context_length_exceeded',
      status: 400,
    });
    const model = new ScriptedChatModel([{ error: overflow }, { text: SUMMARY }, { text: 'Recovered.' }]);
    const agent = createHarnessAgent({
      model,
      workspace: dir.path,
      state: stateWith(longConversation(60)),
      compaction: { triggerTokens: 1_000_000 },
    });
    const { events, end } = await run(agent, 'go');
    expect(end.finishReason).toBe('completed');
    expect(customValues(events, 'compaction_start')).toMatchObject([{ reason: 'context_overflow' }]);
    expect(model.requests).toHaveLength(3);
    expect(JSON.stringify(model.requests[2]!.messages)).toContain('SUMMARY-MARKER');

    // A second overflow right after the retry is an error, not a loop.
    const looping = new ScriptedChatModel([{ error: overflow }, { text: SUMMARY }, { error: overflow }]);
    const failing = createHarnessAgent({
      model: looping,
      workspace: dir.path,
      state: stateWith(longConversation(60)),
      compaction: { triggerTokens: 1_000_000 },
    });
    const second = await run(failing, 'go');
    expect(second.end.finishReason).toBe('error');
    expect(looping.requests).toHaveLength(3);
  });

  it('compacts nothing when the history cannot be saved first', async () => {
    server = await startOpenAITestServer({
      handler: (req): ServerTurn => (isSummariser(req) ? { text: SUMMARY } : { text: 'ok' }),
    });
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      state: stateWith(longConversation(30)),
      compaction: { triggerMessages: 10 },
    });
    // A file where the history folder should be: the save fails.
    rmSync(join(dir.path, 'conversation_history'), { recursive: true });
    writeFileSync(join(dir.path, 'conversation_history'), 'a file where the folder should be');
    const { events } = await run(agent, 'go');
    expect(customValues<{ reason: string }>(events, 'compaction_failed')[0]!.reason).toMatch(
      /saving the history failed/,
    );
    expect(agent.context).toHaveLength(32);
    expect(server.requests.filter(isSummariser)).toHaveLength(0);
  });

  it('when the summary call fails, emits compaction_failed, keeps the conversation and still runs the step', async () => {
    const badRequest = new ModelError('400 Bad Request: invalid summary request', { status: 400 });
    const model = new ScriptedChatModel([{ error: badRequest }, { text: 'Answered without compacting.' }]);
    const agent = createHarnessAgent({
      model,
      workspace: dir.path,
      state: stateWith(longConversation(30)),
      compaction: { triggerMessages: 10 },
    });
    const { events, end } = await run(agent, 'go');
    expect(end.finishReason).toBe('completed');
    expect(customValues(events, 'compaction_failed')).toEqual([
      {
        reason: expect.stringMatching(/^the summary failed: 400 Bad Request/) as string,
        error: expect.stringMatching(/400 Bad Request/) as string,
      },
    ]);
    expect(customValues(events, 'compaction_end')).toEqual([]);
    // The step's own model call ran on the whole conversation, which is kept as it was.
    expect(model.requests).toHaveLength(2);
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('Q0: review module 0');
    expect(agent.context).toHaveLength(32);
    expect(agent.context.some((m) => m.metadata?.[COMPACTION_SUMMARY])).toBe(false);
  });

  it('a summary that does not answer in summaryTimeoutMs fails the compaction, not the reply', async () => {
    server = await startOpenAITestServer({
      handler: (req): ServerTurn => (isSummariser(req) ? { fault: 'stall', text: 'never' } : { text: 'ok' }),
    });
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      state: stateWith(longConversation(30)),
      compaction: { triggerMessages: 10, summaryTimeoutMs: 300 },
    });
    const { events, end } = await run(agent, 'go');
    expect(end.finishReason).toBe('completed');
    expect(customValues<{ reason: string }>(events, 'compaction_failed')[0]!.reason).toMatch(/^the summary failed/);
    expect(agent.context).toHaveLength(32);
  });

  it('refuses keepTokens not below triggerTokens at construction', () => {
    expect(() =>
      createHarnessAgent({
        model: new ScriptedChatModel([]),
        workspace: dir.path,
        compaction: { triggerTokens: 1000, keepTokens: 1000 },
      }),
    ).toThrow(/keepTokens must be smaller than triggerTokens/);
  });
});

describe('TokenTally', () => {
  it('counts each message once and reuses the sums up to the first changed message', () => {
    let counted = 0;
    const tally = new TokenTally((m) => {
      counted++;
      return estimateTokens(m);
    });
    const msgs = longConversation(100);
    const total = tally.total(msgs);
    expect(counted).toBe(100);
    expect(tally.total([...msgs, createMsg('user', 'one more')])).toBeGreaterThan(total);
    expect(counted).toBe(101);
    expect(tally.total([msgs[0]!, ...msgs.slice(2)])).toBeLessThan(total);
    expect(counted).toBe(101);
  });
});
