import { createServer } from 'node:net';
import { Agent } from '../../agent/agent.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import { streamFailure } from '../../__tests__/helpers.js';
import { ModelError } from '../model-error.js';
import { OpenAIChatModel, type OpenAIChatModelOptions } from './index.js';

/** What the constructor throws for `options` (it must throw). */
function constructionError(options: unknown): ModelError {
  try {
    new OpenAIChatModel(options as OpenAIChatModelOptions);
  } catch (e) {
    expect(e).toBeInstanceOf(ModelError);
    expect((e as ModelError).code).toBe('invalid_configuration');
    expect((e as ModelError).retryable).toBe(false);
    return e as ModelError;
  }
  throw new Error(`new OpenAIChatModel(${JSON.stringify(options)}) did not throw`);
}

/** Runs `fn` with environment variables set (undefined: unset) and restores them. */
function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return fn();
  } finally {
    apply(saved);
  }
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('OpenAIChatModel: options are checked at construction', () => {
  it('requires model (it would silently send the client default otherwise)', () => {
    expect(constructionError({ apiKey: 'sk-x', baseURL: 'http://localhost:8080/v1' }).message).toMatch(
      /option "model" is required .*\{ model: 'gpt-4o-mini' \}.*got nothing/,
    );
    expect(constructionError({ model: '  ', apiKey: 'sk-x' }).message).toContain('option "model" is required');
    expect(constructionError(undefined).message).toContain('expected an options object');
  });

  it('requires a key unless apiKey: null says the server needs none', () => {
    withEnv({ OPENAI_API_KEY: undefined }, () => {
      const message = constructionError({ model: 'gpt-4o-mini' }).message;
      expect(message).toContain('no API key');
      expect(message).toContain('OPENAI_API_KEY');
      expect(message).toContain('{ apiKey: null }');
      expect(
        () => new OpenAIChatModel({ model: 'qwen3:8b', baseURL: 'http://localhost:11434/v1', apiKey: null }),
      ).not.toThrow();
    });
    withEnv({ OPENAI_API_KEY: 'sk-from-env' }, () =>
      expect(() => new OpenAIChatModel({ model: 'gpt-4o-mini' })).not.toThrow(),
    );
    expect(constructionError({ model: 'gpt-4o-mini', apiKey: '' }).message).toContain(
      'option "apiKey" must be a non-empty string, or null',
    );
  });

  it('requires an absolute http(s) base URL, and says what was probably meant', () => {
    expect(constructionError({ model: 'm', apiKey: 'k', baseURL: 'not a url' }).message).toMatch(
      /option "baseURL" must be an http:\/\/ or https:\/\/ URL.*got "not a url"/,
    );
    expect(constructionError({ model: 'm', apiKey: 'k', baseURL: 'localhost:8080/v1' }).message).toContain(
      "did you mean 'http://localhost:8080/v1'?",
    );
    expect(constructionError({ model: 'm', apiKey: 'k', baseURL: 'ftp://example.com/v1' }).message).toContain(
      '"ftp://example.com/v1"',
    );
    expect(constructionError({ model: 'm', apiKey: 'k', configuration: { baseURL: 'example.com' } }).message).toContain(
      'option "configuration.baseURL"',
    );
    withEnv({ OPENAI_BASE_URL: 'localhost:1234' }, () =>
      expect(constructionError({ model: 'm', apiKey: 'k' }).message).toContain(
        'the OPENAI_BASE_URL environment variable',
      ),
    );
  });
});

describe('OpenAIChatModel: unknown options are refused, never dropped', () => {
  it.each([
    ['baseUrl (LangChain, the AI SDK)', 'baseUrl', 'baseURL'],
    ['modelName (LangChain)', 'modelName', 'model'],
    ['openAIApiKey (LangChain)', 'openAIApiKey', 'apiKey'],
    ['a typo', 'temprature', 'temperature'],
    ['max_tokens (the wire name)', 'max_tokens', 'maxTokens'],
  ])('%s: names the option meant, so the request never goes to the default endpoint', (_label, key, meant) => {
    let error: unknown;
    try {
      new OpenAIChatModel({ model: 'm', apiKey: 'sk-secret', [key]: 'http://localhost:11434/v1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'unknown_option', retryable: false });
    expect((error as Error).message).toContain(
      `OpenAIChatModel: unknown option "${key}" of OpenAIChatModel; did you mean "${meant}"?`,
    );
    expect((error as Error).message).toContain('Known: model, apiKey, baseURL, ');
  });
});

describe('OpenAIChatModel over loopback: failures carry their root cause', () => {
  let server: OpenAITestServer;
  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(() => server.close());

  it('apiKey: null sends no Authorization header', async () => {
    server.enqueue({ text: 'hi' });
    const model = new OpenAIChatModel({
      model: 'local',
      baseURL: server.url,
      apiKey: null,
      configuration: { defaultHeaders: { 'x-team': 'a' } },
    });
    await new Agent({ model }).call('hello');
    expect(server.requests[0]!.headers['authorization']).toBeUndefined();
    expect(server.requests[0]!.headers['x-team']).toBe('a');
  });

  it('a refused connection names ECONNREFUSED and the address, in the message and the cause', async () => {
    const port = await closedPort();
    const model = new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: `http://127.0.0.1:${port}/v1` });
    const error = await streamFailure(model);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect((error as ModelError).code).toBe('connection_error');
    let root: unknown = (error as ModelError).cause;
    while (root && typeof root === 'object' && 'cause' in root && root.cause) root = root.cause;
    expect((root as { code?: string }).code).toBe('ECONNREFUSED');

    const end = await new Agent({ model }).call('hi').catch((e: unknown) => e);
    expect((end as Error).message).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
  });
});
