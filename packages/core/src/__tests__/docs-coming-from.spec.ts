/**
 * The rxscope code of docs/coming-from.md, run for real against the OpenAI-compatible test server
 * (through `OpenAIChatModel`, and through LangChain's `ChatOpenAI` wrapped in `LangChainChatModel`).
 * The files are in ./docs/coming-from/; the page shows them through `<!-- snippet: ... -->` markers
 * (checked by scripts/doc-snippets.spec.ts).
 *
 * Blocks of the page that are not run, and why:
 * - the LangChain, AI SDK and OpenAI Agents versions of the agent: code of other frameworks, shown
 *   for comparison (the same calls as the benchmark contenders in bench/src/scenarios/agent-loop.ts,
 *   which run them);
 * - the name maps: tables.
 */
import { OpenAIChatModel } from '../model/openai/index.js';
import { type OpenAITestServer, startOpenAITestServer } from '../testing/node/index.js';
import { withYourChatModel } from './docs/coming-from/langchain-model.js';
import { askTwoWays, weatherAgent, weatherTools } from './docs/coming-from/weather-agent.js';

const turns = [
  { toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }] },
  { toolCalls: [{ name: 'to_fahrenheit', input: { celsius: 21 } }] },
  { text: 'It is 69.8 °F in Paris.' },
  { toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }] },
  { text: ['Oslo: ', '21 °C.'] },
];

describe('docs/coming-from.md', () => {
  let server: OpenAITestServer;
  let log: jest.SpyInstance;
  beforeEach(async () => {
    server = await startOpenAITestServer({ script: turns });
    log = jest.spyOn(console, 'log').mockImplementation(() => {});
  });
  afterEach(async () => {
    log.mockRestore();
    await server.close();
  });

  /** What the model was told by each tool, in order. */
  const toolMessages = () =>
    server.requests.flatMap((r) =>
      (r.body.messages ?? [])
        .slice(-1)
        .filter((m) => m.role === 'tool')
        .map((m) => m.content),
    );

  it('the two-tool agent answers with both tools, by call() and by reply()', async () => {
    const model = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'test', baseURL: server.url });
    const text = await askTwoWays(weatherAgent(model));
    expect(text).toBe('It is 69.8 °F in Paris.\nOslo: 21 °C.');
    expect(toolMessages()).toEqual(['{"city":"Paris","tempC":21}', '69.8', '{"city":"Oslo","tempC":21}']);
    expect(log.mock.calls).toEqual([['[get_weather]']]);
    // the second question carries the first exchange: one Agent is one conversation
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain('It is 69.8 °F in Paris.');
  });

  it("runs the same loop over LangChain's ChatOpenAI", async () => {
    const agent = withYourChatModel(weatherTools, 'test', server.url);
    expect(await askTwoWays(agent)).toBe('It is 69.8 °F in Paris.\nOslo: 21 °C.');
    expect(toolMessages()).toHaveLength(3);
  });
});
