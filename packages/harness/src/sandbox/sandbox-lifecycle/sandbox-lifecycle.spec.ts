import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { Agent, type AgentEvent } from '@rxscope/core';
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';
import {
  closeTestServer,
  ofType,
  resultOf,
  run,
  tempDir,
  testServerModel,
  textOfResult,
  wireToolResults,
} from '../../__tests__/helpers.js';
import { createHarnessAgent } from '../../assembly/create-harness-agent.js';
import { LocalSandbox } from '../local-sandbox.js';
import type { Sandbox, SandboxSession } from '../sandbox.js';
import { SandboxLifecycleMiddleware } from './index.js';

/** A LocalSandbox that counts acquisitions and releases. */
class CountingSandbox implements Sandbox {
  readonly kind = 'counting';
  readonly description = 'local, counted';
  acquired = 0;
  released = 0;
  private readonly inner = new LocalSandbox();
  async acquire(options: { workspace: string }): Promise<SandboxSession> {
    const session = await this.inner.acquire(options);
    this.acquired++;
    return {
      exec: (command, opts) => session.exec(command, opts),
      release: async () => {
        this.released++;
        await session.release();
      },
    };
  }
}

const lastUserText = (req: RecordedRequest) => {
  const user = [...(req.body.messages ?? [])].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
};
/** The model runs the user's message as a command, then answers with the result. */
const runTheMessage = (req: RecordedRequest): ServerTurn => {
  const messages = req.body.messages ?? [];
  const sinceUser = messages.slice(messages.map((m) => m.role).lastIndexOf('user'));
  const result = sinceUser.find((m) => m.role === 'tool');
  if (result) return { text: `result: ${typeof result.content === 'string' ? result.content : ''}` };
  return {
    toolCalls: [{ id: `call_${lastUserText(req).length}`, name: 'execute', input: { command: lastUserText(req) } }],
  };
};
const waitFor = async (check: () => boolean, ms = 5000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('SandboxLifecycleMiddleware', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer;
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    if (server) await closeTestServer(server);
    dir.cleanup();
  });

  it('execute asks for permission by default; the confirmed command runs in the workspace and its output reaches the model', async () => {
    server = await startOpenAITestServer({ handler: runTheMessage });
    const agent = createHarnessAgent({ model: testServerModel(server), workspace: dir.path, sandbox: 'local' });
    const first = await run(agent, 'echo hello > out.txt; cat out.txt');
    expect(first.end.finishReason).toBe('awaiting_confirmation');
    expect(ofType(first.events, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls[0]).toMatchObject({ name: 'execute' });
    expect(existsSync(join(dir.path, 'out.txt'))).toBe(false);
    const id = agent.pending!.confirm[0]!.id;
    const second = await run(agent, { type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: id, confirmed: true }] });
    expect(second.end.finishReason).toBe('completed');
    expect(textOfResult(resultOf(second.events, id))).toBe('hello\n[exit code 0]');
    expect(wireToolResults(server.requests[1]!).get(id)).toBe('hello\n[exit code 0]');
  });

  it('acquires once per reply and releases at the end, on error and on unsubscribe (killing the running command)', async () => {
    server = await startOpenAITestServer({ handler: runTheMessage });
    const sandbox = new CountingSandbox();
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      sandbox,
      execute: { askPermission: false },
    });
    await run(agent, 'echo one');
    expect([sandbox.acquired, sandbox.released]).toEqual([1, 1]);

    const events: AgentEvent[] = [];
    const sub = agent.reply('sleep 3; touch survived').subscribe((e) => events.push(e));
    await waitFor(() => events.some((e) => e.type === 'TOOL_RESULT_START'));
    await new Promise((r) => setTimeout(r, 200));
    sub.unsubscribe();
    expect([sandbox.acquired, sandbox.released]).toEqual([2, 2]);
    await new Promise((r) => setTimeout(r, 3300));
    expect(existsSync(join(dir.path, 'survived'))).toBe(false);

    const failingServer = await startOpenAITestServer({ script: [{ fault: 'unauthorized' }] });
    try {
      const failing = createHarnessAgent({ model: testServerModel(failingServer), workspace: dir.path, sandbox });
      const failed = await run(failing, 'x');
      expect(failed.end.finishReason).toBe('error');
      expect([sandbox.acquired, sandbox.released]).toEqual([3, 3]);
    } finally {
      await closeTestServer(failingServer);
    }
  }, 20_000);

  it('keeps each reply in its own sandbox session: two sessions running at once on one agent definition', async () => {
    server = await startOpenAITestServer({ handler: runTheMessage });
    const sandbox = new CountingSandbox();
    // One middleware instance shared by two agents (two sessions) — its state lives in each reply's context.
    const shared = new SandboxLifecycleMiddleware({ sandbox, workspace: dir.path, askPermission: false });
    const a = new Agent({ name: 'a', sessionId: 'session-a', model: testServerModel(server), middlewares: [shared] });
    const b = new Agent({ name: 'b', sessionId: 'session-b', model: testServerModel(server), middlewares: [shared] });
    const aEvents: AgentEvent[] = [];
    const subA = a.reply('echo A-started; sleep 3; touch a-finished').subscribe((e) => aEvents.push(e));
    const bDone = lastValueFrom(b.reply('sleep 0.5; echo from-B; echo $HOME').pipe(toArray()));
    await waitFor(() => sandbox.acquired === 2);
    await waitFor(() => aEvents.some((e) => e.type === 'TOOL_PROGRESS'));
    // Cancelling A kills A's command only; B finishes with its own output.
    subA.unsubscribe();
    const bEvents = await bDone;
    const bResult = textOfResult(ofType(bEvents, 'TOOL_RESULT_END')[0]!);
    expect(bResult).toBe(`from-B\n${dir.path}\n[exit code 0]`);
    expect(bResult).not.toContain('A-started');
    expect(ofType(bEvents, 'REPLY_END')[0]!.finishReason).toBe('completed');
    expect([sandbox.acquired, sandbox.released]).toEqual([2, 2]);
    await new Promise((r) => setTimeout(r, 3200));
    expect(existsSync(join(dir.path, 'a-finished'))).toBe(false);
  }, 20_000);
});
