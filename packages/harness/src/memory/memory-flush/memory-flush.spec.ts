import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { Agent, type AgentEvent, defineTool, REPLAY_GAP } from '@rxscope/core';
import { InMemorySessionEventBus } from '@rxscope/core/node';
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';
import { closeTestServer, run, systemPromptOf, tempDir, testServerModel } from '../../__tests__/helpers.js';
import { LocalFileSystem } from '../../workspace/local-file-system.js';
import { MemoryFlushMiddleware } from './index.js';

const isFlush = (r: RecordedRequest) => systemPromptOf(r).includes('long-term memory of an AI agent');
const userTextOf = (r: RecordedRequest): string => {
  const content = r.body.messages?.[1]?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
};
const NOW = new Date('2026-03-14T09:26:00Z');

/** A gate the test opens: the flush's model answer waits behind it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe('MemoryFlushMiddleware (through the OpenAI-compatible test server)', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer;
  let bus: InMemorySessionEventBus;
  const logged: string[] = [];
  beforeEach(() => {
    dir = tempDir();
    bus = new InMemorySessionEventBus();
    logged.length = 0;
  });
  afterEach(async () => {
    await closeTestServer(server);
    await bus.close();
    dir.cleanup();
  });

  function setUp(flushTurn: (request: RecordedRequest, n: number) => Promise<ServerTurn> | ServerTurn) {
    let flushes = 0;
    let replies = 0;
    return startOpenAITestServer({
      handler: (request) => (isFlush(request) ? flushTurn(request, flushes++) : { text: `Answer ${++replies}.` }),
    }).then((s) => {
      server = s;
      const flush = new MemoryFlushMiddleware({
        fileSystem: new LocalFileSystem(dir.path),
        bus,
        now: () => NOW,
        onError: (e, what) => logged.push(`${what}: ${(e as Error).message}`),
      });
      const agent = new Agent({
        name: 'assistant',
        model: testServerModel(server),
        sessionId: 's1',
        middlewares: [flush],
      });
      return { flush, agent };
    });
  }

  const busEvents = async (): Promise<AgentEvent[]> => {
    const seen: AgentEvent[] = [];
    const sub = bus.events('s1', { lastEventId: '' }).subscribe((e) => seen.push(e));
    await new Promise((r) => setTimeout(r, 20));
    sub.unsubscribe();
    // Asked from an id the log does not hold: a replay-gap notice, then the whole log.
    return seen.filter((e) => e.type === 'CUSTOM' && e.name !== REPLAY_GAP);
  };

  it('the reply completes while the flush is still waiting for its model answer; the facts land in memory/YYYY-MM-DD.md after', async () => {
    const hold = gate();
    const { flush, agent } = await setUp(async () => {
      await hold.opened;
      return { text: ['- The user prefers tabs over spaces.\n', '- The project deploys on Fridays.'] };
    });
    const { end } = await run(agent, 'I prefer tabs over spaces. We deploy on Fridays.');
    expect(end.finishReason).toBe('completed');
    // The reply is over, and the flush's request reached the server and is still unanswered.
    await waitUntil(() => server.requests.some(isFlush));
    const ledger = join(dir.path, 'memory', '2026-03-14.md');
    expect(existsSync(ledger)).toBe(false);
    const request = server.requests.find(isFlush)!;
    expect(userTextOf(request)).toContain('user: I prefer tabs over spaces. We deploy on Fridays.');
    expect(userTextOf(request)).toContain('assistant: Answer 1.');

    hold.open();
    await flush.idle();
    expect(readFileSync(ledger, 'utf8')).toBe(
      '# Memory ledger 2026-03-14\n\n## 09:26 UTC — session s1\n- The user prefers tabs over spaces.\n- The project deploys on Fridays.\n',
    );
    const events = await busEvents();
    expect(events.map((e) => e.type === 'CUSTOM' && [e.name, e.value])).toEqual([
      [
        'memory_flushed',
        {
          path: 'memory/2026-03-14.md',
          facts: ['The user prefers tabs over spaces.', 'The project deploys on Fridays.'],
        },
      ],
    ]);
  });

  it('one session never runs two flushes at once; each flush reads only what came after the previous one', async () => {
    const holds = [gate(), gate()];
    let inFlight = 0;
    let most = 0;
    const { flush, agent } = await setUp(async (_r, n) => {
      most = Math.max(most, ++inFlight);
      await holds[n]!.opened;
      inFlight--;
      return { text: n === 0 ? '- The user is called Ada.' : '- Ada works in Lisbon.' };
    });
    await run(agent, 'I am Ada.');
    await run(agent, 'I work in Lisbon.');
    await waitUntil(() => server.requests.filter(isFlush).length === 1);
    await new Promise((r) => setTimeout(r, 100));
    // The second flush waits for the first: it has not asked the model yet.
    expect(server.requests.filter(isFlush)).toHaveLength(1);
    holds[0]!.open();
    await waitUntil(() => server.requests.filter(isFlush).length === 2);
    holds[1]!.open();
    await flush.idle();
    expect(most).toBe(1);
    const [first, second] = server.requests.filter(isFlush).map(userTextOf);
    expect(first).toContain('I am Ada.');
    expect(second).toContain('I work in Lisbon.');
    expect(second).not.toContain('I am Ada.');
    // The second flush was told what the ledger already holds.
    expect(second).toContain('The user is called Ada.');
    const ledger = readFileSync(join(dir.path, 'memory', '2026-03-14.md'), 'utf8');
    expect(ledger).toContain('- The user is called Ada.');
    expect(ledger).toContain('- Ada works in Lisbon.');
  });

  it('a reply paused for a confirmation is flushed once, when it completes in a new agent from the saved state', async () => {
    const pay = defineTool({
      name: 'pay',
      description: 'pays someone',
      input: z.object({ to: z.string() }),
      needsApproval: true,
      execute: ({ to }) => `paid ${to}`,
    });
    server = await startOpenAITestServer({
      handler: (request) =>
        isFlush(request)
          ? { text: '- The user pays Bob monthly.' }
          : JSON.stringify(request.body.messages).includes('paid Bob')
            ? { text: 'Paid.' }
            : { toolCalls: [{ id: 'p1', name: 'pay', input: { to: 'Bob' } }] },
    });
    const agentWith = (flush: MemoryFlushMiddleware, state?: ReturnType<Agent['saveState']>) =>
      new Agent({
        name: 'assistant',
        model: testServerModel(server),
        sessionId: 's1',
        tools: [pay],
        middlewares: [flush],
        state,
      });
    const flushOf = () => new MemoryFlushMiddleware({ fileSystem: new LocalFileSystem(dir.path), bus, now: () => NOW });
    const firstFlush = flushOf();
    const first = agentWith(firstFlush);
    expect((await run(first, 'Pay Bob, as every month.')).end.finishReason).toBe('awaiting_confirmation');
    await firstFlush.idle();
    expect(server.requests.some(isFlush)).toBe(false);

    const secondFlush = flushOf();
    const second = agentWith(secondFlush, first.saveState());
    const resumed = await run(second, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: 'p1', confirmed: true }],
    });
    expect(resumed.end.finishReason).toBe('completed');
    await secondFlush.idle();
    const flushes = server.requests.filter(isFlush).map(userTextOf);
    expect(flushes).toHaveLength(1);
    expect(flushes[0]).toContain('user: Pay Bob, as every month.');
    expect(flushes[0]).toContain('assistant: Paid.');
    expect(readFileSync(join(dir.path, 'memory', '2026-03-14.md'), 'utf8')).toContain('- The user pays Bob monthly.');
  });

  it('a failed flush is reported on the bus and in the log; the reply is not affected and nothing is written', async () => {
    const { flush, agent } = await setUp(() => ({ fault: 'unauthorized' }));
    const { end } = await run(agent, 'Remember that I like jazz.');
    expect(end.finishReason).toBe('completed');
    await flush.idle();
    const events = await busEvents();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'CUSTOM',
      name: 'memory_flush_failed',
      source: 'assistant',
      replyId: end.replyId,
    });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^memory flush of session "s1": /);
    expect(existsSync(join(dir.path, 'memory', '2026-03-14.md'))).toBe(false);
  });

  it('"NONE" and facts the ledger already holds write nothing', async () => {
    const { flush, agent } = await setUp((_r, n) => ({ text: n === 0 ? 'NONE' : '- The sky is blue.' }));
    await run(agent, 'hello');
    await flush.idle();
    expect(existsSync(join(dir.path, 'memory', '2026-03-14.md'))).toBe(false);
    await run(agent, 'The sky is blue.');
    await flush.idle();
    await run(agent, 'Really, the sky is blue.');
    await flush.idle();
    const ledger = readFileSync(join(dir.path, 'memory', '2026-03-14.md'), 'utf8');
    expect(ledger.match(/The sky is blue/g)).toHaveLength(1);
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 10));
  }
}
