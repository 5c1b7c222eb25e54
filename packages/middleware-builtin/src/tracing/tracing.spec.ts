import {
  type Attributes,
  context,
  type HrTime,
  logs,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
  type SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import {
  Agent,
  type AgentEvent,
  type ChatModel,
  createDeltaEvent,
  createEvent,
  defineTool,
  type Middleware,
  type ModelEvent,
  ModelError,
  type ModelCallInput,
  type RuntimeContext,
} from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { assertReplyGrammar, ScriptedChatModel } from '@rxscope/core/testing';
import { startOpenAITestServer } from '@rxscope/core/testing/node';
import {
  firstValueFrom,
  lastValueFrom,
  map,
  NEVER,
  type Observable,
  of,
  retry,
  type Subscription,
  tap,
  timer,
  toArray,
} from 'rxjs';
import { z } from 'zod';
import { ofType } from '../__tests__/helpers.js';
import { TracingMiddleware } from './index.js';

/** Counts spans started and not ended: every test ends with none open. */
class OpenSpans implements SpanProcessor {
  readonly open = new Set<unknown>();
  onStart(span: unknown): void {
    this.open.add(span);
  }
  onEnd(span: ReadableSpan): void {
    this.open.delete(span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

let exporter: InMemorySpanExporter;
let logExporter: InMemoryLogRecordExporter;
let loggerProvider: LoggerProvider;
let openSpans: OpenSpans;
let provider: TracerProvider;
const contextManager = new AsyncLocalStorageContextManager();

function register(sampler?: Sampler): void {
  exporter = new InMemorySpanExporter();
  openSpans = new OpenSpans();
  provider = new TracerProvider({
    spanProcessors: [openSpans, new SimpleSpanProcessor({ exporter })],
    ...(sampler ? { sampler } : {}),
  });
  trace.setGlobalTracerProvider(provider);
  logExporter = new InMemoryLogRecordExporter();
  loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] });
  logs.setGlobalLoggerProvider(loggerProvider);
}

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});
beforeEach(() => register());
afterEach(async () => {
  expect(openSpans.open.size).toBe(0); // no span is ever left open
  trace.disable();
  logs.disable();
  await provider.shutdown();
  await loggerProvider.shutdown();
});

// --- helpers -------------------------------------------------------------------------------

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const named = (name: string): ReadableSpan[] => spans().filter((s) => s.name === name);
function one(name: string): ReadableSpan {
  const found = named(name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0]!;
}
const idOf = (s: ReadableSpan): string => s.spanContext().spanId;
const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;
const ms = (t: HrTime): number => t[0] * 1000 + t[1] / 1e6;
/** Span times of different spans (and event timestamps, from Date.now()) agree within a few ms. */
const CLOCK_SKEW = 3;
const eventNames = (s: ReadableSpan): string[] => s.events.map((e) => e.name);
/** The `gen_ai.client.operation.exception` log events reported in the context of a span. */
const exceptions = (s: ReadableSpan): Attributes[] =>
  logExporter
    .getFinishedLogRecords()
    .filter((r) => r.eventName === 'gen_ai.client.operation.exception' && r.spanContext?.spanId === idOf(s))
    .map((r) => r.attributes);

async function run(reply$: Observable<AgentEvent>): Promise<AgentEvent[]> {
  const events = await lastValueFrom(reply$.pipe(toArray()));
  assertReplyGrammar(events);
  return events;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather of a city',
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => Promise.resolve(`Sunny in ${city}`),
});

const toolTurn = (name: string, input: unknown, id = 'call_1') => ({
  toolCalls: [{ id, name, input }],
  usage: { inputTokens: 20, outputTokens: 5 },
});

// --- spans, attributes, nesting --------------------------------------------------------------

