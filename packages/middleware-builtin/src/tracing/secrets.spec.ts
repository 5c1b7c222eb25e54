// Secrets never reach traces or logs: with the real OpenTelemetry SDK (in-memory span and log
// exporters) and TracingMiddleware, an API key from the environment, from the model's options or
// in a custom header appears in no span name, attribute, event or status, in no log record, and
// in no console line — on a healthy reply with a tool call, and when a server echoes the key it
// was sent back in its error. Content capture on is the user's choice: a secret the user typed
// is then recorded as the content it is, and only there.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, logs, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Agent, type AgentEvent, defineTool } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { assertReplyGrammar } from '@rxscope/core/testing';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { RetryMiddleware } from '../retry/index.js';
import { TracingMiddleware } from './index.js';

const nonce = Math.random().toString(36).slice(2);
const ENV_KEY = `sk-env-${nonce}`;
const CONFIG_KEY = `sk-config-${nonce}`;
const HEADER_KEY = `hdr-${nonce}`;
const SECRETS = [ENV_KEY, CONFIG_KEY, HEADER_KEY];

let spans: InMemorySpanExporter;
let logRecords: InMemoryLogRecordExporter;
let tracerProvider: TracerProvider;
let loggerProvider: LoggerProvider;
const contextManager = new AsyncLocalStorageContextManager();
const consoleLines: string[] = [];

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});
beforeEach(() => {
  spans = new InMemorySpanExporter();
  tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
  trace.setGlobalTracerProvider(tracerProvider);
  logRecords = new InMemoryLogRecordExporter();
  loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logRecords })] });
  logs.setGlobalLoggerProvider(loggerProvider);
  process.env['OPENAI_API_KEY'] = ENV_KEY;
  consoleLines.length = 0;
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      consoleLines.push(args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : String(a))).join(' '));
    });
  }
});
afterEach(async () => {
  delete process.env['OPENAI_API_KEY'];
  jest.restoreAllMocks();
  trace.disable();
  logs.disable();
  await tracerProvider.shutdown();
  await loggerProvider.shutdown();
});

/** Everything the exporters and the console received, as one text. */
function recorded(): string {
  const spanText = spans.getFinishedSpans().map((s) => ({
    name: s.name,
    attributes: s.attributes,
    events: s.events,
    status: s.status,
    resource: s.resource.attributes,
  }));
  const logText = logRecords.getFinishedLogRecords().map((r) => ({
    eventName: r.eventName,
    body: r.body,
    attributes: r.attributes,
    severity: r.severityText,
  }));
  return JSON.stringify({ spanText, logText, console: consoleLines });
}

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather of a city',
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => `Sunny in ${city}`,
});

/** The three ways a key reaches the model: the environment, the options, a custom header. */
const models = (baseURL: string) => ({
  environment: new OpenAIChatModel({ model: 'gpt-test', baseURL, configuration: { logLevel: 'off' } }),
  options: new OpenAIChatModel({ model: 'gpt-test', baseURL, apiKey: CONFIG_KEY, configuration: { logLevel: 'off' } }),
  header: new OpenAIChatModel({
    model: 'gpt-test',
    baseURL,
    apiKey: null,
    configuration: { logLevel: 'off', defaultHeaders: { 'x-api-key': HEADER_KEY } },
  }),
});

async function reply(agent: Agent, input: string): Promise<AgentEvent[]> {
  const events = await lastValueFrom(agent.reply(input).pipe(toArray()));
  assertReplyGrammar(events);
  return events;
}

