// Detached session replies over real HTTP: the reply outlives its listeners, a reconnecting
// client gets exactly what it missed, the log is bounded, cancel stops the model request.
import { filter, firstValueFrom, lastValueFrom, NEVER, concatWith, take, takeWhile, toArray } from 'rxjs';
import {
  Agent,
  AgentSharedError,
  fromAgentEventStream,
  REPLAY_GAP,
  type AgentEvent,
  type Middleware,
} from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { assertReplyGrammar, ScriptedChatModel } from '../../testing/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { AgentSessions, createAgentSseHandler, InMemorySessionEventBus } from '../index.js';
import { listen, parseFrames, waitFor, type Listening } from './helpers.js';

const untilEnd = takeWhile((e: AgentEvent) => e.type !== 'REPLY_END', true);

describe('AgentSessions with the in-memory bus, served as SSE', () => {
  let model: OpenAITestServer;
  let http: Listening;
  let sessions: AgentSessions;

  async function setUp(options: Parameters<typeof startOpenAITestServer>[0], maxEvents = 1000) {
    model = await startOpenAITestServer(options);
    const chat = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url });
    sessions = new AgentSessions({
      agent: (id) => new Agent({ model: chat, sessionId: id }),
      bus: new InMemorySessionEventBus({ maxEvents }),
    });
    http = await listen(
      createAgentSseHandler({
        heartbeatMs: 1000,
        events: (req, { lastEventId }) => sessions.events(req.url!.split('/')[2]!, { lastEventId }),
      }),
    );
  }
  afterEach(async () => {
    await http?.close();
    await sessions?.close();
    await model?.close();
  });
  const stream = (id: string, lastEventId?: string) =>
    fromAgentEventStream(`${http.url}/sessions/${id}/events`, lastEventId ? { lastEventId } : {});

  it('keeps the reply running when the stream disconnects; a reconnect with Last-Event-ID gets exactly the missed events', async () => {
    const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
    await setUp({ script: [{ text: words }], chunkDelayMs: 15 });
    const witness = lastValueFrom(sessions.events('s1').pipe(untilEnd, toArray()));
    const first = firstValueFrom(
      stream('s1').pipe(
        filter((e) => e.type === 'TEXT_BLOCK_DELTA'),
        take(3),
        toArray(),
      ),
    );
    await new Promise((r) => setTimeout(r, 50)); // the stream is open before the reply starts
    await sessions.start('s1', 'Talk');
    // The first client saw REPLY_START ... three deltas, then went away (take unsubscribes).
    const seen = await first;
    expect(seen).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 100)); // the reply goes on without listeners
    expect(sessions.running('s1')).toBe(true);

    const all = await witness;
    const missedFrom = all.findIndex((e) => e.id === seen[2]!.id) + 1;
    const rest = await lastValueFrom(stream('s1', seen[2]!.id).pipe(untilEnd, toArray()));
    expect(rest).toEqual(all.slice(missedFrom));
    expect(assertReplyGrammar(all).finishReason).toBe('completed');
    expect(model.requests[0]).toMatchObject({ completed: true, clientClosed: false });
  });

  it('a new stream without Last-Event-ID starts at the REPLY_START of the reply in progress', async () => {
    await setUp({ script: [{ text: ['a', 'b', 'c', 'd', 'e', 'f'] }], chunkDelayMs: 20 });
    const { replyId } = await sessions.start('s2', 'Go');
    await new Promise((r) => setTimeout(r, 60));
    const events = await lastValueFrom(stream('s2').pipe(untilEnd, toArray()));
    expect(events[0]).toMatchObject({ type: 'REPLY_START', replyId });
    expect(assertReplyGrammar(events).finishReason).toBe('completed');
    // After the reply ended a new stream starts empty, and gets the next reply live.
    model.enqueue({ text: 'Second.' });
    const next = lastValueFrom(stream('s2').pipe(untilEnd, toArray()));
    await new Promise((r) => setTimeout(r, 50));
    const second = await sessions.start('s2', 'Again');
    const events2 = await next;
    expect(events2[0]).toMatchObject({ type: 'REPLY_START', replyId: second.replyId });
  });

  it('keeps a bounded log: an id older than the log gives a replay-gap notice (no SSE id) and then the whole log', async () => {
    await setUp({ script: [{ text: Array.from({ length: 20 }, (_, i) => `${i}`) }] }, 10);
    const all = lastValueFrom(sessions.events('s3').pipe(untilEnd, toArray()));
    await sessions.start('s3', 'Count');
    const events = await all;
    expect(events.length).toBeGreaterThan(20);

    const res = await fetch(`${http.url}/sessions/s3/events`, { headers: { 'last-event-id': events[0]!.id } });
    const reader = res.body!.getReader();
    let text = '';
    while (parseFrames(text).filter((f) => f.data).length < 11)
      text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const frames = parseFrames(text).filter((f) => f.data);
    const gap = JSON.parse(frames[0]!.data!) as AgentEvent;
    expect(gap).toMatchObject({ type: 'CUSTOM', name: REPLAY_GAP, value: { lastEventId: events[0]!.id } });
    expect(frames[0]!.id).toBeUndefined();
    expect(frames.slice(1).map((f) => f.id)).toEqual(events.slice(-10).map((e) => e.id));
  });

  it('refuses a second message while a reply runs (409 material) and cancel stops the model request with REPLY_END interrupted', async () => {
    await setUp({ script: [{ text: ['Once ', 'upon ', 'a ', 'time'], fault: 'stall' }] });
    const events = lastValueFrom(sessions.events('s4').pipe(untilEnd, toArray()));
    await sessions.start('s4', 'Story');
    await expect(sessions.start('s4', 'Another')).rejects.toThrow(
      /Session "s4" is running reply .*; wait for its REPLY_END or cancel it first/,
    );
    await waitFor(() => model.requests.length === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(await sessions.cancel('s4')).toBe(true);
    const all = await events;
    expect(assertReplyGrammar(all).finishReason).toBe('interrupted');
    await waitFor(() => model.requests[0]!.clientClosed, 3000, 'the model request to be aborted');
    expect(sessions.running('s4')).toBe(false);
    expect(await sessions.cancel('s4')).toBe(false);
  });
});