describe('TracingMiddleware: spans and attributes', () => {
  it('records invoke_agent > chat, execute_tool, chat with the GenAI attributes', async () => {
    const model = new ScriptedChatModel([
      toolTurn('get_weather', { city: 'Paris' }),
      { text: 'Sunny.', usage: { inputTokens: 30, outputTokens: 2 } },
    ]);
    const agent = new Agent({
      name: 'forecaster',
      sessionId: 'session-42',
      model,
      tools: [weather],
      modelOptions: { temperature: 0.2, maxTokens: 100 },
      middlewares: [new TracingMiddleware()],
    });
    const events = await run(agent.reply('Weather in Paris?'));

    const reply = one('invoke_agent forecaster');
    const chats = named('chat scripted-model');
    const tool = one('execute_tool get_weather');
    expect(chats).toHaveLength(2);
    expect(reply.kind).toBe(SpanKind.INTERNAL);
    expect(chats[0]!.kind).toBe(SpanKind.CLIENT);
    expect(tool.kind).toBe(SpanKind.INTERNAL);
    // one trace, chat and execute_tool children of the reply span
    expect(new Set(spans().map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(parentOf(reply)).toBeUndefined();
    for (const child of [...chats, tool]) expect(parentOf(child)).toBe(idOf(reply));

    expect(reply.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.agent.name': 'forecaster',
      'gen_ai.conversation.id': 'session-42',
      'gen_ai.request.model': 'scripted-model',
      'gen_ai.usage.input_tokens': 50,
      'gen_ai.usage.output_tokens': 7,
      'rxscope.reply.id': events[0]!.replyId,
      'rxscope.reply.finish_reason': 'completed',
      'rxscope.reply.iterations': 2,
    });
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'scripted-model',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 100,
      'gen_ai.usage.input_tokens': 20,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.response.finish_reasons': ['tool_call'],
      'gen_ai.conversation.id': 'session-42',
      'gen_ai.agent.name': 'forecaster',
    });
    expect(chats[1]!.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.description': 'Current weather of a city',
      'gen_ai.tool.type': 'function',
      'rxscope.tool.status': 'success',
    });
    for (const s of spans()) {
      expect(s.status.code).toBe(SpanStatusCode.UNSET);
      expect(s.attributes['rxscope.cancelled']).toBeUndefined();
    }
    // chat and tool spans lie within the reply span
    for (const child of [...chats, tool]) {
      expect(ms(child.startTime)).toBeGreaterThanOrEqual(ms(reply.startTime) - CLOCK_SKEW);
      expect(ms(child.endTime)).toBeLessThanOrEqual(ms(reply.endTime) + CLOCK_SKEW);
    }
  });

  it('takes gen_ai.response.model from MODEL_CALL_END.responseModel, and the provider from the model called', async () => {
    const model: ChatModel = {
      modelName: 'gpt-4o',
      provider: 'openai',
      stream: () =>
        of<ModelEvent[]>(
          { type: 'TEXT_BLOCK_START', blockId: 'b1' },
          { type: 'TEXT_BLOCK_DELTA', blockId: 'b1', delta: 'hi' },
          { type: 'TEXT_BLOCK_END', blockId: 'b1' },
          {
            type: 'MODEL_CALL_END',
            model: 'gpt-4o',
            responseModel: 'gpt-4o-2024-08-06',
            finishReason: 'stop',
            usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 2 },
          },
        ),
    };
    await run(new Agent({ name: 'a', model, middlewares: [new TracingMiddleware()] }).reply('hi'));
    expect(one('chat gpt-4o').attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.usage.cache_read.input_tokens': 2,
    });
    expect(one('invoke_agent a').attributes['gen_ai.provider.name']).toBe('openai');
  });

  it('nests the reply span under the span active where the reply is subscribed', async () => {
    const agent = new Agent({
      name: 'a',
      model: new ScriptedChatModel([{ text: 'ok' }]),
      middlewares: [new TracingMiddleware()],
    });
    await trace.getTracer('app').startActiveSpan('POST /chat', async (request) => {
      await run(agent.reply('hi'));
      request.end();
    });
    expect(parentOf(one('invoke_agent a'))).toBe(idOf(one('POST /chat')));
  });

  it('nests chat and execute_tool spans under the reply span even without a context manager', async () => {
    context.disable(); // the API's default: no active context is ever propagated
    try {
      const model = new ScriptedChatModel([toolTurn('get_weather', { city: 'Oslo' }), { text: 'ok' }]);
      await run(new Agent({ name: 'a', model, tools: [weather], middlewares: [new TracingMiddleware()] }).reply('go'));
      const reply = one('invoke_agent a');
      for (const s of [...named('chat scripted-model'), one('execute_tool get_weather')])
        expect(parentOf(s)).toBe(idOf(reply));
    } finally {
      context.setGlobalContextManager(contextManager);
    }
  });
});

// --- the active context inside tools and models ---------------------------------------------

