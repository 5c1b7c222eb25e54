// AG-UI shared state, activities and reconnect over a real socket, driven by @ag-ui/client's own
// HttpAgent (and RxscopeHttpAgent, its subclass with connectAgent): the client's reducer applies
// STATE_SNAPSHOT/STATE_DELTA and ACTIVITY_* events as any AG-UI frontend does.
import { HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';
import { Agent, defineTool, type JsonObject } from '../../index.js';
import { OpenAIChatModel } from '../../model/openai/index.js';
import { RxscopeHttpAgent } from '../../transport/ag-ui/index.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { createAgUiHandler, type AgUiHandlerOptions } from '../ag-ui/index.js';
import { InMemorySessionEventBus } from '../index.js';
import { listen, waitFor, type Listening } from './helpers.js';

let seen: JsonObject[] = [];
let release: () => void = () => undefined;
let gate = Promise.resolve();

const search = defineTool({
  name: 'search',
  description: 'Searches flights',
  input: z.object({ to: z.string() }),
  execute: async ({ to }, toolCtx) => {
    const state = toolCtx.sharedState!;
    seen.push(state.get());
    state.set({ ...state.get(), destination: to, results: [] });
    toolCtx.emit({ message: `searching flights to ${to}`, progress: 0, total: 2 });
    await gate;
    state.patch([{ op: 'add', path: '/results/-', value: `${to}-1` }]);
    toolCtx.emit({ message: `found 1 flight to ${to}`, progress: 2, total: 2 });
    return `1 flight to ${to}`;
  },
});

describe('createAgUiHandler: shared state, activities, reconnect', () => {
  let model: OpenAITestServer;
  let http: Listening;
  afterEach(async () => {
    release();
    await http?.close();
    await model?.close();
  });

  async function setUp(options: Partial<AgUiHandlerOptions> = {}) {
    seen = [];
    gate = Promise.resolve();
    model = await startOpenAITestServer({
      handler: (_req, i) =>
        i % 2 === 0 ? { toolCalls: [{ name: 'search', input: { to: 'Oslo' } }] } : { text: 'Found one.' },
    });
    const chat = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: model.url });
    const agents = new Map<string, Agent>();
    const handler = createAgUiHandler({
      heartbeatMs: 0,
      agent: (threadId) => {
        const agent = new Agent({ name: 'travel', model: chat, tools: [search], sessionId: threadId });
        agents.set(threadId, agent);
        return agent;
      },
      ...options,
    });
    http = await listen((req, res) => handler(req, res));
    return { agents, url: `${http.url}/agui` };
  }

  function client(url: string, threadId = 'trip-1') {
    const agent = new RxscopeHttpAgent({ url, threadId });
    const events: BaseEvent[] = [];
    agent.subscribe({ onEvent: ({ event }) => void events.push(EventSchema.parse(event)) });
    return { agent, events };
  }

  it("streams the shared state to the client's state, folds the client's state in, and shows progress as an activity", async () => {
    const { url, agents } = await setUp();
    const { agent, events } = client(url);
    agent.setState({ budget: 300 });
    agent.addMessage({ id: 'u1', role: 'user', content: 'Flights to Oslo' });
    await agent.runAgent();
    // The tool saw the client's state; the client's reducer ended with the server's state.
    expect(seen[0]).toEqual({ budget: 300 });
    expect(agent.state).toEqual({ budget: 300, destination: 'Oslo', results: ['Oslo-1'] });
    expect(agents.get('trip-1')!.saveState().sharedState).toEqual(agent.state);
    const types = events.map((e) => e.type);
    expect(types.indexOf(EventType.STATE_SNAPSHOT)).toBe(1); // right after RUN_STARTED
    expect(types).toContain(EventType.STATE_DELTA);
    // Tool progress is an AG-UI activity message the client keeps.
    expect(types).toEqual(expect.arrayContaining([EventType.ACTIVITY_SNAPSHOT, EventType.ACTIVITY_DELTA]));
    const activity = agent.messages.find((m) => m.role === 'activity') as unknown as {
      activityType: string;
      content: unknown;
    };
    expect(activity).toMatchObject({
      activityType: 'tool_progress',
      content: { message: 'found 1 flight to Oslo', progress: 2, total: 2 },
    });

    // A run with an empty state keeps the session's, and starts with a snapshot of it.
    agent.setState({});
    agent.addMessage({ id: 'u2', role: 'user', content: 'Again' });
    await agent.runAgent();
    expect(seen[1]).toEqual({ budget: 300, destination: 'Oslo', results: ['Oslo-1'] });
    expect(agent.state).toEqual({ budget: 300, destination: 'Oslo', results: ['Oslo-1'] });
  });

  it('a client that reconnects to a running run is replayed it from the start and follows it to its end', async () => {
    const bus = new InMemorySessionEventBus();
    const { url } = await setUp({ bus, disconnect: 'continue' });
    gate = new Promise((resolve) => (release = resolve));
    const first = client(url);
    first.agent.addMessage({ id: 'u1', role: 'user', content: 'Flights to Oslo' });
    const running = first.agent.runAgent().catch(() => undefined);
    await waitFor(() => first.events.some((e) => e.type === EventType.ACTIVITY_SNAPSHOT));
    first.agent.abortRun(); // the page goes away
    await running;

    const second = client(url);
    const connected = second.agent.connectAgent();
    await waitFor(() => second.events.some((e) => e.type === EventType.ACTIVITY_SNAPSHOT));
    release();
    await connected;
    expect(second.events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId: 'trip-1' });
    expect(second.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    expect(second.agent.state).toEqual({ destination: 'Oslo', results: ['Oslo-1'] });
    expect(second.agent.messages.filter((m) => m.role === 'user')).toEqual([expect.objectContaining({ id: 'u1' })]);
    expect(second.agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Found one.' });
  });

  it('a reconnect after the run gets the thread as it is; a client whose state drifted gets a fresh snapshot', async () => {
    const { url } = await setUp();
    const first = client(url);
    first.agent.addMessage({ id: 'u1', role: 'user', content: 'Flights to Oslo' });
    await first.agent.runAgent();

    // A client whose copy of the state went wrong (a patch that did not apply): connectAgent resyncs it.
    const later = client(url);
    later.agent.setState({ destination: 'stale' });
    await later.agent.connectAgent();
    expect(later.agent.state).toEqual({ destination: 'Oslo', results: ['Oslo-1'] });
    expect(later.agent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(later.agent.messages[1]).toMatchObject({
      toolCalls: [expect.objectContaining({ function: expect.objectContaining({ name: 'search' }) })],
    });
    // The snapshot's history is the agent's own: the next run on it passes the history check.
    later.agent.addMessage({ id: 'u2', role: 'user', content: 'Thanks' });
    await later.agent.runAgent();
    expect(later.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
  });

  it('refuses an unknown option with a suggestion, and a disconnect policy it does not know', () => {
    const agent = new Agent({ model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: 'http://127.0.0.1:9' }) });
    expect(() => createAgUiHandler({ agent, disconect: 'continue' } as never)).toThrow(/did you mean "disconnect"/);
    expect(() => createAgUiHandler({ agent, disconnect: 'keep' as never })).toThrow(
      /disconnect is 'cancel' or 'continue'/,
    );
  });

  it('keeps a plain HttpAgent working: it never sends a connect', async () => {
    const { url } = await setUp();
    const plain = new HttpAgent({ url, threadId: 'trip-2' });
    plain.addMessage({ id: 'u1', role: 'user', content: 'Flights to Oslo' });
    await plain.runAgent();
    expect(plain.state).toEqual({ destination: 'Oslo', results: ['Oslo-1'] });
  });
});
