/**
 * rxscope tracing: an agent with one tool, traced with OpenTelemetry's Node SDK and
 * `TracingMiddleware`; the recorded spans are printed as a tree when the reply is done.
 *
 *   node examples/tracing/dist/main.js              offline: a scripted model
 *   node examples/tracing/dist/main.js --content    also record message content (opt-in)
 *   OPENAI_API_KEY=sk-... node examples/tracing/dist/main.js
 *
 * In a real service, give NodeSDK an exporter to your backend instead of the in-memory one, e.g.
 * `OTEL_TRACES_EXPORTER=otlp` and no `spanProcessors`, or `traceExporter: new OTLPTraceExporter()`.
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { Agent, type ChatModel, defineTool, textOfMsg } from '@rxscope/core';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { TracingMiddleware } from '@rxscope/middleware-builtin';
import { z } from 'zod';

const exporter = new InMemorySpanExporter();
// NodeSDK registers the tracer provider and an AsyncLocalStorage context manager.
const sdk = new NodeSDK({
  serviceName: 'rxscope-tracing-example',
  spanProcessors: [new SimpleSpanProcessor({ exporter })],
  resourceDetectors: [],
});
sdk.start();

/** A tool doing traced work of its own: its span nests under the tool call's `execute_tool` span. */
const forecast = defineTool({
  name: 'get_forecast',
  description: "Today's weather forecast for a city",
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) =>
    trace.getTracer('weather-service').startActiveSpan('weather-api lookup', async (span) => {
      span.setAttribute('weather.city', city);
      await new Promise((resolve) => setTimeout(resolve, 20));
      span.end();
      return `Sunny, 24°C in ${city}`;
    }),
});

const apiKey = process.env['OPENAI_API_KEY'];
const model: ChatModel = apiKey
  ? new OpenAIChatModel({ model: process.env['OPENAI_MODEL'] || 'gpt-4o-mini', apiKey })
  : new ScriptedChatModel(
      [
        {
          toolCalls: [{ name: 'get_forecast', input: { city: 'Lisbon' } }],
          usage: { inputTokens: 52, outputTokens: 18 },
        },
        { text: ['It is sunny ', 'and 24°C in Lisbon today.'], usage: { inputTokens: 90, outputTokens: 12 } },
      ],
      { delayMs: 5 },
    );

const agent = new Agent({
  name: 'weather-assistant',
  sysPrompt: 'Answer weather questions with the get_forecast tool.',
  model,
  tools: [forecast],
  // First in the list: its spans cover every other middleware.
  middlewares: [new TracingMiddleware({ captureContent: process.argv.includes('--content') })],
});

const answer = await agent.call('What is the weather in Lisbon today?');
console.log(`answer: ${textOfMsg(answer)}\n`);
printTree(exporter.getFinishedSpans());
await sdk.shutdown();

/** Prints spans as a tree (parents before children), each with its duration and attributes. */
function printTree(spans: readonly ReadableSpan[]): void {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const children = (parent: string | undefined) =>
    spans
      .filter((s) =>
        parent === undefined ? !ids.has(s.parentSpanContext?.spanId ?? '') : s.parentSpanContext?.spanId === parent,
      )
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  const print = (span: ReadableSpan, indent: string, last: boolean, root: boolean) => {
    const ms = span.duration[0] * 1000 + span.duration[1] / 1e6;
    const status = span.status.code === SpanStatusCode.ERROR ? `  ERROR ${span.status.message ?? ''}` : '';
    console.log(`${indent}${root ? '' : last ? '└─ ' : '├─ '}${span.name}  (${ms.toFixed(1)} ms)${status}`);
    const inner = indent + (root ? '' : last ? '   ' : '│  ');
    const kids = children(span.spanContext().spanId);
    const bar = kids.length ? '│  ' : '   ';
    for (const [key, value] of Object.entries(span.attributes))
      console.log(`${inner}${bar}  ${key} = ${JSON.stringify(value)}`);
    for (const event of span.events)
      console.log(`${inner}${bar}  event ${event.name} ${JSON.stringify(event.attributes ?? {})}`);
    kids.forEach((kid, i) => print(kid, inner, i === kids.length - 1, false));
  };
  for (const root of children(undefined)) {
    console.log(`trace ${root.spanContext().traceId}`);
    print(root, '', true, true);
  }
}