describe('TracingMiddleware: the active context', () => {
  it('makes execute_tool the active span while the tool runs: spans it starts nest under it, also after await and timers', async () => {
    const tracer = trace.getTracer('tool-code');
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks things up',
      input: z.object({ q: z.string() }),
      execute: async ({ q }) => {
        tracer.startSpan('sync-child').end(); // started synchronously inside execute
        await sleep(5);
        const fromPromise = await tracer.startActiveSpan('after-await', async (span) => {
          await sleep(2);
          tracer.startSpan('grandchild').end();
          span.end();
          return q.toUpperCase();
        });
        return lastValueFrom(
          timer(3).pipe(
            map(() => {
              tracer.startSpan('in-timer').end();
              return fromPromise;
            }),
          ),
        );
      },
    });
    const model = new ScriptedChatModel([toolTurn('lookup', { q: 'rx' }), { text: 'done' }]);
    await run(new Agent({ name: 'a', model, tools: [lookup], middlewares: [new TracingMiddleware()] }).reply('go'));

    const tool = one('execute_tool lookup');
    expect(parentOf(one('sync-child'))).toBe(idOf(tool));
    expect(parentOf(one('after-await'))).toBe(idOf(tool));
    expect(parentOf(one('grandchild'))).toBe(idOf(one('after-await')));
    expect(parentOf(one('in-timer'))).toBe(idOf(tool));
    expect(one('sync-child').spanContext().traceId).toBe(one('invoke_agent a').spanContext().traceId);
  });

  it('makes the chat span active while the model is subscribed (spans of an HTTP client nest under it)', async () => {
    const tracer = trace.getTracer('http-client');
    const inner = new ScriptedChatModel([{ text: 'ok' }], { delayMs: 2 });
    const model: ChatModel = {
      modelName: inner.modelName,
      provider: 'scripted',
      stream: (request) => {
        tracer.startSpan('HTTP POST').end();
        return inner.stream(request);
      },
    };
    await run(new Agent({ name: 'a', model, middlewares: [new TracingMiddleware()] }).reply('hi'));
    expect(parentOf(one('HTTP POST'))).toBe(idOf(one('chat scripted-model')));
  });
});

// --- ends, failures, cancellation ------------------------------------------------------------