describe('InMemorySessionEventBus limits', () => {
  const event = (id: string, type: 'REPLY_START' | 'REPLY_END' | 'CUSTOM', replyId = 'r'): AgentEvent =>
    ({
      id,
      type,
      replyId,
      source: 'a',
      createdAt: 0,
      ...(type === 'REPLY_END' ? { finishReason: 'completed' } : type === 'CUSTOM' ? { name: 'n', value: 1 } : {}),
    }) as AgentEvent;

  it('keeps at most maxSessions logs, dropping the idlest one without listeners or a reply in progress', async () => {
    const bus = new InMemorySessionEventBus({ maxSessions: 2 });
    await bus.append('old', event('o1', 'CUSTOM'));
    await bus.append('running', event('r1', 'REPLY_START'));
    const watched = lastValueFrom(bus.events('watched').pipe(take(1), toArray()));
    await bus.append('new', event('n1', 'CUSTOM'));
    // "old" was idle: dropped. "running" has a reply in progress, "watched" a listener: kept.
    expect(bus.size).toBe(3);
    const resumed = await firstValueFrom(bus.events('old', { lastEventId: 'o1' }));
    expect(resumed).toMatchObject({ type: 'CUSTOM', name: REPLAY_GAP });
    await bus.append('watched', event('w1', 'CUSTOM'));
    expect((await watched).map((e) => e.id)).toEqual(['w1']);
    expect(await firstValueFrom(bus.events('running'))).toMatchObject({ id: 'r1' });
    await bus.append('running', event('r2', 'REPLY_END'));
    await bus.append('another', event('a1', 'CUSTOM'));
    expect(bus.size).toBe(2); // the idle ones went first: "new", then "watched" (its listener is gone)
  });
});

describe('AgentSessions.cancel when the reply does not end by itself', () => {
  it('cuts it off after the grace period and ends it on the log (closed blocks, answered calls, REPLY_END interrupted)', async () => {
    // A middleware that holds the reply open past its end: the reply cannot end by itself.
    const stuck: Middleware = {
      key: 'stuck',
      onAgent: (_agent, _ctx, input, next) =>
        next(input).pipe(
          filter((e) => e.type !== 'REPLY_END'),
          concatWith(NEVER),
        ),
    };
    const sessions = new AgentSessions({
      agent: (id) =>
        new Agent({ model: new ScriptedChatModel([{ text: ['x', 'y'] }]), sessionId: id, middlewares: [stuck] }),
      cancelGraceMs: 50,
    });
    const events = lastValueFrom(sessions.events('s').pipe(untilEnd, toArray()));
    await sessions.start('s', 'Hi');
    const started = Date.now();
    expect(await sessions.cancel('s', 'stop now')).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    const all = await events;
    expect(assertReplyGrammar(all)).toMatchObject({ finishReason: 'interrupted' });
    expect(sessions.running('s')).toBe(false);
    await sessions.close();
  });

  it('forget() drops the agent and the log, and is refused while a reply runs', async () => {
    const made: string[] = [];
    const sessions = new AgentSessions({
      agent: (id) => (
        made.push(id),
        new Agent({
          model: new ScriptedChatModel([{ text: ['a', 'b'] }, { text: 'c' }], { delayMs: 20 }),
          sessionId: id,
        })
      ),
    });
    const first = await sessions.agent('s');
    const ended = lastValueFrom(sessions.events('s').pipe(untilEnd, toArray()));
    await sessions.start('s', 'Hi');
    await expect(sessions.forget('s')).rejects.toThrow('is running reply');
    const events = await ended;
    await waitFor(() => !sessions.running('s'));
    await sessions.forget('s');
    expect(await firstValueFrom(sessions.events('s', { lastEventId: events[0]!.id }))).toMatchObject({
      name: REPLAY_GAP,
    });
    expect(await sessions.agent('s')).not.toBe(first);
    expect(made).toEqual(['s', 's']);
    await sessions.close();
  });

  it('rejects start() with the agent refusal and leaves nothing running', async () => {
    const sessions = new AgentSessions({
      agent: (id) => new Agent({ model: new ScriptedChatModel([]), sessionId: id }),
    });
    await expect(sessions.start('s', { type: 'USER_CONFIRM_RESULT', results: [] })).rejects.toThrow(
      'has no suspended reply',
    );
    expect(sessions.running('s')).toBe(false);
    await sessions.close();
  });

  it("refuses a factory that hands one agent to two sessions: the second session gets AgentSharedError, not the first one's conversation", async () => {
    const shared = new Agent({ model: new ScriptedChatModel([{ text: 'ok' }]) });
    const sessions = new AgentSessions({ agent: () => shared });
    await expect(sessions.agent('alice')).resolves.toBe(shared);
    await expect(sessions.agent('bob')).rejects.toMatchObject({ code: 'agent_shared' });
    await expect(sessions.start('bob', 'Hi')).rejects.toBeInstanceOf(AgentSharedError);
    expect(shared.context).toHaveLength(0); // bob's message never reached alice's agent
    await sessions.close();
  });
});
