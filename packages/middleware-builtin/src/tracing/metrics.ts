import { type Attributes, createNoopMeter, type Histogram, type Meter, type MeterProvider } from '@opentelemetry/api';
import { type AgentEvent, type ModelCallInput, type RuntimeContext, toErrorInfo } from '@rxscope/core';
import { defer, type Observable, tap } from 'rxjs';
import { ATTR, requestInfoAttributes } from './attributes.js';

/** The GenAI client metrics (OpenTelemetry semantic conventions 1.45, incubating). */
export const METRIC = {
  duration: 'gen_ai.client.operation.duration',
  tokenUsage: 'gen_ai.client.token.usage',
  timeToFirstChunk: 'gen_ai.client.operation.time_to_first_chunk',
  timePerOutputChunk: 'gen_ai.client.operation.time_per_output_chunk',
} as const;

const SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92] as const;

/**
 * The bucket boundaries the conventions advise for each histogram. The three client time
 * histograms share the doubling seconds boundaries; the finer ones of `gen_ai.server.time_to_first_token`
 * and `time_per_output_token` are the server side's, not these.
 */
export const BUCKETS = {
  duration: SECONDS,
  tokenUsage: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864],
  timeToFirstChunk: SECONDS,
  timePerOutputChunk: SECONDS,
} as const;

/** The four histograms of one meter. */
export interface GenAiInstruments {
  readonly duration: Histogram;
  readonly tokenUsage: Histogram;
  readonly timeToFirstChunk: Histogram;
  readonly timePerOutputChunk: Histogram;
}

const NOOP_METER = createNoopMeter().constructor;
const byMeter = new WeakMap<Meter, GenAiInstruments>();

/** The histograms of `provider`'s meter, made once per meter; `undefined` without an SDK (the API's no-op meter). */
export function genAiInstruments(provider: MeterProvider, scope: string): GenAiInstruments | undefined {
  const meter = provider.getMeter(scope);
  if (meter.constructor === NOOP_METER) return undefined;
  let made = byMeter.get(meter);
  if (!made) {
    const histogram = (name: string, description: string, unit: string, boundaries: readonly number[]) =>
      meter.createHistogram(name, { description, unit, advice: { explicitBucketBoundaries: [...boundaries] } });
    made = {
      duration: histogram(METRIC.duration, 'GenAI operation duration.', 's', BUCKETS.duration),
      tokenUsage: histogram(
        METRIC.tokenUsage,
        'Number of input and output tokens used.',
        '{token}',
        BUCKETS.tokenUsage,
      ),
      timeToFirstChunk: histogram(
        METRIC.timeToFirstChunk,
        'Time to receive the first chunk of a streamed response.',
        's',
        BUCKETS.timeToFirstChunk,
      ),
      timePerOutputChunk: histogram(
        METRIC.timePerOutputChunk,
        'Time between two chunks of a streamed response, after the first.',
        's',
        BUCKETS.timePerOutputChunk,
      ),
    };
    byMeter.set(meter, made);
  }
  return made;
}

const CHUNKS = new Set<AgentEvent['type']>([
  'TEXT_BLOCK_DELTA',
  'THINKING_BLOCK_DELTA',
  'TOOL_CALL_DELTA',
  'DATA_BLOCK_DELTA',
]);

/**
 * Records the metrics of each model call (each attempt, from its `MODEL_CALL_START` to its
 * `MODEL_CALL_END`) that passes through: duration (with `error.type` when it failed), input and
 * output tokens, and for a streamed request the time to the first chunk and between chunks.
 */
export function measured(
  source: Observable<AgentEvent>,
  instruments: GenAiInstruments,
  input: ModelCallInput,
  ctx: RuntimeContext,
  now: () => number = () => performance.now(),
): Observable<AgentEvent> {
  const info = input.model.describeRequest?.(input);
  const streaming = info?.stream ?? true;
  const base: Attributes = {
    [ATTR.operation]: 'chat',
    [ATTR.provider]: info?.provider ?? input.model.provider,
    [ATTR.requestModel]: input.model.modelName,
    ...(info && pick(requestInfoAttributes(info), [ATTR.serverAddress, ATTR.serverPort])),
  };
  return defer(() => {
    let startedAt: number | undefined;
    let lastChunk: number | undefined;
    const finish = (attributes: Attributes) => {
      if (startedAt === undefined) return;
      instruments.duration.record((now() - startedAt) / 1000, attributes);
      startedAt = undefined;
    };
    return source.pipe(
      tap({
        next: (e) => {
          if (e.source !== ctx.agentName) return;
          if (e.type === 'MODEL_CALL_START') {
            startedAt = now();
            lastChunk = undefined;
          } else if (startedAt !== undefined && CHUNKS.has(e.type)) {
            const t = now();
            if (streaming && lastChunk === undefined) instruments.timeToFirstChunk.record((t - startedAt) / 1000, base);
            else if (streaming) instruments.timePerOutputChunk.record((t - lastChunk!) / 1000, base);
            lastChunk = t;
          } else if (e.type === 'MODEL_CALL_END' && startedAt !== undefined) {
            const attributes = {
              ...base,
              ...(e.responseModel !== undefined && { [ATTR.responseModel]: e.responseModel }),
            };
            if (e.finishReason === 'error') return finish({ ...attributes, [ATTR.errorType]: errorType(e.error) });
            instruments.tokenUsage.record(e.usage.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
            instruments.tokenUsage.record(e.usage.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
            finish(attributes);
          }
        },
        error: (err: unknown) => finish({ ...base, [ATTR.errorType]: errorType(toErrorInfo(err)) }),
      }),
    );
  });
}

const errorType = (error: { readonly code?: string; readonly name?: string } | undefined): string =>
  error?.code ?? error?.name ?? '_OTHER';

function pick(attributes: Attributes, keys: readonly string[]): Attributes {
  return Object.fromEntries(keys.filter((k) => attributes[k] !== undefined).map((k) => [k, attributes[k]]));
}