describe('TracingMiddleware: span ends and failures', () => {
  it("ends a streamed chat span at the call's last event, not at its first", async () => {
    const model = new ScriptedChatModel([{ text: ['a', 'b', 'c', 'd'] }], { delayMs: 15 });
    const events = await run(new Agent({ name: 'a', model, middlewares: [new TracingMiddleware()] }).reply('hi'));
    const chat = one('chat scripted-model');
    const start = ofType(events, 'MODEL_CALL_START')[0]!;
    const end = ofType(events, 'MODEL_CALL_END')[0]!;
    const lastDelta = ofType(events, 'TEXT_BLOCK_DELTA').at(-1)!;
    // 7 events 15 ms apart: the span covers the whole stream
    expect(ms(chat.endTime) - ms(chat.startTime)).toBeGreaterThanOrEqual(90);
    expect(ms(chat.startTime)).toBeLessThanOrEqual(start.createdAt + CLOCK_SKEW);
    expect(ms(chat.endTime)).toBeGreaterThanOrEqual(lastDelta.createdAt - CLOCK_SKEW);
    expect(ms(chat.endTime)).toBeGreaterThanOrEqual(end.createdAt - CLOCK_SKEW);
    expect(ms(chat.endTime)).toBeLessThanOrEqual(ms(one('invoke_agent a').endTime) + CLOCK_SKEW);
  });

  it('marks a call that fails mid-stream on a real HTTP server, and the reply ending with an error', async () => {
    const server = await startOpenAITestServer({
      script: [{ text: ['Hel', 'lo', ' wor', 'ld'], fault: 'drop_mid_stream' }],
      chunkDelayMs: 10,
    });
    try {
      const model = new OpenAIChatModel({ model: 'gpt-test', apiKey: 'test', baseURL: server.url });
      const events = await run(new Agent({ name: 'a', model, middlewares: [new TracingMiddleware()] }).reply('hi'));
      const end = ofType(events, 'REPLY_END')[0]!;
      expect(end.finishReason).toBe('error');

      const chat = one('chat gpt-test');
      expect(chat.attributes['gen_ai.provider.name']).toBe('openai');
      expect(chat.status.code).toBe(SpanStatusCode.ERROR);
      expect(chat.attributes['error.type']).toEqual(expect.any(String));
      expect(eventNames(chat)).toEqual([]); // span exception events are deprecated: a log event instead
      expect(exceptions(chat)).toEqual([
        {
          'exception.type': expect.any(String),
          'exception.message': expect.any(String),
          'error.type': chat.attributes['error.type'],
        },
      ]); // one exception for the one failure
      expect(chat.attributes['gen_ai.response.model']).toBeUndefined(); // no response, no response model
      expect(chat.attributes['gen_ai.response.finish_reasons']).toEqual(['error']);
      const modelEnd = ofType(events, 'MODEL_CALL_END')[0]!;
      expect(ms(chat.endTime)).toBeGreaterThanOrEqual(modelEnd.createdAt - CLOCK_SKEW);

      const reply = one('invoke_agent a');
      expect(reply.status).toMatchObject({ code: SpanStatusCode.ERROR, message: end.error!.message });
      expect(reply.attributes['rxscope.reply.finish_reason']).toBe('error');
      expect(exceptions(reply)).toHaveLength(1);
      expect(reply.attributes['gen_ai.response.finish_reasons']).toEqual(['error']);
    } finally {
      await server.close();
    }
  });

  it('covers every attempt of an inner retry layer with one chat span: the call succeeds, so no exception is left', async () => {
    const model = new ScriptedChatModel([
      { text: 'Hel', error: new ModelError('overloaded', { retryable: true, code: 'overloaded' }) },
      { text: 'Hello' },
    ]);
    const retryOnce: Middleware = { onModelCall: (_a, _c, input, next) => next(input).pipe(retry({ count: 1 })) };
    await run(new Agent({ name: 'a', model, middlewares: [new TracingMiddleware(), retryOnce] }).reply('hi'));
    const chat = one('chat scripted-model');
    expect(chat.attributes['rxscope.model_call.attempts']).toBe(2);
    expect(chat.events).toEqual([]);
    expect(exceptions(chat)).toEqual([]);
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    expect(chat.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
  });

  it('marks a tool that throws (error status, exception event) and the reply goes on', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'Fails',
      input: z.object({}),
      execute: () => Promise.reject(new TypeError('disk on fire')),
    });
    const model = new ScriptedChatModel([toolTurn('broken', {}), { text: 'Sorry.' }]);
    const events = await run(
      new Agent({ name: 'a', model, tools: [broken], middlewares: [new TracingMiddleware()] }).reply('go'),
    );
    expect(ofType(events, 'REPLY_END')[0]!.finishReason).toBe('completed');
    const tool = one('execute_tool broken');
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'disk on fire' });
    expect(tool.attributes['error.type']).toBe('TypeError');
    expect(exceptions(tool)).toEqual([
      {
        'exception.type': 'TypeError',
        'exception.message': 'disk on fire',
        'exception.stacktrace': expect.stringContaining('disk on fire'),
        'error.type': 'TypeError',
      },
    ]);
    expect(one('invoke_agent a').status.code).toBe(SpanStatusCode.UNSET);
  });

  it("marks a tool call that an inner layer answers with status 'error'", async () => {
    const failing: Middleware = {
      onActing: (_a, ctx, input) =>
        of(
          ctx.event('TOOL_RESULT_START', { blockId: 'r1', toolCallId: input.toolCall.id, name: input.tool.name }),
          ctx.event('TOOL_RESULT_END', {
            blockId: 'r1',
            toolCallId: input.toolCall.id,
            status: 'error',
            output: [{ type: 'text', text: 'quota exceeded' }],
          }),
        ),
    };
    const model = new ScriptedChatModel([toolTurn('get_weather', { city: 'Rome' }), { text: 'ok' }]);
    await run(
      new Agent({ name: 'a', model, tools: [weather], middlewares: [new TracingMiddleware(), failing] }).reply('go'),
    );
    const tool = one('execute_tool get_weather');
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'quota exceeded' });
    expect(tool.attributes).toMatchObject({ 'rxscope.tool.status': 'error', 'error.type': 'tool_error' });
    expect(exceptions(tool)).toEqual([
      expect.objectContaining({ 'exception.message': 'quota exceeded', 'error.type': 'tool_error' }),
    ]);
  });

  it('ends every span when the consumer unsubscribes during a streamed model call, marked cancelled', async () => {
    const model = new ScriptedChatModel([{ text: ['a', 'b', 'c', 'd', 'e'] }], { delayMs: 10 });
    const agent = new Agent({ name: 'a', model, middlewares: [new TracingMiddleware()] });
    const seen: AgentEvent[] = [];
    await new Promise<void>((resolve) => {
      const sub: Subscription = agent.reply('hi').subscribe((e) => {
        seen.push(e);
        if (e.type === 'TEXT_BLOCK_DELTA') {
          sub.unsubscribe();
          resolve();
        }
      });
    });
    expect(model.requests[0]!.signal.aborted).toBe(true);
    const chat = one('chat scripted-model');
    const reply = one('invoke_agent a');
    expect(chat.attributes['rxscope.cancelled']).toBe(true);
    expect(reply.attributes['rxscope.cancelled']).toBe(true);
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    expect(ms(chat.endTime)).toBeLessThanOrEqual(ms(reply.endTime) + CLOCK_SKEW); // inner teardown first
  });

  it('ends the execute_tool span when the reply is cancelled while the tool runs, and aborts the tool', async () => {
    let aborted = false;
    const slow = defineTool({
      name: 'slow',
      description: 'Never finishes by itself',
      input: z.object({}),
      execute: (_input, toolCtx) => {
        toolCtx.signal.addEventListener('abort', () => (aborted = true));
        return NEVER;
      },
    });
    const model = new ScriptedChatModel([toolTurn('slow', {})]);
    const agent = new Agent({ name: 'a', model, tools: [slow], middlewares: [new TracingMiddleware()] });
    const sub = agent.reply('go').subscribe();
    await sleep(5);
    expect(openSpans.open.size).toBe(2); // the reply and the running tool
    sub.unsubscribe();
    expect(aborted).toBe(true);
    expect(one('execute_tool slow').attributes['rxscope.cancelled']).toBe(true);
    expect(one('invoke_agent a').attributes['rxscope.cancelled']).toBe(true);
  });

  it('records an interrupted reply with its finish reason', async () => {
    const model = new ScriptedChatModel([{ text: ['a', 'b', 'c', 'd'] }], { delayMs: 10 });
    const agent = new Agent({ name: 'a', model, middlewares: [new TracingMiddleware()] });
    setTimeout(() => agent.interrupt('stop'), 25);
    await run(agent.reply('hi'));
    const reply = one('invoke_agent a');
    expect(reply.attributes['rxscope.reply.finish_reason']).toBe('interrupted');
    expect(reply.attributes['rxscope.cancelled']).toBeUndefined();
    expect(one('chat scripted-model').attributes['rxscope.cancelled']).toBe(true);
  });
});

