import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lastValueFrom, toArray } from 'rxjs';
import type { ModelEvent } from '../../event/events.js';
import { createMsg } from '../../message/msg.js';
import { startOpenAITestServer, type OpenAITestServer } from '../../testing/node/index.js';
import type { ModelRequest } from '../chat-model.js';
import { ModelError } from '../model-error.js';
import { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';

const request = (): ModelRequest => ({
  messages: [createMsg('user', 'hi')],
  tools: [],
  toolChoice: 'auto',
  options: {},
  signal: new AbortController().signal,
});

const text = async (model: OpenAIChatModel): Promise<string> => {
  const events = await lastValueFrom(model.stream(request()).pipe(toArray()));
  return events
    .filter((e): e is Extract<ModelEvent, { type: 'TEXT_BLOCK_DELTA' }> => e.type === 'TEXT_BLOCK_DELTA')
    .map((e) => e.delta)
    .join('');
};

/** Headers the `openai` client sets on every request, which a streamed call must send too. */
const CLIENT_HEADERS = [
  'authorization',
  'openai-organization',
  'openai-project',
  'x-team',
  'user-agent',
  'accept',
  'content-type',
  'x-stainless-lang',
  'x-stainless-retry-count',
  'x-stainless-timeout',
];

describe('OpenAIChatModel streamed calls sent without the client per request', () => {
  let server: OpenAITestServer;
  const options = (extra: Partial<OpenAIChatModelOptions> = {}): OpenAIChatModelOptions => ({
    model: 'gpt-test',
    apiKey: 'sk-test',
    baseURL: server.url,
    ...extra,
    configuration: {
      logLevel: 'off',
      organization: 'org-a',
      project: 'proj-b',
      defaultHeaders: { 'x-team': 'c' },
      ...extra.configuration,
    },
  });

  beforeEach(async () => {
    server = await startOpenAITestServer();
  });
  afterEach(() => server.close());

  it('sends the same URL and headers as the openai client (key, organization, project, default headers, user agent)', async () => {
    server.enqueue({ text: 'streamed' }, { text: 'whole' });
    expect(await text(new OpenAIChatModel(options()))).toBe('streamed');
    // A non-streaming call still goes through the client per request: the reference.
    expect(await text(new OpenAIChatModel(options({ streaming: false })))).toBe('whole');
    const [direct, sdk] = server.requests;
    expect(direct!.path).toBe(sdk!.path);
    expect(direct!.headers['authorization']).toBe('Bearer sk-test');
    expect(direct!.headers['openai-organization']).toBe('org-a');
    for (const name of CLIENT_HEADERS) expect([name, direct!.headers[name]]).toEqual([name, sdk!.headers[name]]);
  });

  it('serves calls that start together before the first one has prepared the route', async () => {
    server.enqueue({ text: 'a' }, { text: 'b' }, { text: 'c' });
    const model = new OpenAIChatModel(options());
    const texts = await Promise.all([text(model), text(model), text(model)]);
    expect(texts.sort()).toEqual(['a', 'b', 'c']);
    expect(server.requests.map((r) => r.headers['authorization'])).toEqual(Array(3).fill('Bearer sk-test'));
  });

  it('asks an API key callback on every call (such a client keeps the per-request path)', async () => {
    server.enqueue({ text: 'one' }, { text: 'two' });
    const keys = ['sk-first', 'sk-second'];
    const model = new OpenAIChatModel({
      model: 'gpt-test',
      baseURL: server.url,
      configuration: { logLevel: 'off', apiKey: () => Promise.resolve(keys.shift()!) },
    });
    expect(await text(model)).toBe('one');
    expect(await text(model)).toBe('two');
    expect(server.requests.map((r) => r.headers['authorization'])).toEqual(['Bearer sk-first', 'Bearer sk-second']);
  });

  it('an HTTP error keeps the server message, status and retryability', async () => {
    server.enqueue({ fault: 'rate_limit' });
    const error = await text(new OpenAIChatModel(options())).catch((e: unknown) => e as ModelError);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 429, retryable: true });
    expect((error as ModelError).message).toMatch(/rate limit/i);
  });

  it('reads at most the start of a huge error body (a server may send anything)', async () => {
    let sent = 0;
    const hostile = createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(64 * 1024);
      const write = (): void => {
        while (sent < 200 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
        res.end();
      };
      write();
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/v1`;
      const error = await text(new OpenAIChatModel(options({ baseURL: url }))).catch((e: unknown) => e as ModelError);
      expect(error).toMatchObject({ status: 500 });
      expect((error as ModelError).message.length).toBeLessThan(70 * 1024);
      expect(sent).toBeLessThan(50 * 1024 * 1024); // the client stopped reading long before 200 MB
    } finally {
      hostile.closeAllConnections();
      await new Promise((resolve) => hostile.close(resolve));
    }
  });
});
