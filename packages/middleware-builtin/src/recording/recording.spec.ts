import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Agent, AgentError, defineTool } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, run, testServerModel } from '../__tests__/helpers.js';
import { cassetteFile, loadCassette } from '../node/index.js';
import { type Cassette, stableEvents } from './cassette.js';
import { RecordingMiddleware } from './index.js';
import { ReplayChatModel } from './replay-chat-model.js';

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => `Sunny in ${city}, 21°C`,
});

describe('RecordingMiddleware + ReplayChatModel', () => {
  let dir: string;
  let server: OpenAITestServer | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cassette-'));
  });
  afterEach(async () => {
    if (server) await closeTestServer(server);
    server = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  /** Records `questions` (one reply each) against the test server into `path`. */
  async function record(path: string, questions: readonly string[]) {
    server = await startOpenAITestServer({
      script: [
        {
          thinking: 'Check the weather.',
          toolCalls: [{ name: 'weather', input: { city: 'Paris' } }],
          usage: { inputTokens: 30, outputTokens: 8 },
        },
        { text: ['It is ', 'sunny in Paris.'], usage: { inputTokens: 50, outputTokens: 6 } },
        { text: 'You are welcome.' },
      ],
    });
    const agent = new Agent({
      name: 'forecaster',
      model: testServerModel(server),
      tools: [weather],
      middlewares: [new RecordingMiddleware({ save: cassetteFile(path) })],
    });
    const ends = [];
    for (const q of questions) ends.push(await run(agent, q));
    await closeTestServer(server);
    server = undefined;
    return ends;
  }

  it('replays a recorded reply offline with the same events, tool calls running for real', async () => {
    const path = join(dir, 'fixtures', 'weather.json');
    const [recorded] = await record(path, ['Weather in Paris?']);
    const cassette = await loadCassette(path);
    expect(cassette.modelCalls).toHaveLength(2);
    expect(cassette.modelCalls[0]!.request.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Weather in Paris?' }],
    });
    expect(cassette.modelCalls[0]!.request.tools).toEqual(['weather']);

    // The server is gone: the replay needs none.
    const model = new ReplayChatModel(cassette);
    const replayed = await run(new Agent({ name: 'forecaster', model, tools: [weather] }), 'Weather in Paris?');

    expect(stableEvents(replayed.events)).toEqual(cassette.replies[0]!.events);
    expect(stableEvents(replayed.events)).toEqual(stableEvents(recorded!.events));
    expect(replayed.end).toMatchObject({ finishReason: 'completed', usage: { inputTokens: 80, outputTokens: 14 } });
    expect(model.remaining).toBe(0);
    expect(() => model.verify()).not.toThrow();
  });

  it('keeps several replies of a run in one file and replays them in order', async () => {
    const path = join(dir, 'two.json');
    await record(path, ['Weather in Paris?', 'Thanks!']);
    const cassette = await loadCassette(path);
    expect(cassette.replies).toHaveLength(2);
    const agent = new Agent({ name: 'forecaster', model: new ReplayChatModel(cassette), tools: [weather] });
    expect(stableEvents((await run(agent, 'Weather in Paris?')).events)).toEqual(cassette.replies[0]!.events);
    expect(stableEvents((await run(agent, 'Thanks!')).events)).toEqual(cassette.replies[1]!.events);
  });

  it('fails clearly when the current request differs from the recorded one, or asks for more calls than recorded', async () => {
    const path = join(dir, 'weather.json');
    await record(path, ['Weather in Paris?']);
    const cassette = await loadCassette(path);

    const changed = new Agent({ name: 'forecaster', model: new ReplayChatModel(cassette), tools: [weather] });
    const { end } = await run(changed, 'Weather in Rome?');
    expect(end.finishReason).toBe('error');
    expect(end.error).toMatchObject({ code: 'cassette_mismatch', retryable: false });
    expect(end.error!.message).toMatch(
      /model call #1 does not match the recording: request\.messages\[0\]\.content\[0\]\.text: recorded "Weather in Paris\?", but now "Weather in Rome\?"/,
    );

    const noTools = new Agent({ name: 'forecaster', model: new ReplayChatModel(cassette) });
    await expect(noTools.call('Weather in Paris?')).rejects.toThrow(
      /request\.tools\[0\]: recorded "weather", but now missing/,
    );

    const extra = new ReplayChatModel(cassette);
    const agent = new Agent({ name: 'forecaster', model: extra, tools: [weather] });
    await agent.call('Weather in Paris?');
    const again = agent.call('Weather in Paris?');
    await expect(again).rejects.toBeInstanceOf(AgentError);
    await expect(again).rejects.toThrow(/model call #3 was not recorded \(the cassette has 2\)/);

    const unplayed = new ReplayChatModel(cassette);
    expect(() => unplayed.verify()).toThrow(/2 recorded model call\(s\) were not made/);
  });

  it('records a failing model call and replays the same failure', async () => {
    server = await startOpenAITestServer({ script: [{ fault: 'unauthorized' }] });
    const saved: Cassette[] = [];
    const agent = new Agent({
      name: 'a',
      model: testServerModel(server),
      middlewares: [new RecordingMiddleware({ save: (c) => void saved.push(c) })],
    });
    const recorded = await run(agent, 'hi');
    expect(recorded.end.finishReason).toBe('error');
    expect(saved[0]!.modelCalls[0]!.error).toMatchObject({ status: 401 });

    const replayed = await run(new Agent({ name: 'a', model: new ReplayChatModel(saved[0]!) }), 'hi');
    expect(stableEvents(replayed.events)).toEqual(saved[0]!.replies[0]!.events);
  });

  it('keeps the cassettes of concurrent replies sharing one instance apart', async () => {
    server = await startOpenAITestServer({
      chunkDelayMs: 3,
      handler: (req) => ({ text: `echo ${JSON.stringify(req.body.messages!.at(-1)!.content)}` }),
    });
    const saved: Cassette[] = [];
    const recorder = new RecordingMiddleware({ save: (c) => void saved.push(c) });
    const questions = ['one', 'two', 'three', 'four'];
    await Promise.all(
      questions.map((q) => run(new Agent({ name: q, model: testServerModel(server!), middlewares: [recorder] }), q)),
    );
    expect(saved).toHaveLength(4);
    for (const c of saved) {
      const agent = c.replies[0]!.agent;
      expect(c.modelCalls).toHaveLength(1);
      expect(c.modelCalls[0]!.request.messages.at(-1)).toEqual({
        role: 'user',
        content: [{ type: 'text', text: agent }],
      });
      expect(JSON.stringify(c.replies[0]!.events)).toContain(`echo \\"${agent}\\"`);
    }
  });

  it('refuses a bad save option and a file that is not a cassette', async () => {
    expect(() => new RecordingMiddleware({} as never)).toThrow(/save must be a function/);
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"version": 9, "modelCalls": [], "replies": []}');
    await expect(loadCassette(bad)).rejects.toThrow(/bad\.json: cassette version 9 is not supported \(expected 1\)/);
    await writeFile(bad, 'not json');
    await expect(loadCassette(bad)).rejects.toThrow(/bad\.json: not a cassette \(invalid JSON/);
  });
});