// --- human in the loop -----------------------------------------------------------------------

describe('TracingMiddleware: confirmation and external execution', () => {
  const transfer = defineTool({
    name: 'transfer',
    description: 'Moves money',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => `moved ${amount}`,
  });

  it('records calls waiting for confirmation on the reply span, and links the resumed reply to it', async () => {
    const model = new ScriptedChatModel([toolTurn('transfer', { amount: 5 }, 'call_t'), { text: 'Done.' }]);
    const agent = new Agent({ name: 'bank', model, tools: [transfer], middlewares: [new TracingMiddleware()] });
    const first = await run(agent.reply('Send 5'));
    expect(ofType(first, 'REPLY_END')[0]!.finishReason).toBe('awaiting_confirmation');
    const suspended = one('invoke_agent bank');
    expect(suspended.attributes['rxscope.reply.finish_reason']).toBe('awaiting_confirmation');
    expect(suspended.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'rxscope.tool_call.awaiting_confirmation',
        {
          'gen_ai.tool.call.id': 'call_t',
          'gen_ai.tool.name': 'transfer',
          'rxscope.permission.reason': expect.any(String),
        },
      ],
    ]);
    expect(named('execute_tool transfer')).toHaveLength(0);
    // the suspension is kept with the agent's state (for a resume in another process)
    expect(agent.saveState().middlewareState['tracing']).toMatchObject({ spanId: idOf(suspended) });

    exporter.reset();
    await run(agent.reply({ type: 'USER_CONFIRM_RESULT', results: [{ toolCallId: 'call_t', confirmed: true }] }));
    const resumed = one('invoke_agent bank');
    expect(resumed.links.map((l) => l.context.spanId)).toEqual([idOf(suspended)]);
    expect(resumed.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'rxscope.tool_call.confirmation_result',
        { 'gen_ai.tool.call.id': 'call_t', 'rxscope.tool_call.confirmed': true },
      ],
    ]);
    expect(parentOf(one('execute_tool transfer'))).toBe(idOf(resumed));
    expect(agent.saveState().middlewareState['tracing']).toBeUndefined();
  });

  it('records calls left to an external executor, their results, and calls answered without running', async () => {
    const browser = defineTool({
      name: 'click',
      description: 'Clicks in the browser',
      input: z.object({ x: z.number() }),
      external: true,
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'call_x', name: 'click', input: { x: 1 } },
          { id: 'call_u', name: 'no_such_tool', input: {} },
        ],
      },
      { text: 'Clicked.' },
    ]);
    const agent = new Agent({ name: 'ui', model, tools: [browser], middlewares: [new TracingMiddleware()] });
    await run(agent.reply('click'));
    const suspended = one('invoke_agent ui');
    expect(
      suspended.events.map((e) => [
        e.name,
        e.attributes?.['gen_ai.tool.call.id'],
        e.attributes?.['rxscope.tool.status'],
      ]),
    ).toEqual([
      ['rxscope.tool_call.answered', 'call_u', 'error'], // unknown tool: answered without running
      ['rxscope.tool_call.awaiting_external_execution', 'call_x', undefined],
    ]);
    exporter.reset();
    await run(agent.reply({ type: 'EXTERNAL_EXECUTION_RESULT', results: [{ toolCallId: 'call_x', output: 'ok' }] }));
    const resumed = one('invoke_agent ui');
    expect(resumed.events.map((e) => [e.name, e.attributes?.['gen_ai.tool.call.id']])).toEqual([
      ['rxscope.tool_call.external_result', 'call_x'],
      ['rxscope.tool_call.answered', 'call_x'],
    ]);
    expect(resumed.links).toHaveLength(1);
  });
});

