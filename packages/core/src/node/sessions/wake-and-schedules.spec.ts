// Wake-ups and schedules of AgentSessions in one process: the model is the real OpenAIChatModel
// over the OpenAI test server, so what the agent received is what the model was sent.
import { Agent } from '../../agent/agent.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { waitFor } from '../__tests__/helpers.js';
import { AgentSessions } from './agent-sessions.js';
import { InvalidScheduleError } from './schedules/session-schedule.js';

describe('sessions.wake() and sessions.schedule()', () => {
  let model: OpenAITestServer;
  let sessions: AgentSessions;
  afterEach(async () => {
    await sessions?.close();
    await model?.close();
  });
  async function setUp(options: Partial<ConstructorParameters<typeof AgentSessions>[0]> = {}, chunkDelayMs = 0) {
    model = await startOpenAITestServer({
      handler: (req) => ({ text: [`seen ${req.body.messages!.length} messages`, ' ok'] }),
      chunkDelayMs,
    });
    const chat = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url });
    sessions = new AgentSessions({ agent: (id) => new Agent({ model: chat, sessionId: id }), ...options });
  }
  const userTexts = (i: number) =>
    model.requests[i]!.body.messages!.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content));
  const idle = (id: string) => waitFor(() => !sessions.running(id), 5000);

  it('wakes an idle session with a message, joins a running reply instead of starting a second, and leaves opted-out sessions alone', async () => {
    await setUp({ wakeUps: (id) => id !== 'quiet' }, 40);
    const woke = await sessions.wake('s1', 'The export is ready.');
    expect(woke).toMatchObject({ started: true, replyId: expect.stringMatching(/^reply_/) as string });
    // A second wake-up while that reply runs: no second reply, the message joins the running one.
    expect(await sessions.wake('s1', 'And the invoice too.')).toEqual({
      started: false,
      reason: 'running',
      joined: true,
    });
    await idle('s1');
    const agent = await sessions.agent('s1');
    expect(agent.context.filter((m) => m.role === 'assistant')).toHaveLength(1);
    expect(JSON.stringify(agent.context)).toContain('And the invoice too.');
    expect(userTexts(0)).toEqual([JSON.stringify('The export is ready.')]);

    expect(await sessions.wake('quiet', 'hello')).toEqual({ started: false, reason: 'opted_out' });
    expect(sessions.running('quiet')).toBe(false);
  });

  it('does not wake a session whose reply runs elsewhere (its REPLY_START is on the shared event bus)', async () => {
    await setUp({}, 40);
    // Another service on the same bus, as another process on a shared Redis bus would be.
    const chat = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url });
    const other = new AgentSessions({ agent: (id) => new Agent({ model: chat, sessionId: id }), bus: sessions.bus });
    await sessions.start('s1', 'A long task');
    expect(await other.wake('s1')).toEqual({ started: false, reason: 'running', joined: false });
    expect(other.running('s1')).toBe(false);
    await idle('s1');
    const woke = await other.wake('s1', 'Now?');
    expect(woke.started).toBe(true);
    await waitFor(() => !other.running('s1'), 5000);
    await other.close();
  });

  it('runs a schedule every N ms as replies of the session, lists it, and stops when cancelled', async () => {
    await setUp();
    const schedule = await sessions.schedule('s1', { every: 150, message: 'Check the queue.' });
    expect(schedule).toEqual({
      id: expect.stringMatching(/^schedule_/) as string,
      sessionId: 's1',
      every: 150,
      message: 'Check the queue.',
    });
    expect(await sessions.schedules('s1')).toEqual([schedule]);
    expect(await sessions.schedules('other')).toEqual([]);
    await waitFor(() => model.requests.length >= 2, 5000);
    expect(await sessions.cancelSchedule(schedule.id)).toBe(true);
    expect(await sessions.cancelSchedule(schedule.id)).toBe(false);
    await idle('s1');
    const count = model.requests.length;
    await new Promise((r) => setTimeout(r, 400));
    expect(model.requests.length).toBe(count);
    expect(userTexts(0)).toEqual([JSON.stringify('Check the queue.')]);
    expect((await sessions.agent('s1')).context.filter((m) => m.role === 'user').length).toBe(count);
  });

  it('fires a cron schedule (seconds field) and replaces a schedule scheduled again under its id', async () => {
    await setUp();
    await sessions.schedule('s1', { id: 'tick', cron: '* * * * * *', message: 'first' });
    await sessions.schedule('s1', { id: 'tick', cron: '* * * * * *', message: 'second' });
    expect((await sessions.schedules()).map((s) => s.message)).toEqual(['second']);
    await waitFor(() => model.requests.length >= 1, 3000);
    await sessions.cancelSchedule('tick');
    expect(userTexts(0)).toEqual([JSON.stringify('second')]);
  });

  it('refuses an invalid schedule at schedule(), saying why, and schedules nothing', async () => {
    await setUp();
    const refused = (options: object) => sessions.schedule('s1', options as never);
    await expect(refused({ cron: '61 * * * *', message: 'x' })).rejects.toThrow(InvalidScheduleError);
    await expect(refused({ cron: 'every day', message: 'x' })).rejects.toThrow(/invalid cron expression "every day"/);
    await expect(refused({ cron: '0 9 * * *', tz: 'Mars/Olympus', message: 'x' })).rejects.toThrow(/in Mars\/Olympus/);
    await expect(refused({ every: 10, message: 'x' })).rejects.toThrow(/at least 100/);
    await expect(refused({ every: 1000, cron: '* * * * *', message: 'x' })).rejects.toThrow(/exactly one/);
    await expect(refused({ every: 1000 })).rejects.toThrow(/message must be a non-empty string/);
    await expect(refused({ evry: 1000, message: 'x' })).rejects.toThrow(
      /unknown option "evry" \(did you mean "every"\?\)/,
    );
    await expect(refused({ every: 1000, message: 'x', id: '../../etc' })).rejects.toMatchObject({
      code: 'invalid_schedule',
    });
    expect(await sessions.schedules()).toEqual([]);
  });
});
