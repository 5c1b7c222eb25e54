/**
 * OpenTelemetry tracing for rxscope agents, after the GenAI semantic conventions.
 *
 * `TracingMiddleware` records one `invoke_agent {agent}` span per reply, one `chat {model}`
 * span per model call and one `execute_tool {tool}` span per tool call, the last two children of
 * the reply span; spans that a tool (or the model's HTTP client) starts nest under its
 * `execute_tool` (or `chat`) span. It uses `@opentelemetry/api` only: start an SDK
 * (`@opentelemetry/sdk-node`'s `NodeSDK`, or a `TracerProvider` of `@opentelemetry/sdk-trace`)
 * to get spans. Without one, every phase passes through untouched.
 *
 * It also records the GenAI client metrics of every model call (`gen_ai.client.operation.duration`,
 * `gen_ai.client.token.usage`, and for streamed requests `gen_ai.client.operation.time_to_first_chunk`
 * and `time_per_output_chunk`) with the meter provider you pass (`meterProvider`) or the global one;
 * without a metrics SDK, nothing is measured.
 *
 * Put it first in `middlewares`, so that its spans cover what the other middlewares do (a chat
 * span then spans every retry of the call; an execute_tool span includes a guard's time).
 *
 * @example
 * ```ts
 * import { NodeSDK } from '@opentelemetry/sdk-node';
 * import { ConsoleSpanExporter } from '@opentelemetry/sdk-trace';
 * import { Agent } from '@rxscope/core';
 * import { TracingMiddleware } from '@rxscope/middleware-builtin';
 *
 * const sdk = new NodeSDK({ traceExporter: new ConsoleSpanExporter() });
 * sdk.start();
 * const agent = new Agent({ name: 'weather', model, tools: [forecast], middlewares: [new TracingMiddleware()] });
 * await agent.call('Weather in Paris?');
 * await sdk.shutdown(); // flushes: invoke_agent weather > chat gpt-4o-mini, execute_tool forecast, chat gpt-4o-mini
 * ```
 *
 * @module
 */
import {
  context,
  isSpanContextValid,
  type LoggerProvider,
  logs,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  type SpanOptions,
  trace,
  type TracerProvider,
} from '@opentelemetry/api';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  ContextToken,
  type Middleware,
  type ModelCallInput,
  type Next,
  type RuntimeContext,
  checkOptionKeys,
  optionKeys,
} from '@rxscope/core';
import { isGeneratedId } from '@rxscope/core/internal';
import type { Observable } from 'rxjs';
import { ATTR } from './attributes.js';
import { chatSpan } from './chat-span.js';
import { genAiInstruments, measured } from './metrics.js';
import { linkToSuspended, replySpan, type SuspendedSpan } from './reply-span.js';
import { toolSpan } from './tool-span.js';
import { type ReplyTrace, traced, withContext } from './traced.js';

/** Options of {@link TracingMiddleware}. */
export interface TracingOptions {
  /**
   * Where spans go. Default: the global provider (`trace.getTracerProvider()`), looked up at
   * every reply, so an SDK started after the agent was built is picked up.
   */
  readonly tracerProvider?: TracerProvider;
  /**
   * Record message content (opt-in; it may hold personal data and is often large): prompt
   * messages and system instructions, tool definitions and streamed output of each chat span
   * (`gen_ai.input.messages`, `gen_ai.system_instructions`, `gen_ai.tool.definitions`,
   * `gen_ai.output.messages`), tool arguments and results (`gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`), and the reply's new messages and final message on the reply
   * span. Recorded as structured attributes (arrays and maps, not JSON strings). Default `false`.
   */
  readonly captureContent?: boolean;
  /**
   * Where failures are reported as `gen_ai.client.operation.exception` log events. Default: the
   * global logger provider (`logs.setGlobalLoggerProvider`, or the Node SDK's).
   */
  readonly loggerProvider?: LoggerProvider;
  /**
   * Where the GenAI client metrics go: `gen_ai.client.operation.duration` (s),
   * `gen_ai.client.token.usage` ({token}) and, for streamed requests,
   * `gen_ai.client.operation.time_to_first_chunk` and `time_per_output_chunk` (s), per model
   * call attempt, with the conventions' attributes and bucket boundaries. Default: the global
   * meter provider (`metrics.setGlobalMeterProvider`, or the Node SDK's), looked up at every
   * model call; without one, nothing is measured.
   */
  readonly meterProvider?: MeterProvider;
}

