// The harness's coordination parts together, on the wire: the real OpenAI client against the
// test server, the message bus on a real redis-server. A declared subagent reviews a file in a
// context of its own while another process pushes a message into the running reply; a slow
// tool goes to the background and reports through the inbox at the next reply.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineTool } from '@rxscope/core';
import {
  startOpenAITestServer,
  startRedisServer,
  type OpenAITestServer,
  type RecordedRequest,
  type RedisTestServer,
  type ServerTurn,
} from '@rxscope/core/testing/node';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { RedisMessageBus } from '../redis/index.js';
import { createHarnessAgent } from '../assembly/create-harness-agent.js';
import { pushToInbox } from '../inbox/inbox-message.js';
import { presets } from '../assembly/presets.js';
import { BackgroundTasks } from '../tasks/background-tasks.js';
import {
  closeTestServer,
  ofType,
  resultOf,
  run,
  systemPromptOf,
  tempDir,
  testServerModel,
  textOfResult,
} from './helpers.js';

let redisServer: RedisTestServer;
beforeAll(async () => {
  redisServer = await startRedisServer();
}, 20_000);
afterAll(async () => {
  await redisServer?.stop();
});

let server: OpenAITestServer;
let dir: ReturnType<typeof tempDir>;
let redises: Redis[];
let buses: RedisMessageBus[];
const busPair = () => {
  const prefix = `coord${Math.random().toString(36).slice(2)}:`;
  redises = [new Redis(redisServer.url), new Redis(redisServer.url)];
  buses = redises.map((redis) => new RedisMessageBus({ redis, prefix }));
  return { worker: buses[0]!, front: buses[1]! };
};
afterEach(async () => {
  for (const b of buses ?? []) await b.close();
  for (const r of redises ?? []) r.disconnect();
  if (server) await closeTestServer(server);
  dir?.cleanup();
});

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};
/** The messages of a request as `role:text` (tool calls named). */
const wire = (request: RecordedRequest): string[] =>
  (request.body.messages ?? []).map((m) => {
    const text =
      typeof m.content === 'string'
        ? m.content
        : (m.content ?? []).map((p) => (p.type === 'text' ? String(p['text']) : p.type)).join('');
    return `${m.role}:${m.tool_calls ? `call ${m.tool_calls.map((c) => c.function.name).join(',')}` : text}`;
  });

describe('inbox, subagents and background tools in the assembled harness', () => {
  it("a subagent reviews in its own context while a message from another process joins the parent's next request", async () => {
    dir = tempDir();
    writeFileSync(join(dir.path, 'notes.md'), 'Ship on Friday.\n');
    writeFileSync(join(dir.path, 'AGENTS.md'), 'Ship everything in English.\n');
    mkdirSync(join(dir.path, 'subagents'), { recursive: true });
    writeFileSync(
      join(dir.path, 'subagents', 'reviewer.md'),
      '---\nname: reviewer\ndescription: Reviews files.\ntools: [read_file]\n---\nYou review files and report problems.',
    );
    const { worker, front } = busPair();
    const parent: { agent?: ReturnType<typeof createHarnessAgent> } = {};
    const turns: ((request: RecordedRequest) => ServerTurn | Promise<ServerTurn>)[] = [
      () => ({
        toolCalls: [{ id: 'sp1', name: 'agent_spawn', input: { name: 'reviewer', task: 'Review notes.md.' } }],
      }),
      () => ({ toolCalls: [{ id: 'rf1', name: 'read_file', input: { path: 'notes.md' } }] }),
      async () => {
        // While the reviewer answers, a front process pushes into the parent's session.
        await pushToInbox(front, 's1', { text: 'Also check the README.', from: 'front' });
        await until(() => parent.agent!.queued.length === 1, 'the pushed message to reach the parent');
        return { text: 'notes.md is fine.' };
      },
      () => ({ text: 'Reviewed; I will check the README next.' }),
    ];
    server = await startOpenAITestServer({ handler: (request, index) => turns[index]!(request) });
    const agent = (parent.agent = createHarnessAgent({
      ...presets.research(),
      name: 'lead',
      model: testServerModel(server),
      workspace: dir.path,
      sessionId: 's1',
      bus: worker,
    }));

    const { events, end } = await run(agent, 'Have notes.md reviewed. The code word is walrus.');
    expect(end.finishReason).toBe('completed');
    expect(textOfResult(resultOf(events, 'sp1'))).toBe('notes.md is fine.');
    // The reviewer's events streamed through the parent's reply under its own name.
    const reviewer = events.filter((e) => e.source === 'reviewer');
    expect(reviewer.map((e) => e.type)).toContain('REPLY_START');
    expect(ofType(reviewer, 'TOOL_CALL_START').map((e) => e.name)).toEqual(['read_file']);
    // Its context: its prompt and the task only; its tools: read_file only.
    const [, first, second, last] = server.requests;
    // (the workspace context is lent to subagents: AGENTS.md reaches them too)
    expect(systemPromptOf(first!)).toMatch(
      /^You review files and report problems\.\n[\s\S]*Ship everything in English\./,
    );
    expect(wire(first!).slice(1)).toEqual(['user:Review notes.md.']);
    expect(JSON.stringify(second!.body)).not.toContain('walrus');
    expect((first!.body.tools ?? []).map((t) => t.function.name)).toEqual(['read_file']);
    // The pushed message is in the parent's very next request, after the subagent's result.
    expect(wire(last!).slice(-3)).toEqual([
      'assistant:call agent_spawn',
      'tool:notes.md is fine.',
      'user:[message from front]\nAlso check the README.',
    ]);
  });

  it('a slow tool goes to the background and its result, delivered over Redis, opens the next reply', async () => {
    dir = tempDir();
    const { worker } = busPair();
    let finish!: (text: string) => void;
    const crawl = defineTool({
      name: 'crawl',
      description: 'crawls the site',
      input: z.object({}),
      execute: () => new Promise<string>((r) => (finish = r)),
    });
    server = await startOpenAITestServer({
      script: [
        { toolCalls: [{ id: 'c1', name: 'crawl', input: {} }] },
        { text: 'The crawl runs in the background.' },
        { text: '42 pages.' },
      ],
    });
    const tasks = new BackgroundTasks({ bus: worker });
    const agent = createHarnessAgent({
      ...presets.research(),
      model: testServerModel(server),
      workspace: dir.path,
      sessionId: 's2',
      bus: worker,
      tasks,
      tools: [crawl],
      asyncTools: { timeoutMs: 50 },
    });
    const first = await run(agent, 'Crawl the site.');
    expect(textOfResult(resultOf(first.events, 'c1'))).toMatch(
      /^Tool "crawl" is still running after 50 ms, so it goes on in the background as task (task_\S+)\. .*task_output \{task_id: "task_\S+"\} shows how it stands and task_cancel stops it\.$/,
    );
    finish('42 pages crawled');
    await tasks.idle();
    await run(agent, 'How many pages?');
    expect(wire(server.requests[2]!).at(-1)).toMatch(
      /^user:\[message from task task_\S+\]\nBackground task task_\S+ \(the tool call "crawl"\) finished\. Its result:\n\n42 pages crawled$/,
    );
  });
});
