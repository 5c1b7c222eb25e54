// What a trace backend sees, checked against the OpenTelemetry GenAI conventions as published in
// @opentelemetry/semantic-conventions (pinned in the catalog; its incubating entry carries the
// gen_ai.* names): every attribute name the middleware writes is a name of the conventions or
// an rxscope.* one, so a rename upstream shows up here as one failing name. Real OpenTelemetry
// SDK (traces and logs, in memory), real OpenAIChatModel against the OpenAI test server.
import { type Attributes, context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { Agent, type AgentEventOf, defineTool, type Middleware } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { lastValueFrom, retry, toArray } from 'rxjs';
import { z } from 'zod';
import { EXCEPTION_EVENT } from './attributes.js';
import { TracingMiddleware } from './index.js';

/** Every attribute name the conventions define (stable and incubating). */
const CONVENTION_NAMES = new Set(
  Object.entries(semconv)
    .filter(([key, value]) => key.startsWith('ATTR_') && typeof value === 'string')
    .map(([, value]) => value as string),
);
/** `gen_ai.response.finish_reasons` / output `finish_reason` values of the conventions. */
const FINISH_REASONS = ['stop', 'length', 'content_filter', 'tool_call', 'error'];

let spanExporter: InMemorySpanExporter;
let logExporter: InMemoryLogRecordExporter;
let tracerProvider: TracerProvider;
let loggerProvider: LoggerProvider;
let server: OpenAITestServer | undefined;
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => context.setGlobalContextManager(contextManager.enable()));
afterAll(() => context.disable());
beforeEach(() => {
  spanExporter = new InMemorySpanExporter();
  logExporter = new InMemoryLogRecordExporter();
  tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spanExporter })] });
  loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await tracerProvider.shutdown();
  await loggerProvider.shutdown();
});

const spans = (): ReadableSpan[] => spanExporter.getFinishedSpans();
const named = (prefix: string): ReadableSpan[] => spans().filter((s) => s.name.startsWith(prefix));

