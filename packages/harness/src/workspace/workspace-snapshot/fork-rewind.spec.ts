import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { createMsg, defineTool, InMemorySessionStore, UnknownMessageError, type Msg } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer, type RecordedRequest } from '@rxscope/core/testing/node';
import {
  closeTestServer,
  customValues,
  run,
  systemPromptOf,
  tempDir,
  testServerModel,
  textOfResult,
  resultOf,
} from '../../__tests__/helpers.js';
import { createHarnessAgent } from '../../assembly/create-harness-agent.js';
import { COMPACTION_SUMMARY } from '../../context/index.js';

const SUMMARY = '## Intent\nShip.\n## Summary\nEARLIER-WORK summarised.\n## Artifacts\n- none\n## Next steps\nGo on.';

/** A tool whose result is long enough to be evicted. */
const dump = defineTool({
  name: 'dump',
  description: 'Returns a lot of text',
  input: z.object({ size: z.number() }),
  execute: ({ size }) => `HEAD\n${'y'.repeat(size)}\nTAIL`,
});

/** What the model does: summarises for the compaction; otherwise acts on the last user message. */
function modelTurn(req: RecordedRequest) {
  if (systemPromptOf(req).startsWith('You compact the history')) return { text: SUMMARY };
  const messages = req.body.messages ?? [];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const text = typeof lastUser?.content === 'string' ? lastUser.content : JSON.stringify(lastUser?.content);
  const answered = messages.at(-1)?.role === 'tool';
  if (text.includes('write one') && !answered) {
    return {
      toolCalls: [
        { id: 'w1', name: 'write_file', input: { path: 'a.txt', content: 'one\n' } },
        { id: 'big', name: 'dump', input: { size: 3000 } },
      ],
    };
  }
  if (text.includes('write two') && !answered) {
    return {
      toolCalls: [
        { id: 'w2', name: 'write_file', input: { path: 'a.txt', content: 'two\n' } },
        { id: 'w3', name: 'write_file', input: { path: 'b.txt', content: 'new\n' } },
      ],
    };
  }
  return { text: `done (${text.slice(0, 20)})` };
}

/** Twelve earlier messages, enough for the compaction to summarise them on the first step. */
function earlier(): Msg[] {
  return Array.from({ length: 12 }, (_, i) =>
    i % 2 ? createMsg('assistant', `answer ${i}`) : createMsg('user', `question ${i}`),
  );
}

/** Every tool call of a conversation has its result in the same message, and every result its call. */
function pairsIntact(context: readonly Msg[]): boolean {
  return context.every((m) => {
    const calls = m.content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : []));
    const results = m.content.flatMap((b) => (b.type === 'tool_result' ? [b.toolCallId] : []));
    return calls.length === results.length && calls.every((id) => results.includes(id));
  });
}

