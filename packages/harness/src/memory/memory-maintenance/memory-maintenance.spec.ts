import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
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
import { MAINTENANCE_FILE, MemoryMaintenanceMiddleware } from './index.js';

const isMaintenance = (r: RecordedRequest) => systemPromptOf(r).includes('You maintain MEMORY.md');
const userTextOf = (r: RecordedRequest): string => {
  const content = r.body.messages?.[1]?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
};

describe('MemoryMaintenanceMiddleware (through the OpenAI-compatible test server)', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer;
  let bus: InMemorySessionEventBus;
  let now: Date;
  const logged: string[] = [];
  beforeEach(() => {
    dir = tempDir();
    bus = new InMemorySessionEventBus();
    now = new Date('2026-03-14T09:00:00Z');
    logged.length = 0;
    mkdirSync(join(dir.path, 'memory'), { recursive: true });
    writeFileSync(join(dir.path, 'MEMORY.md'), '## User\n- The user is called Ada.\n');
    writeFileSync(
      join(dir.path, 'memory', '2026-03-12.md'),
      '# Memory ledger 2026-03-12\n\n## 10:00 UTC — session s0\n- Ada moved to Lisbon.\n',
    );
    writeFileSync(
      join(dir.path, 'memory', '2026-03-14.md'),
      '# Memory ledger 2026-03-14\n\n## 08:00 UTC — session s0\n- Ada likes jazz.\n',
    );
  });
  afterEach(async () => {
    await closeTestServer(server);
    await bus.close();
    dir.cleanup();
  });

  async function setUp(
    turn: (request: RecordedRequest) => Promise<ServerTurn> | ServerTurn,
    options: { maxChars?: number } = {},
  ) {
    server = await startOpenAITestServer({
      handler: (request) => (isMaintenance(request) ? turn(request) : { text: 'Sure.' }),
    });
    const maintenance = new MemoryMaintenanceMiddleware({
      fileSystem: new LocalFileSystem(dir.path),
      bus,
      now: () => now,
      intervalMs: 3_600_000,
      ...options,
      onError: (e, what) => logged.push(`${what}: ${(e as Error).message}`),
    });
    const agent = new Agent({
      name: 'assistant',
      model: testServerModel(server),
      sessionId: 's1',
      middlewares: [maintenance],
    });
    return { maintenance, agent };
  }

  const customEvents = async (): Promise<AgentEvent[]> => {
    const seen: AgentEvent[] = [];
    const sub = bus.events('s1', { lastEventId: '' }).subscribe((e) => seen.push(e));
    await new Promise((r) => setTimeout(r, 20));
    sub.unsubscribe();
    return seen.filter((e) => e.type === 'CUSTOM' && e.name !== REPLAY_GAP);
  };

  it('after a reply (which does not wait), folds the older ledgers into MEMORY.md and archives them and the old MEMORY.md; today stays', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const { maintenance, agent } = await setUp(async () => {
      await held;
      return { text: '## User\n- The user is called Ada.\n- Ada lives in Lisbon.' };
    });
    const { end } = await run(agent, 'hi');
    expect(end.finishReason).toBe('completed');
    expect(readFileSync(join(dir.path, 'MEMORY.md'), 'utf8')).toBe('## User\n- The user is called Ada.\n');
    release();
    await maintenance.idle();

    const request = userTextOf(server.requests.find(isMaintenance)!);
    expect(request).toContain('- The user is called Ada.');
    expect(request).toContain('Ledger memory/2026-03-12.md:');
    expect(request).not.toContain('Ada likes jazz'); // today's ledger is kept for later
    expect(readFileSync(join(dir.path, 'MEMORY.md'), 'utf8')).toBe(
      '## User\n- The user is called Ada.\n- Ada lives in Lisbon.\n',
    );
    expect(existsSync(join(dir.path, 'memory', '2026-03-12.md'))).toBe(false);
    expect(readFileSync(join(dir.path, 'memory', 'archive', '2026-03-12.md'), 'utf8')).toContain(
      '- Ada moved to Lisbon.',
    );
    const archive = readdirSync(join(dir.path, 'memory', 'archive')).sort();
    expect(archive).toEqual(['2026-03-12.md', 'MEMORY-2026-03-14T09-00-00-000Z.md']);
    expect(readFileSync(join(dir.path, 'memory', 'archive', archive[1]!), 'utf8')).toBe(
      '## User\n- The user is called Ada.\n',
    );
    expect(existsSync(join(dir.path, 'memory', '2026-03-14.md'))).toBe(true);
    expect((await customEvents()).map((e) => e.type === 'CUSTOM' && [e.name, e.value])).toEqual([
      [
        'memory_consolidated',
        {
          ledgers: ['memory/2026-03-12.md'],
          archived: ['memory/archive/2026-03-12.md'],
          chars: '## User\n- The user is called Ada.\n- Ada lives in Lisbon.'.length,
        },
      ],
    ]);
  });

  it('a reply paused for a confirmation starts no run; its completion in a new agent from the saved state does', async () => {
    const pay = defineTool({
      name: 'pay',
      description: 'pays someone',
      input: z.object({ to: z.string() }),
      needsApproval: true,
      execute: ({ to }) => `paid ${to}`,
    });
    server = await startOpenAITestServer({
      handler: (request) =>
        isMaintenance(request)
          ? { text: '## User\n- The user is called Ada.\n- Ada lives in Lisbon.' }
          : JSON.stringify(request.body.messages).includes('paid Bob')
            ? { text: 'Paid.' }
            : { toolCalls: [{ id: 'p1', name: 'pay', input: { to: 'Bob' } }] },
    });
    const agentWith = (m: MemoryMaintenanceMiddleware, state?: ReturnType<Agent['saveState']>) =>
      new Agent({
        name: 'assistant',
        model: testServerModel(server),
        sessionId: 's1',
        tools: [pay],
        middlewares: [m],
        state,
      });
    const maintenanceOf = () =>
      new MemoryMaintenanceMiddleware({
        fileSystem: new LocalFileSystem(dir.path),
        bus,
        now: () => now,
        intervalMs: 3_600_000,
      });
    const firstMaintenance = maintenanceOf();
    const first = agentWith(firstMaintenance);
    expect((await run(first, 'Pay Bob.')).end.finishReason).toBe('awaiting_confirmation');
    await firstMaintenance.idle();
    expect(server.requests.some(isMaintenance)).toBe(false);

    const secondMaintenance = maintenanceOf();
    const second = agentWith(secondMaintenance, first.saveState());
    const resumed = await run(second, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: 'p1', confirmed: true }],
    });
    expect(resumed.end.finishReason).toBe('completed');
    await secondMaintenance.idle();
    expect(server.requests.filter(isMaintenance)).toHaveLength(1);
    expect(readFileSync(join(dir.path, 'MEMORY.md'), 'utf8')).toContain('- Ada lives in Lisbon.');
  });

  it('is throttled: no second run within the interval (kept on disk, so a new process honours it too), one after it', async () => {
    const { maintenance, agent } = await setUp(() => ({ text: '## User\n- Ada.' }));
    await run(agent, 'one');
    await maintenance.idle();
    expect(JSON.parse(readFileSync(join(dir.path, MAINTENANCE_FILE), 'utf8'))).toEqual({
      lastRunAt: '2026-03-14T09:00:00.000Z',
    });
    // A day later today's ledger is old enough, but a fresh middleware (another process) within the interval does nothing.
    now = new Date('2026-03-14T09:30:00Z');
    writeFileSync(join(dir.path, 'memory', '2026-03-13.md'), '- late ledger\n');
    const other = new MemoryMaintenanceMiddleware({
      fileSystem: new LocalFileSystem(dir.path),
      now: () => now,
      intervalMs: 3_600_000,
    });
    const agent2 = new Agent({ model: testServerModel(server), sessionId: 's2', middlewares: [other] });
    await run(agent2, 'two');
    await other.idle();
    expect(server.requests.filter(isMaintenance)).toHaveLength(1);
    now = new Date('2026-03-14T10:01:00Z');
    await run(agent2, 'three');
    await other.idle();
    expect(server.requests.filter(isMaintenance)).toHaveLength(2);
    expect(existsSync(join(dir.path, 'memory', 'archive', '2026-03-13.md'))).toBe(true);
  });

  it('a failed run (model error, or a file over maxChars) changes nothing and is reported on the bus and in the log', async () => {
    const { maintenance, agent } = await setUp(() => ({ text: 'x'.repeat(500) }), { maxChars: 100 });
    const { end } = await run(agent, 'hi');
    expect(end.finishReason).toBe('completed');
    await maintenance.idle();
    expect(readFileSync(join(dir.path, 'MEMORY.md'), 'utf8')).toBe('## User\n- The user is called Ada.\n');
    expect(existsSync(join(dir.path, 'memory', '2026-03-12.md'))).toBe(true);
    expect(existsSync(join(dir.path, 'memory', 'archive'))).toBe(false);
    expect(existsSync(join(dir.path, MAINTENANCE_FILE))).toBe(false);
    const [failed] = await customEvents();
    expect(failed).toMatchObject({
      name: 'memory_maintenance_failed',
      value: { error: expect.stringContaining('over the limit of 100') },
    });
    expect(logged).toEqual([
      expect.stringMatching(/^memory maintenance of session "s1": the model's MEMORY.md has 500 characters/),
    ]);
  });

  it('checks its options', () => {
    expect(
      () => new MemoryMaintenanceMiddleware({ fileSystem: new LocalFileSystem(dir.path), intervalMs: -1 }),
    ).toThrow(/intervalMs must be a number >= 0/);
    expect(() => new MemoryMaintenanceMiddleware({} as never)).toThrow(/needs the workspace/);
  });
});