describe('secrets never reach traces or logs', () => {
  let server: OpenAITestServer | undefined;
  let echo: Server | undefined;
  afterEach(async () => {
    await server?.close();
    if (echo) await new Promise((resolve) => echo!.close(resolve));
    server = echo = undefined;
  });

  it.each(['environment', 'options', 'header'] as const)(
    'a key from the %s: not in any span, log record or console line of a reply with a tool call, content captured',
    async (source) => {
      server = await startOpenAITestServer({
        script: [{ toolCalls: [{ id: 'c1', name: 'get_weather', input: { city: 'Paris' } }] }, { text: 'Sunny.' }],
      });
      const agent = new Agent({
        name: 'weather',
        model: models(server.url)[source],
        tools: [weather],
        middlewares: [new TracingMiddleware({ captureContent: true })],
      });
      const events = await reply(agent, 'Weather in Paris?');
      expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
      // The key was sent (so it was there to leak) ...
      const sent = JSON.stringify(server.requests[0]!.headers);
      expect(sent).toContain(source === 'environment' ? ENV_KEY : source === 'options' ? CONFIG_KEY : HEADER_KEY);
      // ... and is recorded nowhere, while the reply is (the recording is not empty).
      const text = recorded();
      expect(text).toContain('invoke_agent weather');
      expect(text).toContain('Sunny in Paris');
      for (const secret of SECRETS) expect(text).not.toContain(secret);
      expect(JSON.stringify(events)).not.toContain(nonce);
    },
  );

  it.each(['environment', 'options', 'header'] as const)(
    'a key from the %s that the server echoes back in a 401: not in the error, any span, log record or console line',
    async (source) => {
      // A proxy that puts what it was sent into its error message (OpenAI itself masks the key).
      echo = createServer((req, res) => {
        const sent = req.headers['authorization'] ?? req.headers['x-api-key'];
        req.resume();
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: `Incorrect API key provided: ${String(sent)}.`, code: 'invalid_api_key' },
          }),
        );
      });
      await new Promise<void>((resolve) => echo!.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`;
      const agent = new Agent({
        name: 'weather',
        model: models(url)[source],
        middlewares: [
          new TracingMiddleware({ captureContent: true }),
          new RetryMiddleware({ initialDelayMs: 1, maxDelayMs: 1, jitter: 0 }),
        ],
      });
      const events = await reply(agent, 'hi');
      const end = events.at(-1)!;
      expect(end).toMatchObject({ type: 'REPLY_END', finishReason: 'error', error: { code: 'unauthorized' } });
      // The error still says what went wrong, without the key.
      expect(JSON.stringify(end)).toContain('Incorrect API key provided');
      expect(recorded()).toContain('Incorrect API key provided');
      for (const secret of SECRETS) {
        expect(JSON.stringify(events)).not.toContain(secret);
        expect(recorded()).not.toContain(secret);
      }
    },
  );

  it("the openai client's own debug log, when turned on: headers are masked, no key in any line", async () => {
    server = await startOpenAITestServer({ script: [{ text: 'Hi.' }] });
    const lines: string[] = [];
    const capture = (...args: unknown[]) => void lines.push(JSON.stringify(args));
    const model = new OpenAIChatModel({
      model: 'gpt-test',
      baseURL: server.url,
      apiKey: CONFIG_KEY,
      configuration: {
        logLevel: 'debug',
        logger: { debug: capture, info: capture, warn: capture, error: capture },
        defaultHeaders: { 'x-api-key': HEADER_KEY },
      },
    });
    await reply(new Agent({ name: 'a', model, middlewares: [new TracingMiddleware()] }), 'hi');
    expect(lines.join('\n')).toContain('"authorization":"[REDACTED]"'); // it logged the request, masked
    for (const secret of SECRETS) expect(lines.join('\n')).not.toContain(secret);
    for (const secret of SECRETS) expect(recorded()).not.toContain(secret);
  });

  it('content capture records what the user typed, a key included: only as content, and only when turned on', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'Noted.' }, { text: 'Noted.' }] });
    const typed = `my key is ${CONFIG_KEY}`;
    const model = models(server.url).options;
    await reply(new Agent({ name: 'a', model, middlewares: [new TracingMiddleware()] }), typed);
    expect(recorded()).not.toContain(CONFIG_KEY);

    await reply(new Agent({ name: 'b', model, middlewares: [new TracingMiddleware({ captureContent: true })] }), typed);
    const carrying = spans
      .getFinishedSpans()
      .flatMap((s) => Object.entries(s.attributes).filter(([, v]) => JSON.stringify(v).includes(CONFIG_KEY)))
      .map(([k]) => k);
    expect([...new Set(carrying)]).toEqual(['gen_ai.input.messages']); // on the chat and the reply span
    expect(carrying.length).toBe(2);
  });
});