describe('fork and rewind with compaction, evicted results and workspace snapshots', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer;
  beforeEach(async () => {
    dir = tempDir();
    server = await startOpenAITestServer({ handler: modelTurn });
  });
  afterEach(async () => {
    await closeTestServer(server);
    dir.cleanup();
  });

  const agentFor = (store: InMemorySessionStore, sessionId: string, context?: Msg[]) =>
    createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      store,
      sessionId,
      tools: [dump],
      workspaceSnapshot: true,
      toolResultEviction: { maxResultChars: 1000 },
      compaction: { triggerMessages: 10, keepMessages: 2 },
      ...(context
        ? {
            state: {
              version: 3,
              agentName: 'coder',
              sessionId,
              context,
              middlewareState: {},
              permissions: { mode: 'default', rules: [] },
            },
          }
        : {}),
    });

  async function twoReplies() {
    const store = new InMemorySessionStore();
    const history = earlier();
    const agent = agentFor(store, 's1', history);
    const first = await run(agent, 'write one');
    expect(customValues(first.events, 'compaction_end')).toHaveLength(1);
    const evicted = customValues<{ path: string }>(first.events, 'tool_result_evicted')[0]!;
    expect(textOfResult(resultOf(first.events, 'big'))).toContain(evicted.path);
    await run(agent, 'write two');
    expect(readFileSync(join(dir.path, 'a.txt'), 'utf8')).toBe('two\n');
    expect(readFileSync(join(dir.path, 'b.txt'), 'utf8')).toBe('new\n');
    const reply1 = agent.context.find((m) => m.content.some((b) => b.type === 'tool_call' && b.id === 'w1'))!;
    const question2 = agent.context.find((m) => m.role === 'user' && JSON.stringify(m.content).includes('write two'))!;
    return { store, agent, history, reply1, question2, evictedPath: evicted.path };
  }

  it('a fork up to the first reply has its conversation (summary and pointer kept, pairs intact) and, at its next reply, its files', async () => {
    const { store, agent, reply1, evictedPath } = await twoReplies();
    const fork = agent.fork({ upTo: reply1.id, sessionId: 's1-fork' });

    expect(fork.sessionId).toBe('s1-fork');
    const ids = agent.context.map((m) => m.id);
    expect(fork.context.map((m) => m.id)).toEqual(ids.slice(0, ids.indexOf(reply1.id) + 1));
    expect(fork.context[0]!.metadata?.[COMPACTION_SUMMARY]).toBeDefined(); // the compaction's summary leads it
    expect(pairsIntact(fork.context)).toBe(true);
    expect(JSON.stringify(fork.context.at(-1))).toContain(evictedPath);
    // Saved under its own session id; the original session is unchanged.
    await new Promise((r) => setTimeout(r, 20));
    expect((await store.load('s1-fork'))?.state.context.map((m) => m.id)).toEqual(fork.context.map((m) => m.id));
    expect(agent.context.map((m) => m.id)).toEqual(ids);

    const forked = await run(fork, 'What is in a.txt?');
    expect(customValues<{ written: string[] }>(forked.events, 'workspace_restored')).toEqual([
      expect.objectContaining({ written: expect.arrayContaining(['a.txt', 'b.txt']) as string[] }),
    ]);
    expect(readFileSync(join(dir.path, 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(dir.path, 'b.txt'))).toBe(false); // created after that message
    expect(existsSync(join(dir.path, evictedPath))).toBe(true); // the kept pointer still leads to its file
    expect(pairsIntact(fork.context)).toBe(true);

    // The original session gets its own files back at its next reply.
    await run(agent, 'and now?');
    expect(readFileSync(join(dir.path, 'a.txt'), 'utf8')).toBe('two\n');
    expect(readFileSync(join(dir.path, 'b.txt'), 'utf8')).toBe('new\n');
  });

  it('rewinds in place to before a message, files included, and is saved to the store', async () => {
    const { store, agent, question2 } = await twoReplies();
    const before = agent.context.map((m) => m.id);
    agent.rewind({ before: question2.id });
    expect(agent.context.map((m) => m.id)).toEqual(before.slice(0, before.indexOf(question2.id)));
    await new Promise((r) => setTimeout(r, 20));
    expect((await store.load('s1'))?.state.context).toHaveLength(agent.context.length);

    await run(agent, 'write two');
    expect(readFileSync(join(dir.path, 'a.txt'), 'utf8')).toBe('two\n');

    // Rewinding past every change brings back the workspace as it was before the first one.
    agent.rewind({ before: agent.context.find((m) => JSON.stringify(m.content).includes('write one'))!.id });
    await run(agent, 'nothing to write');
    expect(existsSync(join(dir.path, 'a.txt'))).toBe(false);
    expect(existsSync(join(dir.path, 'b.txt'))).toBe(false);
  });

  it('refuses a message the compaction replaced, naming it, and changes nothing', async () => {
    const { agent, history } = await twoReplies();
    const before = agent.context;
    const gone = history[0]!.id;
    expect(() => agent.rewind({ to: gone })).toThrow(UnknownMessageError);
    expect(() => agent.fork({ upTo: gone })).toThrow(new RegExp(`no message "${gone}"`));
    expect(agent.context).toBe(before);
  });
});