const SCOPE = '@rxscope/middleware-builtin';

// Every option, typed against TracingOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<TracingOptions>({
  tracerProvider: true,
  meterProvider: true,
  captureContent: true,
  loggerProvider: true,
});

/**
 * Traces replies, model calls and tool calls with OpenTelemetry (GenAI semantic conventions).
 * Stateless: one instance may serve any number of agents and concurrent replies; each reply's
 * spans live in that reply's context.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, middlewares: [new TracingMiddleware({ captureContent: true }), new RetryMiddleware()] });
 * ```
 */
export class TracingMiddleware implements Middleware {
  readonly key = 'tracing';
  private readonly provider: TracerProvider | undefined;
  private readonly loggerProvider: LoggerProvider | undefined;
  private readonly meterProvider: MeterProvider | undefined;
  private readonly captureContent: boolean;
  /** Per-reply data of this instance (a token per instance: two tracing middlewares never mix). */
  private readonly replyTrace = new ContextToken<ReplyTrace | undefined>('tracing.reply', () => undefined);

  constructor(options: TracingOptions = {}) {
    checkOptionKeys('TracingMiddleware', options, OPTION_KEYS);
    this.provider = options.tracerProvider;
    this.loggerProvider = options.loggerProvider;
    this.meterProvider = options.meterProvider;
    this.captureContent = options.captureContent ?? false;
  }

  onAgent(agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    const tracer = (this.provider ?? trace.getTracerProvider()).getTracer(SCOPE);
    const logger = (this.loggerProvider ?? logs.getLoggerProvider()).getLogger(SCOPE);
    // A session id the agent generated is no conversation id the application would know.
    const conversationId = isGeneratedId(ctx.sessionId, 'session') ? undefined : ctx.sessionId;
    const parent = context.active();
    const options: SpanOptions = {
      kind: SpanKind.INTERNAL,
      attributes: {
        [ATTR.operation]: 'invoke_agent',
        [ATTR.provider]: agent.model.provider,
        [ATTR.agentName]: agent.name,
        ...(conversationId !== undefined ? { [ATTR.conversationId]: conversationId } : {}),
        ...(ctx.userId !== undefined ? { [ATTR.userId]: ctx.userId } : {}),
        [ATTR.requestModel]: agent.model.modelName,
        [ATTR.replyId]: ctx.replyId,
      },
      links: input.resume ? linkToSuspended(ctx.state<SuspendedSpan>(this.key).get()) : undefined,
    };
    const name = `invoke_agent ${agent.name}`;
    let first: Span | undefined = tracer.startSpan(name, options, parent);
    if (!first.isRecording()) {
      // The API's no-op tracer (no SDK): nothing to record and no context to carry.
      if (!isSpanContextValid(first.spanContext())) {
        ctx.set(this.replyTrace, undefined);
        return next(input);
      }
      // Not sampled: record nothing, but carry the context so that inner spans are not sampled either.
      const active = trace.setSpan(parent, first);
      ctx.set(this.replyTrace, {
        tracer,
        logger,
        conversationId,
        context: active,
        recording: false,
        executed: new Set<string>(),
        paused: new Map(),
      });
      return withContext(next(input), active);
    }
    return traced(
      () => {
        const span = first ?? tracer.startSpan(name, options, parent);
        first = undefined;
        const reply: ReplyTrace = {
          tracer,
          logger,
          conversationId,
          context: trace.setSpan(parent, span),
          recording: true,
          executed: new Set<string>(),
          paused: new Map(),
        };
        ctx.set(this.replyTrace, reply);
        return replySpan(agent, ctx, input, span, reply, this.captureContent, this.key);
      },
      () => next(input),
    );
  }

  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    outer: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    const instruments = genAiInstruments(this.meterProvider ?? metrics.getMeterProvider(), SCOPE);
    const next: Next<ModelCallInput> = instruments ? (i) => measured(outer(i), instruments, i, ctx) : outer;
    const reply = ctx.get(this.replyTrace);
    if (reply === undefined) return next(input);
    if (!reply.recording) return withContext(next(input), reply.context);
    return traced(
      () => chatSpan(ctx, input, reply, this.captureContent),
      () => next(input),
    );
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    const reply = ctx.get(this.replyTrace);
    if (reply === undefined) return next(input);
    if (!reply.recording) return withContext(next(input), reply.context);
    return traced(
      () => toolSpan(ctx, input, reply, this.captureContent),
      () => next(input),
    );
  }
}
