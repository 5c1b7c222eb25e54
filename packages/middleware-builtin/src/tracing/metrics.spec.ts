// The GenAI client metrics, read back through the OpenTelemetry metrics SDK, against the
// OpenAI-compatible test server through the real OpenAIChatModel.
import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  type HistogramMetricData,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { Agent } from '@rxscope/core';
import { type OpenAITestServer, startOpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, run, testServerModel, unauthorized } from '../__tests__/helpers.js';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { TracingMiddleware } from './index.js';

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

async function histograms(reader: MetricReader): Promise<Map<string, HistogramMetricData>> {
  const { resourceMetrics } = await reader.collect();
  const all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics) as HistogramMetricData[];
  return new Map(all.map((m) => [m.descriptor.name, m]));
}

const point = (m: HistogramMetricData | undefined, attrs: Record<string, unknown> = {}) =>
  m?.dataPoints.find((p) => Object.entries(attrs).every(([k, v]) => p.attributes[k] === v));

describe('TracingMiddleware metrics', () => {
  let server: OpenAITestServer;
  afterEach(() => closeTestServer(server));

  it('records the GenAI client histograms with the conventions’ names, units, attributes and buckets', async () => {
    server = await startOpenAITestServer({
      script: [{ text: ['One ', 'two ', 'three.'], usage: { prompt_tokens: 12, completion_tokens: 3 } }],
    });
    const reader = new TestReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const agent = new Agent({
      name: 'a',
      model: testServerModel(server),
      middlewares: [new TracingMiddleware({ meterProvider })],
    });
    await run(agent, 'count');

    const got = await histograms(reader);
    const port = Number(new URL(server.url).port);
    const common = {
      [semconv.ATTR_GEN_AI_OPERATION_NAME]: 'chat',
      [semconv.ATTR_GEN_AI_PROVIDER_NAME]: 'openai',
      [semconv.ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-test',
      [semconv.ATTR_SERVER_ADDRESS]: '127.0.0.1',
      [semconv.ATTR_SERVER_PORT]: port,
    };

    const duration = got.get(semconv.METRIC_GEN_AI_CLIENT_OPERATION_DURATION)!;
    expect(duration.descriptor.unit).toBe('s');
    const d = point(duration, common)!;
    expect(d.value.count).toBe(1);
    expect(d.value.buckets.boundaries).toEqual([
      0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
    ]);
    expect(d.attributes[semconv.ATTR_GEN_AI_RESPONSE_MODEL]).toEqual(expect.any(String));
    expect(d.attributes[semconv.ATTR_ERROR_TYPE]).toBeUndefined();

    const tokens = got.get(semconv.METRIC_GEN_AI_CLIENT_TOKEN_USAGE)!;
    expect(tokens.descriptor.unit).toBe('{token}');
    const input = point(tokens, { ...common, [semconv.ATTR_GEN_AI_TOKEN_TYPE]: 'input' })!;
    const output = point(tokens, { ...common, [semconv.ATTR_GEN_AI_TOKEN_TYPE]: 'output' })!;
    expect([input.value.sum, output.value.sum]).toEqual([12, 3]);
    expect(input.value.buckets.boundaries.slice(0, 3)).toEqual([1, 4, 16]);

    // Streamed: one first chunk, then the time between each later chunk (3 text chunks: 2).
    const first = got.get(semconv.METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK)!;
    const perChunk = got.get(semconv.METRIC_GEN_AI_CLIENT_OPERATION_TIME_PER_OUTPUT_CHUNK)!;
    expect([first.descriptor.unit, perChunk.descriptor.unit]).toEqual(['s', 's']);
    // The client time histograms share the duration's boundaries (the finer ones are the server side's).
    expect(point(first, common)!.value.buckets.boundaries).toEqual(d.value.buckets.boundaries);
    expect(point(perChunk, common)!.value.buckets.boundaries).toEqual(d.value.buckets.boundaries);
    expect(point(first, common)!.value.count).toBe(1);
    expect(point(perChunk, common)!.value.count).toBe(2);
    expect(point(first, common)!.value.sum).toBeLessThanOrEqual(d.value.sum!);
    await meterProvider.shutdown();
  });

  it('records a failed call with error.type and no tokens; uses the global meter provider by default', async () => {
    const reader = new TestReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(meterProvider);
    try {
      const model = new ScriptedChatModel([{ error: unauthorized() }]);
      const agent = new Agent({ name: 'a', model, middlewares: [new TracingMiddleware()] });
      expect((await run(agent, 'hi')).end.finishReason).toBe('error');
      const got = await histograms(reader);
      const d = got.get(semconv.METRIC_GEN_AI_CLIENT_OPERATION_DURATION)!.dataPoints;
      expect(d.map((p) => p.attributes[semconv.ATTR_ERROR_TYPE])).toEqual(['unauthorized']);
      expect(got.get(semconv.METRIC_GEN_AI_CLIENT_TOKEN_USAGE)?.dataPoints ?? []).toEqual([]);
    } finally {
      metrics.disable();
      await meterProvider.shutdown();
    }
  });
});