// --- content capture -------------------------------------------------------------------------

describe('TracingMiddleware: message content', () => {
  const script = () =>
    new ScriptedChatModel([
      { thinking: 'Use the tool.', toolCalls: [{ id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }] },
      { text: ['Sunny ', 'in Paris.'] },
    ]);
  const contentKeys = [
    'gen_ai.input.messages',
    'gen_ai.output.messages',
    'gen_ai.system_instructions',
    'gen_ai.tool.definitions',
    'gen_ai.tool.call.arguments',
    'gen_ai.tool.call.result',
  ];

  it('records no content by default', async () => {
    await run(
      new Agent({
        name: 'a',
        sysPrompt: 'Be brief.',
        model: script(),
        tools: [weather],
        middlewares: [new TracingMiddleware()],
      }).reply('Weather in Paris?'),
    );
    for (const s of spans()) {
      for (const key of contentKeys) expect(s.attributes[key]).toBeUndefined();
      for (const e of s.events) for (const key of contentKeys) expect(e.attributes?.[key]).toBeUndefined();
    }
    expect(JSON.stringify(spans().map((s) => [s.attributes, s.events]))).not.toContain('Paris');
  });

  it('records prompts, system instructions, streamed output, tool arguments and results when opted in', async () => {
    const agent = new Agent({
      name: 'a',
      sysPrompt: 'Be brief.',
      model: script(),
      tools: [weather],
      middlewares: [new TracingMiddleware({ captureContent: true })],
    });
    await run(agent.reply('Weather in Paris?'));
    const [first, second] = named('chat scripted-model');
    expect(first!.attributes['gen_ai.system_instructions']).toEqual([{ type: 'text', content: 'Be brief.' }]);
    expect(first!.attributes['gen_ai.input.messages']).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
    ]);
    expect(first!.attributes['gen_ai.tool.definitions']).toEqual([
      expect.objectContaining({ type: 'function', name: 'get_weather', description: 'Current weather of a city' }),
    ]);
    expect(first!.attributes['gen_ai.output.messages']).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'Use the tool.' },
          { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
        ],
        finish_reason: 'tool_call',
      },
    ]);
    // the second call sees the tool result as a `tool` message
    expect(second!.attributes['gen_ai.input.messages']).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'Use the tool.' },
          { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'Sunny in Paris' }] },
    ]);
    expect(second!.attributes['gen_ai.output.messages']).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Sunny in Paris.' }], finish_reason: 'stop' },
    ]);
    const tool = one('execute_tool get_weather');
    expect(tool.attributes['gen_ai.tool.call.arguments']).toEqual({ city: 'Paris' });
    expect(tool.attributes['gen_ai.tool.call.result']).toBe('Sunny in Paris');
    const reply = one('invoke_agent a');
    expect(reply.attributes['gen_ai.input.messages']).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
    ]);
    const output = reply.attributes['gen_ai.output.messages'] as { parts: { type: string }[]; finish_reason: string }[];
    expect(output[0]!.parts.map((p) => p.type)).toEqual(['reasoning', 'tool_call', 'tool_call_response', 'text']);
    expect(output[0]!.finish_reason).toBe('stop'); // the conventions' value, not the reply's 'completed'
  });
});