function tracing(captureContent = false): TracingMiddleware {
  return new TracingMiddleware({ tracerProvider, loggerProvider, captureContent });
}

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}`,
});
const broken = defineTool({
  name: 'broken',
  description: 'Fails',
  input: z.object({}),
  execute: () => Promise.reject(new TypeError('disk on fire')),
});
const refund = defineTool({
  name: 'refund',
  description: 'Refunds',
  input: z.object({ id: z.string() }),
  needsApproval: true,
  execute: () => 'ok',
});

describe('TracingMiddleware and the GenAI semantic conventions', () => {
  it('writes only attribute names of the conventions (or rxscope.*), over a run that uses them all', async () => {
    server = await startOpenAITestServer({
      script: [
        { fault: 'server_error' }, // retried below
        {
          thinking: 'Think.',
          toolCalls: [
            { id: 'c1', name: 'get_weather', input: { city: 'Paris' } },
            { id: 'c2', name: 'broken', input: {} },
          ],
        },
        { text: 'Sunny.', usage: { inputTokens: 9, outputTokens: 4, cacheReadTokens: 2, reasoningTokens: 1 } },
        { toolCalls: [{ id: 'r1', name: 'refund', input: { id: 'A-1' } }] },
        { text: 'Refunded.' },
        { fault: 'unauthorized' },
      ],
    });
    const model = new OpenAIChatModel({
      model: 'gpt-test',
      apiKey: 'k',
      baseURL: server.url,
      temperature: 0.2,
      maxTokens: 50,
    });
    const retryOnce: Middleware = { onModelCall: (_a, _c, input, next) => next(input).pipe(retry({ count: 1 })) };
    const agent = new Agent({
      name: 'a',
      sessionId: 'conv-1',
      model,
      tools: [weather, broken, refund],
      middlewares: [tracing(true), retryOnce],
    });
    await lastValueFrom(agent.reply('Weather?').pipe(toArray()));
    await lastValueFrom(agent.reply('Refund A-1').pipe(toArray()));
    await lastValueFrom(
      agent.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 'r1', confirmed: true }] }).pipe(toArray()),
    );
    await lastValueFrom(agent.reply('Again').pipe(toArray())); // fails: unauthorized, retried, fails again

    const names = new Set<string>();
    const collect = (a: Attributes | undefined) => Object.keys(a ?? {}).forEach((k) => names.add(k));
    for (const s of spans()) {
      collect(s.attributes);
      s.events.forEach((e) => collect(e.attributes));
      s.links.forEach((l) => collect(l.attributes));
    }
    for (const r of logExporter.getFinishedLogRecords()) collect(r.attributes);
    const unknown = [...names].filter((n) => !n.startsWith('rxscope.') && !CONVENTION_NAMES.has(n));
    expect(unknown).toEqual([]);
    // The run did exercise the new names.
    for (const n of [
      'gen_ai.usage.reasoning.output_tokens',
      'gen_ai.request.stream',
      'server.address',
      'server.port',
      'gen_ai.response.id',
      'exception.type',
    ]) {
      expect(names).toContain(n);
    }
    // Operation names, the exception event, finish reasons: the conventions' values.
    expect(new Set(spans().map((s) => s.attributes['gen_ai.operation.name']))).toEqual(
      new Set([
        semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
        semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT,
        semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      ]),
    );
    expect(EXCEPTION_EVENT).toBe(semconv.EVENT_GEN_AI_CLIENT_OPERATION_EXCEPTION);
    for (const s of spans()) {
      for (const reason of (s.attributes['gen_ai.response.finish_reasons'] as string[] | undefined) ?? [])
        expect(FINISH_REASONS).toContain(reason);
      for (const m of (s.attributes['gen_ai.output.messages'] as { finish_reason?: string }[] | undefined) ?? []) {
        if (m.finish_reason !== undefined) expect(FINISH_REASONS).toContain(m.finish_reason);
      }
    }
  });

  it('records what the call sent and got: options in effect, streaming, server, response id, reasoning tokens', async () => {
    server = await startOpenAITestServer({
      script: [{ text: 'Hi', usage: { inputTokens: 7, outputTokens: 5, reasoningTokens: 3 } }],
    });
    const model = new OpenAIChatModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, temperature: 0.3 });
    const agent = new Agent({ name: 'a', model, modelOptions: { topP: 0.9, stop: ['END'] }, middlewares: [tracing()] });
    const events = await lastValueFrom(agent.reply('Hello').pipe(toArray()));
    const end = events.find((e) => e.type === 'MODEL_CALL_END') as AgentEventOf<'MODEL_CALL_END'>;
    const [chat] = named('chat ');
    const url = new URL(server.url);
    expect(chat!.attributes).toMatchObject({
      'gen_ai.request.temperature': 0.3,
      'gen_ai.request.top_p': 0.9,
      'gen_ai.request.stop_sequences': ['END'],
      'gen_ai.request.stream': true,
      'server.address': url.hostname,
      'server.port': Number(url.port),
      'gen_ai.response.id': end.responseId,
      'gen_ai.response.model': 'gpt-test',
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.usage.reasoning.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(server.requests[0]!.body).toMatchObject({ temperature: 0.3, top_p: 0.9, stop: ['END'], stream: true });
    const [reply] = named('invoke_agent ');
    expect(reply!.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.reasoning.output_tokens': 3,
    });
    // The agent generated its session id: no conversation id the application would recognise.
    for (const s of spans()) expect(s.attributes['gen_ai.conversation.id']).toBeUndefined();
  });

  it('reports a retried attempt that later succeeded nowhere; a failed call once, as a log event in its span', async () => {
    server = await startOpenAITestServer({
      script: [{ fault: 'server_error' }, { text: 'ok' }, { fault: 'unauthorized' }, { fault: 'unauthorized' }],
    });
    const model = new OpenAIChatModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url });
    const retryOnce: Middleware = { onModelCall: (_a, _c, input, next) => next(input).pipe(retry({ count: 1 })) };
    const agent = new Agent({ name: 'a', sessionId: 'conv-2', model, middlewares: [tracing(), retryOnce] });
    await lastValueFrom(agent.reply('one').pipe(toArray()));
    const [ok] = named('chat ');
    expect(ok!.attributes['rxscope.model_call.attempts']).toBe(2);
    expect(ok!.events).toEqual([]);
    expect(logExporter.getFinishedLogRecords()).toEqual([]);
    expect(ok!.attributes['gen_ai.conversation.id']).toBe('conv-2');

    spanExporter.reset();
    await lastValueFrom(agent.reply('two').pipe(toArray()));
    const [failed] = named('chat ');
    const records = logExporter
      .getFinishedLogRecords()
      .filter((r) => r.spanContext?.spanId === failed!.spanContext().spanId);
    expect(records.map((r) => [r.eventName, r.attributes['error.type']])).toEqual([
      [EXCEPTION_EVENT, failed!.attributes['error.type']],
    ]);
    expect(failed!.attributes['gen_ai.response.model']).toBeUndefined();
    expect(failed!.attributes['gen_ai.usage.input_tokens']).toBeUndefined(); // no invented zeros
    expect(failed!.attributes['error.type']).toBe('unauthorized'); // the low-cardinality code, not the message
    const [reply] = named('invoke_agent ');
    expect(reply!.attributes['gen_ai.response.finish_reasons']).toEqual(['error']);
  });
});