// --- without an SDK, sampling, sharing -------------------------------------------------------

function fakeContext(): RuntimeContext {
  const values = new Map<unknown, unknown>();
  const origin = { replyId: 'reply_1', source: 'a' };
  return {
    agentName: 'a',
    replyId: 'reply_1',
    sessionId: 'session_1',
    userId: undefined,
    iteration: 1,
    signal: new AbortController().signal,
    get sharedState(): never {
      throw new Error('no shared state in this test');
    },
    get conversation(): never {
      throw new Error('this fake context has no conversation');
    },
    get: (token) => {
      if (!values.has(token)) values.set(token, token.defaultValue());
      return values.get(token) as never;
    },
    set: (token, value) => void values.set(token, value),
    has: (token) => values.has(token),
    state: () => ({ get: () => undefined, set: () => undefined, delete: () => undefined }),
    replyState: () => ({ get: () => undefined, set: () => undefined, delete: () => undefined }),
    stop: () => undefined,
    event: (type, fields) => createEvent(type, fields, origin),
    delta: (type, blockId, delta) => createDeltaEvent(type, blockId, delta, origin),
  };
}

describe('TracingMiddleware: without an SDK, when not sampled, and shared', () => {
  it('with no tracer provider registered, returns what next returns, untouched, and carries no context', async () => {
    trace.disable();
    const mw = new TracingMiddleware();
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const agent = new Agent({ name: 'a', model });
    const ctx = fakeContext();
    const inner$ = of(ctx.event('REPLY_START', {}));
    const modelInput: ModelCallInput = {
      model,
      messages: [],
      tools: [],
      toolChoice: 'auto',
      options: {},
      signal: ctx.signal,
    };
    expect(mw.onAgent(agent, ctx, { messages: [] }, () => inner$)).toBe(inner$);
    expect(mw.onModelCall(agent, ctx, modelInput, () => inner$)).toBe(inner$);
    expect(
      mw.onActing(
        agent,
        ctx,
        { toolCall: { type: 'tool_call', id: 'c', name: 'get_weather', arguments: '{}' }, tool: weather, input: {} },
        () => inner$,
      ),
    ).toBe(inner$);

    // Through a real agent: the subscriber gets the very event objects the inner layers emit.
    const emitted: AgentEvent[] = [];
    const probe: Middleware = {
      onAgent: (_a, _c, input, next) => next(input).pipe(tap((e) => emitted.push(e))),
      onModelCall: (_a, _c, input, next) => next(input),
    };
    let activeInTool: unknown = 'not run';
    const spy = defineTool({
      name: 'spy',
      description: 'Reads the active span',
      input: z.object({}),
      execute: () => {
        activeInTool = trace.getActiveSpan();
        return 'ok';
      },
    });
    const traced = new Agent({
      name: 'b',
      model: new ScriptedChatModel([toolTurn('spy', {}), { text: ['o', 'k'] }]),
      tools: [spy],
      middlewares: [mw, probe],
    });
    const received = await run(traced.reply('hi'));
    expect(received).toHaveLength(emitted.length);
    received.forEach((e, i) => expect(e).toBe(emitted[i]));
    expect(activeInTool).toBeUndefined();
    expect(spans()).toHaveLength(0);
  });

  it('when the SDK does not sample the reply, records nothing but carries the context: spans a tool starts are not sampled either', async () => {
    trace.disable();
    await provider.shutdown();
    register(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    let sampledInTool: number | undefined;
    const spy = defineTool({
      name: 'spy',
      description: 'Starts a span',
      input: z.object({}),
      execute: () => {
        const span = trace.getTracer('tool').startSpan('tool-work');
        sampledInTool = span.spanContext().traceFlags;
        span.end();
        return 'ok';
      },
    });
    const agent = new Agent({
      name: 'a',
      model: new ScriptedChatModel([toolTurn('spy', {}), { text: 'ok' }]),
      tools: [spy],
      middlewares: [new TracingMiddleware()],
    });
    let replyTraceId: string | undefined;
    const spyTrace: Middleware = {
      onAgent: (_a, _c, input, next) => {
        replyTraceId = trace.getActiveSpan()?.spanContext().traceId;
        return next(input);
      },
    };
    const agent2 = new Agent({
      name: 'b',
      model: new ScriptedChatModel([{ text: 'ok' }]),
      middlewares: [new TracingMiddleware(), spyTrace],
    });
    await run(agent.reply('go'));
    await run(agent2.reply('go'));
    expect(spans()).toHaveLength(0);
    expect(sampledInTool).toBe(0); // a child of the unsampled reply, not a new sampled root
    expect(replyTraceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('keeps the traces of concurrent replies of several agents sharing one instance apart', async () => {
    const tracing = new TracingMiddleware();
    const tracer = trace.getTracer('tool-code');
    const work = defineTool({
      name: 'work',
      description: 'Does some async work',
      input: z.object({ n: z.number() }),
      readOnly: true,
      execute: async ({ n }) => {
        await sleep(3 + n);
        return tracer.startActiveSpan(`work-${n}`, (span) => {
          span.end();
          return String(n);
        });
      },
    });
    const agents = [0, 1, 2].map(
      (n) =>
        new Agent({
          name: `agent-${n}`,
          model: new ScriptedChatModel(
            [
              {
                toolCalls: [
                  { id: `call_${n}a`, name: 'work', input: { n } },
                  { id: `call_${n}b`, name: 'work', input: { n: n + 10 } },
                ],
              },
              { text: ['do', 'ne'] },
            ],
            { delayMs: 2 + n },
          ),
          tools: [work],
          middlewares: [tracing],
        }),
    );
    await Promise.all(agents.map((agent) => run(agent.reply('go'))));

    const traceIds = new Set<string>();
    for (const n of [0, 1, 2]) {
      const reply = one(`invoke_agent agent-${n}`);
      const traceId = reply.spanContext().traceId;
      traceIds.add(traceId);
      const inTrace = spans().filter((s) => s.spanContext().traceId === traceId);
      expect(inTrace.map((s) => s.name).sort()).toEqual(
        [
          `invoke_agent agent-${n}`,
          'chat scripted-model',
          'chat scripted-model',
          'execute_tool work',
          'execute_tool work',
          `work-${n}`,
          `work-${n + 10}`,
        ].sort(),
      );
      for (const s of inTrace.filter((s) => s.name.startsWith('chat ') || s.name.startsWith('execute_tool '))) {
        expect(parentOf(s)).toBe(idOf(reply));
        expect(s.attributes['gen_ai.agent.name']).toBe(`agent-${n}`);
      }
      for (const m of [n, n + 10]) {
        const child = one(`work-${m}`);
        const tool = inTrace.find((s) => s.name === 'execute_tool work' && idOf(s) === parentOf(child));
        expect(tool).toBeDefined();
      }
    }
    expect(traceIds.size).toBe(3);
  });

  it('uses the tracer provider given in the options instead of the global one', async () => {
    const own = new InMemorySpanExporter();
    const ownProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: own })] });
    const agent = new Agent({
      name: 'a',
      model: new ScriptedChatModel([{ text: 'ok' }]),
      middlewares: [new TracingMiddleware({ tracerProvider: ownProvider })],
    });
    await run(agent.reply('hi'));
    expect(own.getFinishedSpans().map((s) => s.name)).toEqual(['chat scripted-model', 'invoke_agent a']);
    expect(spans()).toHaveLength(0);
    await ownProvider.shutdown();
  });

  it('does not let a model that emits synchronously escape the reply context', async () => {
    // The context is only active while the phase is subscribed: after the reply, the caller's context is back.
    const agent = new Agent({
      name: 'a',
      model: new ScriptedChatModel([{ text: 'ok' }]),
      middlewares: [new TracingMiddleware()],
    });
    await firstValueFrom(agent.reply('hi').pipe(toArray()));
    expect(trace.getActiveSpan()).toBeUndefined();
    expect(context.active()).toBe(ROOT_CONTEXT);
  });
});
